"""Score the screening rules against the project's hand labels.

    .venv/bin/python bench/screening_eval.py [--snapshot DIR] [--labels CSV] [--quiet]

Reads the recorded arXiv papers of the snapshot (default ../shared/snapshots), applies
the rules of assets/papers/screening.py (without overrides: the rules alone are measured), and
prints, on the labelled papers: precision, recall and F1 of `is_general_rl_method`, the
accuracy of `large_policy` (unknown counts as a value of its own: the rules must say
"unknown" where the text says nothing) and of `loss_change_kind`, then every disagreement.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from orchestration.clients.arxiv_feed import parse_feed  # noqa: E402
from assets.papers.papers import papers_from_entries  # noqa: E402
from assets.papers.screening import loss_change_kinds, policy_sizes, screening_verdicts  # noqa: E402

DEFAULT_SNAPSHOT = REPO_ROOT.parent / "shared" / "snapshots"
DEFAULT_LABELS = REPO_ROOT / "bench" / "labels" / "screening_labels.csv"

LABEL_SCHEMA = {
    "arxiv_id": pl.Utf8,
    "is_general_rl_method": pl.Boolean,
    "policy_params_b": pl.Float64,
    "large_policy": pl.Boolean,
    "loss_change_kind": pl.Utf8,
    "method_names": pl.Utf8,
    "note": pl.Utf8,
}


def snapshot_papers(snapshot: Path) -> pl.DataFrame:
    files = sorted((snapshot / "arxiv").glob("*.xml"))
    if not files:
        raise SystemExit(f"no arXiv responses under {snapshot / 'arxiv'}")
    return papers_from_entries(pl.concat([parse_feed(path.read_bytes(), str(path)).entries for path in files]))


def predictions(papers: pl.DataFrame) -> pl.DataFrame:
    return (
        screening_verdicts(papers)
        .join(policy_sizes(papers), on="arxiv_id")
        .join(loss_change_kinds(papers), on="arxiv_id")
    )


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else float("nan")


def evaluate(labels: pl.DataFrame, predicted: pl.DataFrame) -> dict[str, float]:
    joined = labels.join(predicted, on="arxiv_id", how="inner", suffix="_rule")
    truth, rule = joined["is_general_rl_method"], joined["is_general_rl_method_rule"]
    tp = int((truth & rule).sum())
    fp = int((~truth & rule).sum())
    fn = int((truth & ~rule).sum())
    precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    large_same = joined["large_policy"].eq_missing(joined["large_policy_rule"])
    known = joined["large_policy"].is_not_null()
    return {
        "labels": joined.height,
        "general_methods": int(truth.sum()),
        "precision": precision,
        "recall": recall,
        "f1": _ratio(2 * precision * recall, precision + recall),
        "large_policy_accuracy": _ratio(int(large_same.sum()), joined.height),
        "large_policy_accuracy_known": _ratio(int((large_same & known).sum()), int(known.sum())),
        "loss_change_kind_accuracy": _ratio(
            int(joined["loss_change_kind"].eq(joined["loss_change_kind_rule"]).sum()), joined.height
        ),
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
        "loss_change_kind": joined.filter(pl.col("loss_change_kind") != pl.col("loss_change_kind_rule")).select(
            "arxiv_id", label="loss_change_kind", rule="loss_change_kind_rule", cue="loss_change_cue", note="note"
        ),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshot", type=Path, default=DEFAULT_SNAPSHOT)
    parser.add_argument("--labels", type=Path, default=DEFAULT_LABELS)
    parser.add_argument("--quiet", action="store_true", help="figures only, no disagreements")
    args = parser.parse_args(argv)

    labels = pl.read_csv(args.labels, schema=LABEL_SCHEMA)
    predicted = predictions(snapshot_papers(args.snapshot))
    figures = evaluate(labels, predicted)
    print(f"labelled papers: {figures['labels']} ({figures['general_methods']} general RL methods)")
    print(
        f"is_general_rl_method: precision {figures['precision']:.3f}  recall {figures['recall']:.3f}  "
        f"F1 {figures['f1']:.3f}"
    )
    print(
        f"large_policy accuracy: {figures['large_policy_accuracy']:.3f} "
        f"(on the {int(labels['large_policy'].is_not_null().sum())} papers that state a size: "
        f"{figures['large_policy_accuracy_known']:.3f})"
    )
    print(f"loss_change_kind accuracy: {figures['loss_change_kind_accuracy']:.3f}")
    if not args.quiet:
        with pl.Config(tbl_rows=-1, tbl_width_chars=220, fmt_str_lengths=90, tbl_hide_dataframe_shape=True):
            for name, frame in disagreements(labels, predicted).items():
                print(f"\ndisagreements on {name}: {frame.height}")
                if frame.height:
                    print(frame)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
