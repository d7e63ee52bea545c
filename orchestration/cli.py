"""`python -m orchestration`: materialize everything for a window, or open the UI.

    python -m orchestration run [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--snapshot DIR]
    python -m orchestration ui

`run` materializes, in dependency order, the partitioned sources (arXiv for the window,
as one single-run backfill; then each framework's commits, threads and contribution
rules, incrementally) and then every derived table, on the Dagster
instance in DAGSTER_HOME (default data/dagster_home, SQLite), so the runs show in the UI.
It exits non-zero with a one-line reason when a step fails.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from orchestration.settings import HARVEST_START

DEFAULT_DAGSTER_HOME = Path("data") / "dagster_home"

# The pool of the warehouse writers gets one slot: DuckDB takes one writer at a time.
INSTANCE_YAML = """\
# Written by `python -m orchestration`: Dagster's own storage is SQLite in this folder.
concurrency:
  pools:
    default_limit: 1
"""

# Public run tags that make one run cover a partition range (a single-run backfill).
RANGE_START_TAG = "dagster/asset_partition_range_start"
RANGE_END_TAG = "dagster/asset_partition_range_end"


class CliError(RuntimeError):
    """A failure the user can act on, reported as one line."""


@dataclass(frozen=True)
class Window:
    first_day: date
    last_day: date


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from error


def resolve_window(first_day: date | None, last_day: date | None, today: date) -> Window:
    """The window to materialize: default from the start of the study to yesterday (UTC)."""
    yesterday = today - timedelta(days=1)
    window = Window(first_day or HARVEST_START, last_day or yesterday)
    if window.first_day < HARVEST_START:
        raise CliError(f"--from {window.first_day} is before the first partition, {HARVEST_START}")
    if window.last_day > yesterday:
        raise CliError(f"--to {window.last_day} is after the last complete UTC day, {yesterday}")
    if window.first_day > window.last_day:
        raise CliError(f"--from {window.first_day} is after --to {window.last_day}")
    return window


def prepare_instance_home(environ: dict[str, str]) -> Path:
    """DAGSTER_HOME (default data/dagster_home) with the pool limit configured."""
    home = Path(environ.setdefault("DAGSTER_HOME", str(DEFAULT_DAGSTER_HOME.resolve())))
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    if not config.exists():
        config.write_text(INSTANCE_YAML)
    return home


def failure_reason(result) -> str:
    """The first error of ours (under Dagster's wrappers) of the first failed step, on one line."""
    for event in result.all_events:
        if event.is_step_failure:
            error = event.step_failure_data.error
            while error.cls_name.startswith("Dagster") and error.cause is not None:
                error = error.cause
            message = error.message.strip().splitlines()[0] if error.message.strip() else error.cls_name
            return f"{event.step_key}: {message}"
    return "the run failed (see the log above)"


def run(window: Window, snapshot: Path | None = None) -> None:
    """Materialize everything for `window`, from the recorded data in `snapshot` where given."""
    import dagster as dg

    from orchestration.definitions import tracker_definitions
    from orchestration.jobs import arxiv_harvest_job, derived_job, framework_refresh_job
    from orchestration.resources import build_resources
    from orchestration.settings import frameworks

    defs = tracker_definitions(build_resources(snapshot_dir=str(snapshot) if snapshot else None))
    instance = dg.DagsterInstance.get()
    run_config = {"loggers": {"console": {"config": {"log_level": "INFO"}}}}
    # (label, job, partition key, tags): sources first, then what is derived from them.
    stages = [
        (
            f"arXiv {window.first_day} .. {window.last_day}",
            arxiv_harvest_job.name,
            None,
            {RANGE_START_TAG: window.first_day.isoformat(), RANGE_END_TAG: window.last_day.isoformat()},
        ),
        *((f"framework {f.slug}", framework_refresh_job.name, f.slug, {}) for f in frameworks()),
        ("derived tables", derived_job.name, None, {}),
    ]
    for label, job_name, partition_key, tags in stages:
        print(f"orchestration run: {label} ({job_name})", file=sys.stderr, flush=True)
        result = defs.resolve_job_def(job_name).execute_in_process(
            instance=instance, run_config=run_config, partition_key=partition_key, tags=tags, raise_on_error=False
        )
        if not result.success:
            raise CliError(f"{label} failed: {failure_reason(result)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m orchestration", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser("run", help="materialize every asset for a window")
    run_parser.add_argument("--from", dest="first_day", type=_day, help=f"first day (default {HARVEST_START})")
    run_parser.add_argument("--to", dest="last_day", type=_day, help="last day (default yesterday, UTC)")
    run_parser.add_argument(
        "--snapshot", metavar="DIR", help="read recorded data from DIR (instead of TRACKER_SNAPSHOT_DIR)"
    )
    commands.add_parser("ui", help="open the Dagster UI on this project (dagster dev)")
    args = parser.parse_args(argv)

    prepare_instance_home(os.environ)
    try:
        if args.command == "ui":
            return subprocess.call([sys.executable, "-m", "dagster", "dev", "-w", "workspace.yaml"])
        snapshot = Path(args.snapshot).resolve() if args.snapshot else None
        if snapshot and not (snapshot / "arxiv").is_dir():
            raise CliError(f"--snapshot {args.snapshot}: no arxiv/ folder there (expected the snapshot format)")
        window = resolve_window(args.first_day, args.last_day, datetime.now(UTC).date())
        run(window, snapshot)
    except CliError as error:
        print(f"orchestration run: {error}", file=sys.stderr)
        return 1
    print("orchestration run: done", file=sys.stderr)
    return 0
