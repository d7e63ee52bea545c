"""Train the screening model on every labelled paper and say how it does on papers it
was not trained on.

    .venv/bin/python bench/train_screening_model.py [--snapshot DIR] [--check]

Reads the labelled sets of bench/screening_eval.py (the snapshot's 172 papers and every
batch of bench/labels/unseen/), then:
1. cross-validates by batch: each batch is scored by a model trained on all the other
   batches, the way a new batch's first reading is; prints each batch's F1 and the
   pooled F1, beside the rules' hand-set weights on the same papers;
2. trains on all of them and writes assets/papers/models/ (the features and their
   weights; the intercept, threshold and these figures).

With --check it writes nothing and fails if the committed model is not the one the
labels give (a label or rule changed since it was trained); a batch labelled since, whose
first reading is still to come, is left out as the model left it out. Retrain after a new
batch has had its first reading, never before: the first reading must come from a model
that has not seen the batch.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from assets.papers.logistic import same_fit  # noqa: E402
from assets.papers.screening_model import (  # noqa: E402
    MODEL_FEATURES,
    MODEL_META,
    ScreeningModel,
    fit_screening_model,
    read_screening_model,
    write_screening_model,
)
from bench.screening_eval import (  # noqa: E402
    DEFAULT_SNAPSHOT,
    Batch,
    cross_validated,
    cross_validated_figures,
    labelled_batches,
    training_data,
)
from bench.training import awaiting_first_reading  # noqa: E402


def trained_model(batches: list[Batch], figures: pl.DataFrame | None = None) -> ScreeningModel:
    """The model trained on every labelled paper of `batches`; its meta records what it
    was trained on and, given them, the cross-validated `figures`."""
    papers, rules, labels = training_data(batches)
    meta: dict = {
        "trained_on": {batch.name: batch.labels.height for batch in batches},
        "labelled_papers": labels.height,
        "general_methods": int(labels["is_general_rl_method"].sum()),
    }
    if figures is not None:
        pooled = figures.filter(pl.col("batch") == "all").row(0, named=True)
        meta |= {"cross_validated_f1": round(pooled["model_f1"], 4), "rules_f1_same_papers": round(pooled["rules_f1"], 4)}
    return fit_screening_model(papers, rules, labels, meta=meta)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshot", type=Path, default=DEFAULT_SNAPSHOT)
    parser.add_argument("--check", action="store_true", help="compare with the committed model, write nothing")
    args = parser.parse_args(argv)

    batches = labelled_batches("snapshot", args.snapshot) + labelled_batches("unseen")
    if args.check:
        committed = read_screening_model()
        awaiting = awaiting_first_reading(batches, committed.meta)
        model = trained_model([batch for batch in batches if batch.name not in awaiting])
        if not same_fit(model, committed):
            print(f"{MODEL_FEATURES} is not the model the labels and rules give: retrain with bench/train_screening_model.py")
            return 1
        print(f"the committed screening model is the one {model.meta['labelled_papers']} labelled papers give")
        return 0
    print(f"cross-validating on {len(batches)} labelled batches, each left out once ...", flush=True)
    figures = cross_validated_figures(cross_validated(batches))
    with pl.Config(tbl_rows=-1, float_precision=3, tbl_hide_dataframe_shape=True):
        print(figures)
    model = trained_model(batches, figures)
    write_screening_model(model)
    print(
        f"trained on {model.meta['labelled_papers']} papers ({model.meta['general_methods']} general methods), "
        f"{model.features.height} features: wrote {MODEL_FEATURES.relative_to(REPO_ROOT)} and {MODEL_META.relative_to(REPO_ROOT)}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
