"""How far two readers agree: the ceiling the screening and name rules are measured under.

    .venv/bin/python bench/label_agreement.py

A second reader, who saw neither the rules nor the first labels, labelled a random 100 of
the unseen papers (bench/labels/second_reader/unseen_sample.jsonl: `is_general_rl_method`,
`loss_change_kind`, `method_names`) from their title, abstract and comment alone, with the
definitions of bench/labels/unseen/README.md. This prints the second reader scored the way
screening_eval.py and alias_eval.py score the rules, with the first reader's labels as
truth: F1 of `is_general_rl_method`, `loss_change_kind` accuracy on the papers the first
reader called general methods (a paper the second reader calls no method counts as
`other`), and method-name recall and precision on normalized names.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import polars as pl

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from bench.alias_eval import labelled_names  # noqa: E402
from bench.screening_eval import LABEL_SCHEMA, unseen_batches, whole_set  # noqa: E402

SECOND_READER = REPO_ROOT / "bench" / "labels" / "second_reader" / "unseen_sample.jsonl"
#: The fields a second reader labels, typed as the first labels are (`method_names` `;`-separated).
SECOND_READER_SCHEMA = {
    column: LABEL_SCHEMA[column] for column in ("arxiv_id", "is_general_rl_method", "loss_change_kind", "method_names", "note")
}


def second_reader_labels(path: Path = SECOND_READER) -> pl.DataFrame:
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return pl.DataFrame(
        [{**record, "method_names": ";".join(record["method_names"])} for record in records],
        schema=SECOND_READER_SCHEMA,
    )


def agreement(first: pl.DataFrame, second: pl.DataFrame) -> dict[str, float]:
    """The second reader's figures against the first reader's labels, on the papers both read."""
    joined = first.join(second, on="arxiv_id", suffix="_second")
    truth, said = joined["is_general_rl_method"], joined["is_general_rl_method_second"]
    tp, fp, fn = int((truth & said).sum()), int((~truth & said).sum()), int((truth & ~said).sum())
    kinds = joined.filter(pl.col("is_general_rl_method")).select(
        pl.col("loss_change_kind").eq(
            pl.when(pl.col("is_general_rl_method_second")).then(pl.col("loss_change_kind_second")).otherwise(pl.lit("other"))
        )
    ).to_series()
    first_names = labelled_names(first.join(second.select("arxiv_id"), on="arxiv_id", how="semi"))
    second_names = labelled_names(second)
    shared = first_names.join(second_names, on=["arxiv_id", "normalized"], how="semi").height
    return {
        "papers": joined.height,
        "general_f1": 2 * tp / (2 * tp + fp + fn),
        "general_agreement": float((truth == said).mean()),
        "kind_accuracy": float(kinds.mean()),
        "kind_papers": kinds.len(),
        "name_recall": shared / first_names.height,
        "name_precision": shared / second_names.height,
    }


def main() -> int:
    first = whole_set(unseen_batches()).labels
    figures = agreement(first, second_reader_labels())
    print(
        f"second reader on {figures['papers']} unseen papers, scored against the first reader's labels:\n"
        f"  is_general_rl_method: F1 {figures['general_f1']:.3f} (same verdict on {figures['general_agreement']:.3f})\n"
        f"  loss_change_kind accuracy on the first reader's {figures['kind_papers']} general methods: {figures['kind_accuracy']:.3f}\n"
        f"  method names: recall {figures['name_recall']:.3f}, precision {figures['name_precision']:.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
