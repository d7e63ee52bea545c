"""Train the loss-change kind model on every labelled general method and say how it
does on papers it was not trained on.

    .venv/bin/python bench/train_kind_model.py [--snapshot DIR] [--leave-out BATCH ...] [--check]

Reads the labelled sets of bench/screening_eval.py (the snapshot's 172 papers and every
batch of bench/labels/unseen/; the kind of the papers labelled general methods), then:
1. cross-validates by batch: each batch is scored by a model trained on all the other
   batches, the way a new batch's first reading is; prints each batch's kind accuracy as
   the pipeline decides it (the model where it is sure, else the rules), the model's
   alone and the rules' alone on the same papers;
2. trains on all of them and writes assets/papers/models/kind_features.csv and
   kind_model.json.

`--leave-out` keeps a batch out of the training (a batch whose first reading is still to
come); the model's meta records it. With --check it writes nothing and fails if the
committed model is not the one the labels give (trained on the batches it lists).
Retrain after a new batch has had its first reading, never before.
"""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from assets.papers.kind_model import MODEL_FEATURES, MODEL_META, KindModel, fit_kind_model, read_kind_model, write_kind_model  # noqa: E402
from assets.papers.logistic import same_fit  # noqa: E402
from assets.papers.screening import decided_loss_change_kinds, only_for_general_methods  # noqa: E402
from bench.screening_eval import Batch  # noqa: E402
from bench.training import awaiting_first_reading, trainer_arguments  # noqa: E402


def kind_training_data(batches: list[Batch]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The labelled general methods of all `batches` (title, abstract) and their kinds,
    each row tagged with its `batch`."""
    papers, labels = [], []
    for batch in batches:
        tag = pl.lit(batch.name).alias("batch")
        kinds = batch.labels.filter("is_general_rl_method").select("arxiv_id", "loss_change_kind")
        papers.append(batch.papers.join(kinds, on="arxiv_id", how="semi").select("arxiv_id", "title", "abstract", "comment").with_columns(tag))
        labels.append(kinds.with_columns(tag))
    return pl.concat(papers), pl.concat(labels)


def cross_validated(papers: pl.DataFrame, labels: pl.DataFrame, batches: list[str]) -> pl.DataFrame:
    """`batch`, `arxiv_id`, `loss_change_kind` (the label), `decided` (as the pipeline
    decides, with a model trained on every other batch), `learned` (that model's likeliest
    kind) and `rules` (the rules' kind), each as a general method's kind is stored."""
    scored = []
    for batch in batches:
        held_out = pl.col("batch") == batch
        model = fit_kind_model(papers.filter(~held_out).drop("batch"), labels.filter(~held_out))
        decided = decided_loss_change_kinds(papers.filter(held_out).drop("batch"), model)
        scored.append(
            labels.filter(held_out)
            .join(decided.select("arxiv_id", "loss_change_kind", "learned_kind", "rules_loss_change_kind"), on="arxiv_id", suffix="_decided")
            .select(
                "batch", "arxiv_id", "loss_change_kind",
                *[only_for_general_methods(pl.col(column), pl.lit(True)).alias(name)
                  for name, column in (("decided", "loss_change_kind_decided"), ("learned", "learned_kind"), ("rules", "rules_loss_change_kind"))],
            )
        )  # fmt: skip
    return pl.concat(scored)


def cross_validated_figures(scored: pl.DataFrame) -> pl.DataFrame:
    """Per batch and pooled (`all`): general methods and the kind accuracy of the
    decided, learned and rules' kinds."""

    def figures(name: str, group: pl.DataFrame) -> dict:
        return {"batch": name, "general_methods": group.height} | {
            column: float((group[column] == group["loss_change_kind"]).mean()) for column in ("decided", "learned", "rules")
        }

    rows = [figures(name, group) for (name,), group in scored.sort("batch").group_by("batch", maintain_order=True)]
    return pl.DataFrame(rows + [figures("all", scored)])


def trained_model(papers: pl.DataFrame, labels: pl.DataFrame, left_out: list[str], figures: pl.DataFrame | None = None) -> KindModel:
    """The model trained on every labelled general method but those of `left_out`; its
    meta records what it was trained on and, given them, the cross-validated `figures`."""
    kept = ~pl.col("batch").is_in(left_out)
    labels = labels.filter(kept)
    meta: dict = {
        "trained_on": {batch: count for batch, count in labels.group_by("batch").len().sort("batch").iter_rows()},
        "left_out": sorted(left_out),
        "general_methods": labels.height,
    }
    if figures is not None:
        pooled = figures.filter(pl.col("batch") == "all").row(0, named=True)
        meta |= {
            "cross_validated_accuracy": round(pooled["decided"], 4),
            "cross_validated_accuracy_learned_alone": round(pooled["learned"], 4),
            "rules_accuracy_same_papers": round(pooled["rules"], 4),
        }
    return fit_kind_model(papers.filter(kept).drop("batch"), labels, meta=meta)


def main(argv: list[str] | None = None) -> int:
    args = trainer_arguments(__doc__, argv)
    batches = args.batches
    papers, labels = kind_training_data(batches)
    if args.check:
        committed = read_kind_model()
        left_out = committed.meta.get("left_out", []) + awaiting_first_reading(batches, committed.meta)
        if not same_fit(trained_model(papers, labels, left_out), committed):
            print(f"{MODEL_FEATURES} is not the model the labels give: retrain with bench/train_kind_model.py")
            return 1
        print(f"the committed kind model is the one {committed.meta['general_methods']} labelled general methods give")
        return 0
    read = [batch.name for batch in batches if batch.name not in args.leave_out]
    print(f"cross-validating on {len(read)} labelled batches, each left out once ...", flush=True)
    # A batch left out is neither trained on nor scored: its first reading is to come.
    kept = ~pl.col("batch").is_in(args.leave_out)
    figures = cross_validated_figures(cross_validated(papers.filter(kept), labels.filter(kept), read))
    with pl.Config(tbl_rows=-1, float_precision=3, tbl_hide_dataframe_shape=True):
        print(figures)
    model = trained_model(papers, labels, args.leave_out, figures)
    write_kind_model(model)
    print(
        f"trained on {model.meta['general_methods']} labelled general methods, {model.features['feature'].n_unique()} words: "
        f"wrote {MODEL_FEATURES.relative_to(REPO_ROOT)} and {MODEL_META.relative_to(REPO_ROOT)}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
