"""Score the screening rules against the project's hand labels.

    .venv/bin/python bench/screening_eval.py [--set snapshot|unseen] [--snapshot DIR] [--quiet]

`--set snapshot` (default) scores the recorded arXiv papers of the snapshot (default
../shared/snapshots) against bench/labels/screening_labels.csv; `--set unseen` scores the
held-out papers of bench/labels/unseen/*.jsonl (text and labels in one file per batch,
see its README). The rules of assets/papers/screening.py are applied without overrides:
the rules alone are measured. Per batch (the file's stem) and for the whole set it
prints precision, recall and F1 of `is_general_rl_method`, the accuracy of
`large_policy` (unknown counts as a value of its own: the rules must say "unknown"
where the text says nothing) and of `loss_change_kind` on the papers labelled general
methods (and on all papers; the kind as the pipeline decides it, with the learned kind
model of assets/papers/kind_model.py where it is sure, and the rules' alone beside it),
then every disagreement. The first reading of each batch is kept in
bench/readings/first_readings.csv.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

import polars as pl

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from orchestration.clients.arxiv_feed import ENTRY_SCHEMA, normalize_whitespace, parse_feed  # noqa: E402
from assets.papers.papers import papers_from_entries  # noqa: E402
from assets.papers.kind_model import committed_kind_model  # noqa: E402
from assets.papers.screening import decided_loss_change_kinds, only_for_general_methods, policy_sizes, screening_rules, screening_verdicts  # noqa: E402
from assets.papers.screening_model import committed_screening_model, fit_screening_model, general_method_probabilities  # noqa: E402
from bench.first_readings import record_first_reading  # noqa: E402

DEFAULT_SNAPSHOT = REPO_ROOT.parent / "shared" / "snapshots"
DEFAULT_LABELS = REPO_ROOT / "bench" / "labels" / "screening_labels.csv"
UNSEEN_DIR = REPO_ROOT / "bench" / "labels" / "unseen"
SETS = ("snapshot", "unseen")

#: One labelled paper; `method_names` is `;`-separated.
LABEL_SCHEMA = {
    "arxiv_id": pl.Utf8,
    "is_general_rl_method": pl.Boolean,
    "policy_params_b": pl.Float64,
    "large_policy": pl.Boolean,
    "loss_change_kind": pl.Utf8,
    "method_names": pl.Utf8,
    "note": pl.Utf8,
}


class Batch(NamedTuple):
    """One labelled sample: the papers as the pipeline sees them and their labels."""

    name: str
    papers: pl.DataFrame
    labels: pl.DataFrame


def snapshot_papers(snapshot: Path) -> pl.DataFrame:
    files = sorted((snapshot / "arxiv").glob("*.xml"))
    if not files:
        raise SystemExit(f"no arXiv responses under {snapshot / 'arxiv'}")
    return papers_from_entries(pl.concat([parse_feed(path.read_bytes(), str(path)).entries for path in files]))


def snapshot_batches(snapshot: Path, labels_csv: Path = DEFAULT_LABELS) -> list[Batch]:
    return [Batch(labels_csv.stem, snapshot_papers(snapshot), pl.read_csv(labels_csv, schema=LABEL_SCHEMA))]


def _unseen_entry(record: dict) -> dict:
    """The raw.arxiv_entries row of one unseen paper (version 1, published at 00:00 UTC)."""
    published = datetime.strptime(record["published"], "%Y-%m-%d").replace(tzinfo=UTC)
    return {
        "arxiv_id": record["arxiv_id"],
        "version": 1,
        "title": normalize_whitespace(record["title"]),
        "abstract": normalize_whitespace(record["abstract"]),
        "authors": [],
        "author_affiliations": [{"author": None, "affiliation": name} for name in record.get("affiliations") or []],
        "primary_category": None,
        "categories": [],
        "comment": normalize_whitespace(record.get("comment")) or None,
        "journal_ref": None,
        "doi": None,
        "published_at": published,
        "updated_at": published,
        "abstract_url": record.get("source_url"),
        "pdf_url": None,
    }


def unseen_batch(path: Path) -> Batch:
    """One bench/labels/unseen/<batch>.jsonl file as papers (through papers_from_entries,
    as harvested entries would go) and labels (LABEL_SCHEMA)."""
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as error:
            raise SystemExit(f"{path}:{number}: not a JSON object ({error.msg}); fix the line") from None
    entries = pl.DataFrame([_unseen_entry(record) for record in records], schema=ENTRY_SCHEMA)
    labels = pl.DataFrame(
        [
            {
                **{column: record.get(column) for column in LABEL_SCHEMA if column != "method_names"},
                "method_names": ";".join(record.get("method_names") or []),
            }
            for record in records
        ],
        schema=LABEL_SCHEMA,
    )
    return Batch(path.stem, papers_from_entries(entries), labels)


def unseen_batches(folder: Path = UNSEEN_DIR) -> list[Batch]:
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        raise SystemExit(f"no labelled batches (*.jsonl) under {folder}")
    return [unseen_batch(path) for path in files]


def labelled_batches(which: str, snapshot: Path = DEFAULT_SNAPSHOT) -> list[Batch]:
    return snapshot_batches(snapshot) if which == "snapshot" else unseen_batches()


def whole_set(batches: list[Batch]) -> Batch:
    return Batch(
        "all", pl.concat([b.papers for b in batches]).unique("arxiv_id"), pl.concat([b.labels for b in batches])
    )


def predictions(papers: pl.DataFrame) -> pl.DataFrame:
    return (
        screening_verdicts(papers)
        .join(policy_sizes(papers), on="arxiv_id")
        .join(decided_loss_change_kinds(papers), on="arxiv_id")
    )


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else float("nan")


def _f1(truth: pl.Series, verdict: pl.Series) -> float:
    true_positives = int((truth & verdict).sum())
    wrong = int((truth ^ verdict).sum())
    return _ratio(2 * true_positives, 2 * true_positives + wrong)


def cross_validated(batches: list[Batch]) -> pl.DataFrame:
    """`batch`, `arxiv_id`, `is_general_rl_method` (the label), `model` (the verdict of a
    model trained on every batch but the paper's own, as a new batch's first reading is)
    and `rules` (the hand-set weights' verdict)."""
    papers, rules, labels = training_data(batches)
    scored = []
    for batch in batches:
        held_out = pl.col("batch") == batch.name
        model = fit_screening_model(papers.filter(~held_out), rules.filter(~held_out), labels.filter(~held_out))
        verdicts = general_method_probabilities(papers.filter(held_out), rules.filter(held_out), model)
        scored.append(
            labels.filter(held_out)
            .join(verdicts, on="arxiv_id")
            .join(rules.filter(held_out).select("arxiv_id", "vetoed", "rules_say_general"), on="arxiv_id")
            .select(
                "batch", "arxiv_id", "is_general_rl_method",
                model=(pl.col("screening_probability") >= model.threshold) & ~pl.col("vetoed"),
                rules="rules_say_general",
            )
        )
    return pl.concat(scored)


def cross_validated_figures(scored: pl.DataFrame) -> pl.DataFrame:
    """Per batch and pooled (`all`): papers, F1 of the cross-validated model and of the
    hand-set weights on the same papers."""
    rows = [
        {"batch": name, "papers": group.height, "model_f1": _f1(group["is_general_rl_method"], group["model"]),
         "rules_f1": _f1(group["is_general_rl_method"], group["rules"])}
        for (name,), group in scored.sort("batch").group_by("batch", maintain_order=True)
    ]
    rows.append(
        {"batch": "all", "papers": scored.height, "model_f1": _f1(scored["is_general_rl_method"], scored["model"]),
         "rules_f1": _f1(scored["is_general_rl_method"], scored["rules"])}
    )
    return pl.DataFrame(rows)


def training_data(batches: list[Batch]) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The labelled papers of all `batches` (title, abstract), their rules and their
    labels, each row tagged with its `batch`."""
    papers, rules, labels = [], [], []
    for batch in batches:
        tag = pl.lit(batch.name).alias("batch")
        batch_labels = batch.labels.select("arxiv_id", "is_general_rl_method")
        batch_papers = batch.papers.join(batch_labels, on="arxiv_id", how="semi").select("arxiv_id", "title", "abstract", "comment")
        for frames, frame in zip((papers, rules, labels), (batch_papers, screening_rules(batch_papers), batch_labels)):
            frames.append(frame.with_columns(tag))
    return pl.concat(papers), pl.concat(rules), pl.concat(labels)


def evaluate(labels: pl.DataFrame, predicted: pl.DataFrame) -> dict[str, float]:
    joined = labels.join(predicted, on="arxiv_id", how="inner", suffix="_rule")
    truth, rule = joined["is_general_rl_method"], joined["is_general_rl_method_rule"]
    tp = int((truth & rule).sum())
    fp = int((~truth & rule).sum())
    fn = int((truth & ~rule).sum())
    precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    hand = joined["rules_say_general"]
    large_same = joined["large_policy"].eq_missing(joined["large_policy_rule"])
    known = joined["large_policy"].is_not_null()
    # The kind rule on the labelled general methods; on all papers, the kind the table
    # stores (`other` wherever the rules' verdict is not a general method).
    kind_same = joined.select(
        pl.col("loss_change_kind").eq(only_for_general_methods(pl.col("loss_change_kind_rule"), pl.lit(True)))
    ).to_series()
    rules_kind_same = joined.select(
        pl.col("loss_change_kind").eq(only_for_general_methods(pl.col("rules_loss_change_kind"), pl.lit(True)))
    ).to_series()
    stored_same = joined.select(
        pl.col("loss_change_kind").eq(only_for_general_methods(pl.col("loss_change_kind_rule"), pl.col("is_general_rl_method_rule")))
    ).to_series()
    return {
        "labels": joined.height,
        "general_methods": int(truth.sum()),
        "precision": precision,
        "recall": recall,
        "f1": _ratio(2 * precision * recall, precision + recall),
        "rules_f1": _f1(truth, hand),
        "large_policy_accuracy": _ratio(int(large_same.sum()), joined.height),
        "large_policy_accuracy_known": _ratio(int((large_same & known).sum()), int(known.sum())),
        "loss_change_kind_accuracy": _ratio(int((kind_same & truth).sum()), int(truth.sum())),
        "loss_change_kind_accuracy_all": _ratio(int(stored_same.sum()), joined.height),
        "rules_loss_change_kind_accuracy": _ratio(int((rules_kind_same & truth).sum()), int(truth.sum())),
    }


def disagreements(labels: pl.DataFrame, predicted: pl.DataFrame) -> dict[str, pl.DataFrame]:
    joined = labels.join(predicted, on="arxiv_id", how="inner", suffix="_rule")
    return {
        "is_general_rl_method": joined.filter(pl.col("is_general_rl_method") != pl.col("is_general_rl_method_rule")).select(
            "arxiv_id", label="is_general_rl_method", rule="is_general_rl_method_rule", score="screening_score",
            reasons=pl.col("screening_reasons").list.join(" "), note="note",
        ),
        "large_policy": joined.filter(~pl.col("large_policy").eq_missing(pl.col("large_policy_rule"))).select(
            "arxiv_id", label="policy_params_b", rule="policy_params_b_rule", cue="policy_size_cue", note="note"
        ),
        "loss_change_kind (general methods)": joined.filter(
            pl.col("is_general_rl_method") & (pl.col("loss_change_kind") != pl.col("loss_change_kind_rule"))
        ).select(
            "arxiv_id", label="loss_change_kind", rule="loss_change_kind_rule",
            cue="loss_change_cue", reasons=pl.col("loss_change_reasons").list.join(" "), note="note",
        ),
    }


#: The figures a first reading keeps.
READING_FIGURES = (
    "f1", "precision", "recall", "rules_f1", "large_policy_accuracy", "loss_change_kind_accuracy",
    "loss_change_kind_accuracy_all", "rules_loss_change_kind_accuracy",
)


def report(name: str, figures: dict[str, float]) -> str:
    return (
        f"{name}: {figures['labels']} papers ({figures['general_methods']} general RL methods)\n"
        f"  is_general_rl_method: precision {figures['precision']:.3f}  recall {figures['recall']:.3f}  "
        f"F1 {figures['f1']:.3f} (the rules' hand-set weights alone: {figures['rules_f1']:.3f})\n"
        f"  large_policy accuracy: {figures['large_policy_accuracy']:.3f} "
        f"(on the papers that state a size: {figures['large_policy_accuracy_known']:.3f})\n"
        f"  loss_change_kind accuracy on the general methods: {figures['loss_change_kind_accuracy']:.3f} "
        f"(the rules alone: {figures['rules_loss_change_kind_accuracy']:.3f}; all papers: {figures['loss_change_kind_accuracy_all']:.3f})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", dest="which", choices=SETS, default="snapshot")
    parser.add_argument("--snapshot", type=Path, default=DEFAULT_SNAPSHOT)
    parser.add_argument("--quiet", action="store_true", help="figures only, no disagreements")
    args = parser.parse_args(argv)

    batches = labelled_batches(args.which, args.snapshot)
    trained_on = committed_screening_model().meta.get("trained_on", {})
    kind_trained_on = committed_kind_model().meta.get("trained_on", {})
    for batch in batches:
        figures = evaluate(batch.labels, predictions(batch.papers))
        sample = f"{args.which}:{batch.name}"
        # The batches a model was trained on: their figures are a fit, not a first reading.
        seen_by = [model for model, batches_seen in (("screening model", trained_on), ("kind model", kind_trained_on)) if batch.name in batches_seen]
        was = f" [the {' and the '.join(seen_by)} {'were' if len(seen_by) > 1 else 'was'} trained on it: a fit]" if seen_by else ""
        print(report(sample + was, figures))
        reading = {name: figures[name] for name in READING_FIGURES}
        trained_on_by = " and ".join(seen_by) or None
        print("  " + record_first_reading("screening", sample, figures["labels"], reading, trained_on_by=trained_on_by))
    whole = whole_set(batches)
    predicted = predictions(whole.papers)
    if len(batches) > 1:
        print(report(f"{args.which} (all batches)", evaluate(whole.labels, predicted)))
    if any(batch.name in trained_on for batch in batches):
        # The honest figure for batches the model was trained on: each scored by a model
        # trained on every other labelled batch (of both sets, in the order the committed
        # one was trained on them); this set's batches are already read.
        everything = (
            batches + labelled_batches("unseen") if args.which == "snapshot" else labelled_batches("snapshot", args.snapshot) + batches
        )
        scored = cross_validated(everything).filter(pl.col("batch").is_in([batch.name for batch in batches]))
        print("\nis_general_rl_method cross-validated (each batch left out of the training once):")
        with pl.Config(tbl_rows=-1, float_precision=3, tbl_hide_dataframe_shape=True):
            print(cross_validated_figures(scored))
    if not args.quiet:
        with pl.Config(tbl_rows=-1, tbl_width_chars=220, fmt_str_lengths=90, tbl_hide_dataframe_shape=True):
            for name, frame in disagreements(whole.labels, predicted).items():
                print(f"\ndisagreements on {name}: {frame.height}")
                if frame.height:
                    print(frame)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
