"""Train the method-name model on every labelled name and say how it does on papers it
was not trained on.

    .venv/bin/python bench/train_name_model.py [--snapshot DIR] [--leave-out BATCH ...] [--check]

Reads the labelled sets of bench/alias_eval.py (`method_names` of the snapshot's 172
papers and of every batch of bench/labels/unseen/), then:
1. cross-validates by batch: each batch is scored by a model trained on all the other
   batches, the way a new batch's first reading is; prints each batch's name recall and
   precision, beside the rules' (assets/papers/aliases.py) on the same papers;
2. trains on all of them and writes assets/papers/models/name_features.csv and
   name_model.json.

`--leave-out` keeps a batch out of the training (a batch whose first reading is still to
come); the model's meta records it. With --check it writes nothing and fails if the
committed model is not the one the labels give (trained on the batches it lists). Retrain
after a new batch has had its first reading, never before.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NamedTuple

import polars as pl

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from assets.papers.aliases import normalized_name, rule_aliases  # noqa: E402
from assets.papers.logistic import same_fit  # noqa: E402
from assets.papers.name_model import (  # noqa: E402
    MODEL_FEATURES,
    MODEL_META,
    NameModel,
    candidate_features,
    fit_name_model,
    name_probabilities,
    read_name_model,
    write_name_model,
)
from bench.alias_eval import labelled_names  # noqa: E402
from bench.screening_eval import Batch  # noqa: E402
from bench.training import awaiting_first_reading, trainer_arguments  # noqa: E402


class NameTrainingData(NamedTuple):
    """Each labelled paper's candidates (with the rules' names among their features), the
    rules' names and the labelled names, every row tagged with its `batch`."""

    candidates: pl.DataFrame
    rules: pl.DataFrame
    names: pl.DataFrame


def name_training_data(batches: list[Batch]) -> NameTrainingData:
    candidates, rules, names = [], [], []
    for batch in batches:
        papers = batch.papers.join(batch.labels.select("arxiv_id"), on="arxiv_id", how="semi")
        found = rule_aliases(papers).select("arxiv_id", "alias", "source")
        tag = pl.lit(batch.name).alias("batch")
        candidates.append(candidate_features(papers, found).with_columns(tag))
        rules.append(found.select("arxiv_id", normalized=normalized_name(pl.col("alias"))).unique().with_columns(tag))
        names.append(labelled_names(batch.labels).select("arxiv_id", "normalized").with_columns(tag))
    return NameTrainingData(pl.concat(candidates), pl.concat(rules), pl.concat(names))


def cross_validated(data: NameTrainingData, batches: list[str]) -> pl.DataFrame:
    """`batch`, `arxiv_id`, `normalized`, `name_probability` of each candidate of every
    batch in `batches`, from a model trained on the other batches of `data`."""
    scored = []
    for batch in batches:
        held_out = pl.col("batch") == batch
        model = fit_name_model(data.candidates.filter(~held_out), data.names.filter(~held_out))
        probabilities = name_probabilities(data.candidates.filter(held_out).drop("batch"), model)
        scored.append(probabilities.with_columns(batch=pl.lit(batch), taken=pl.col("name_probability") >= model.threshold))
    return pl.concat(scored)


def _figures(truth: pl.DataFrame, found: pl.DataFrame) -> tuple[float, float]:
    right = found.join(truth, on=["arxiv_id", "normalized"], how="semi").height
    recall = right / truth.height if truth.height else float("nan")
    precision = right / found.height if found.height else float("nan")
    return recall, precision


def cross_validated_figures(data: NameTrainingData, scored: pl.DataFrame) -> pl.DataFrame:
    """Per batch and pooled (`all`): labelled names, recall and precision of the rules'
    names with the cross-validated model's (as the pipeline takes them) and of the rules'
    alone on the same papers."""
    taken = pl.concat([scored.filter(pl.col("taken")).select("batch", "arxiv_id", "normalized"), data.rules.select("batch", "arxiv_id", "normalized")]).unique()
    read = scored["batch"].unique().to_list()
    rows = []
    for name in sorted(read) + ["all"]:
        of = (pl.col("batch") == name) if name != "all" else pl.col("batch").is_in(read)
        truth = data.names.filter(of)
        recall, precision = _figures(truth, taken.filter(of))
        rules_recall, rules_precision = _figures(truth, data.rules.filter(of))
        rows.append(
            {"batch": name, "names": truth.height, "recall": recall, "precision": precision,
             "rules_recall": rules_recall, "rules_precision": rules_precision}
        )  # fmt: skip
    return pl.DataFrame(rows)


def trained_model(data: NameTrainingData, left_out: list[str], figures: pl.DataFrame | None = None) -> NameModel:
    """The model trained on every labelled batch of `data` but those `left_out`; its meta
    records what it was trained on and, given them, the cross-validated `figures`."""
    kept = ~pl.col("batch").is_in(left_out)
    names = data.names.filter(kept)
    meta: dict = {
        "trained_on": {batch: int(count) for batch, count in names.group_by("batch").agg(pl.col("arxiv_id").n_unique()).sort("batch").iter_rows()},
        "left_out": sorted(left_out),
        "labelled_names": names.height,
    }
    if figures is not None:
        pooled = figures.filter(pl.col("batch") == "all").row(0, named=True)
        meta |= {
            "cross_validated_recall": round(pooled["recall"], 4),
            "cross_validated_precision": round(pooled["precision"], 4),
            "rules_recall_same_papers": round(pooled["rules_recall"], 4),
            "rules_precision_same_papers": round(pooled["rules_precision"], 4),
        }
    return fit_name_model(data.candidates.filter(kept), names, meta=meta)


def main(argv: list[str] | None = None) -> int:
    args = trainer_arguments(__doc__, argv)
    batches = args.batches
    if args.check:
        committed = read_name_model()
        left_out = committed.meta.get("left_out", []) + awaiting_first_reading(batches, committed.meta)
        data = name_training_data(batches)
        if not same_fit(trained_model(data, left_out), committed):
            print(f"{MODEL_FEATURES} is not the model the labels and rules give: retrain with bench/train_name_model.py")
            return 1
        print(f"the committed name model is the one {committed.meta['labelled_names']} labelled names give")
        return 0
    data = name_training_data(batches)
    read = [batch.name for batch in batches if batch.name not in args.leave_out]
    print(f"cross-validating on {len(read)} labelled batches, each left out once ...", flush=True)
    # A batch left out is neither trained on nor scored: its first reading is to come.
    kept = NameTrainingData(*(frame.filter(~pl.col("batch").is_in(args.leave_out)) for frame in data))
    figures = cross_validated_figures(kept, cross_validated(kept, read))
    with pl.Config(tbl_rows=-1, float_precision=3, tbl_hide_dataframe_shape=True):
        print(figures)
    model = trained_model(data, args.leave_out, figures)
    write_name_model(model)
    written = ", ".join(str(path.relative_to(REPO_ROOT)) for path in (MODEL_FEATURES, MODEL_META))
    print(f"trained on {model.meta['labelled_names']} labelled names, {model.features.height} features: wrote {written}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
