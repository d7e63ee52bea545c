"""The first reading of every labelled sample, kept after the rules improve on it.

A bench script that scores rules against a labelled sample calls `record_first_reading`
with the sample's name and its figures. The first time a (bench, sample) pair is read,
one row per figure is appended to bench/readings/first_readings.csv with the date and
the commit of the rules; later readings append nothing. Commit that file with the
labels: it is how a reader sees how well the rules did on data they had not seen.
"""

from __future__ import annotations

import csv
import subprocess
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIRST_READINGS = ROOT / "bench" / "readings" / "first_readings.csv"
COLUMNS = ("date", "bench", "sample", "sample_size", "rule_commit", "metric", "value")
#: The folders whose code a reading judges: a reading taken with changes there says so.
RULE_PATHS = ("assets", "orchestration", "overrides")


def rule_commit() -> str:
    """The commit the rules were read at, `+changes` when they differ from it."""
    head = subprocess.run(
        ["git", "rev-parse", "--short=10", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout.strip() or "unknown"
    changed = subprocess.run(
        ["git", "status", "--porcelain", "--", *RULE_PATHS], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout.strip()
    return f"{head}+changes" if changed else head


def first_readings(path: Path = FIRST_READINGS) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def record_first_reading(
    bench: str,
    sample: str,
    sample_size: int,
    figures: dict[str, float],
    path: Path = FIRST_READINGS,
    *,
    trained_on_by: str | None = None,
) -> str:
    """Append `figures` as the first reading of `sample` unless it has one; return a line
    saying which reading stands. `trained_on_by` names a learned model that was trained on
    the sample: its figures are a fit, no first reading, and are not recorded."""
    earlier = [row for row in first_readings(path) if row["bench"] == bench and row["sample"] == sample]
    if earlier:
        first = earlier[0]
        shown = ", ".join(f"{row['metric']} {float(row['value']):.3f}" for row in earlier)
        return f"first reading of {sample} ({first['date']}, rules at {first['rule_commit']}): {shown}"
    if trained_on_by is not None:
        return f"no first reading of {sample} recorded: the {trained_on_by} was trained on it"
    date, commit = datetime.now(UTC).date().isoformat(), rule_commit()
    path.parent.mkdir(parents=True, exist_ok=True)
    new_file = not path.exists()
    with path.open("a", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        if new_file:
            writer.writerow(COLUMNS)
        for metric, value in figures.items():
            writer.writerow((date, bench, sample, sample_size, commit, metric, f"{value:.4f}"))
    return f"first reading of {sample} recorded in {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path} (rules at {commit})"
