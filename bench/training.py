"""What the model trainers (bench/train_*_model.py) share: their command line and the
batches a run leaves out of the training."""

from __future__ import annotations

import argparse
from pathlib import Path

from bench.screening_eval import DEFAULT_SNAPSHOT, Batch, labelled_batches


def trainer_arguments(doc: str, argv: list[str] | None) -> argparse.Namespace:
    """`--snapshot`, `--leave-out` (a batch whose first reading is to come; a name the
    labelled sets do not have is an error) and `--check`, with `batches`: every labelled
    batch of both sets, the snapshot's first."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--snapshot", type=Path, default=DEFAULT_SNAPSHOT)
    parser.add_argument("--leave-out", action="append", default=[], metavar="BATCH", help="a batch not to train on (its first reading is still to come)")
    parser.add_argument("--check", action="store_true", help="compare with the committed model, write nothing")
    args = parser.parse_args(argv)
    args.batches = labelled_batches("snapshot", args.snapshot) + labelled_batches("unseen")
    unknown = sorted(set(args.leave_out) - {batch.name for batch in args.batches})
    if unknown:
        parser.error(f"no labelled batch named {', '.join(unknown)}")
    return args


def awaiting_first_reading(batches: list[Batch], meta: dict) -> list[str]:
    """The batches labelled since a committed model was trained: neither trained on nor
    left out by it (its `meta`). Their first reading is still to come on that model, so
    `--check` leaves them out as the model did, and committing a batch's labels before
    anything reads them does not fail the check until the retraining that follows it."""
    return [batch.name for batch in batches if batch.name not in meta.get("trained_on", {}) and batch.name not in meta.get("left_out", [])]
