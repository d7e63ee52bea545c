"""The CLI on each of Dagster's instance storages: SQLite under DAGSTER_HOME against PostgreSQL.

    .venv/bin/python bench/instance_storage.py [--rounds 1] [--snapshot DIR] [--from YYYY-MM-DD --to YYYY-MM-DD]

Runs `python -m orchestration run` on one snapshot (default ../shared/snapshots, the
recorded data, over its window), each time into a fresh warehouse and DAGSTER_HOME, alternately with the instance in SQLite (the
default) and in a fresh database of a throwaway PostgreSQL server (fakes/postgres_cluster.py,
TRACKER_DAGSTER_POSTGRES_URL), and prints each wall time, the median per storage and
their ratio (PostgreSQL / SQLite, measured in the same run), the runs and events each
left in its instance, and whether the warehouses' tables hash alike (they must: the
instance stores Dagster's history, not the tracker's data). Exits 1 when a run fails or
a table differs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dagster as dg  # noqa: E402

from sqlalchemy.engine import make_url  # noqa: E402

from bench.crash_trials import cli_environment  # noqa: E402
from bench.table_hashes import table_hashes  # noqa: E402
from fakes.postgres_cluster import running_postgres  # noqa: E402
from orchestration.cli import POSTGRES_DRIVER, POSTGRES_URL_VAR  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
STORAGES = ("sqlite", "postgres")


def instance_counts(home: Path, extra: dict[str, str]) -> tuple[int, int]:
    """(runs, events) in the instance of `home`, opened with the CLI's instance setting
    (dagster.yaml refers to the variable)."""
    previous = os.environ.pop(POSTGRES_URL_VAR, None)
    os.environ.update(extra)
    try:
        with dg.DagsterInstance.from_config(str(home)) as instance:
            runs = instance.get_runs()
            return len(runs), sum(len(instance.all_logs(run.run_id)) for run in runs)
    finally:
        os.environ.pop(POSTGRES_URL_VAR, None)
        if previous is not None:
            os.environ[POSTGRES_URL_VAR] = previous


def timed_run(work: Path, snapshot: Path, window: list[str], extra: dict[str, str]) -> tuple[float, Path]:
    home, warehouse = work / "home", work / "tracker.duckdb"
    environ = {name: value for name, value in cli_environment(home, warehouse).items() if name != POSTGRES_URL_VAR}
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "orchestration", "run", "--snapshot", str(snapshot), *window],
        cwd=ROOT, env={**environ, **extra}, capture_output=True, text=True,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"instance_storage: the run on {work.name} failed: {result.stderr.strip().splitlines()[-1:]}")
    return seconds, warehouse


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1, help="runs per storage, alternating (default 1)")
    parser.add_argument("--snapshot", type=Path, default=ROOT.parent / "shared" / "snapshots")
    parser.add_argument("--from", dest="first_day", default="2025-01-01")
    parser.add_argument("--to", dest="last_day", default="2026-06-30", help="default: the end of the recorded data")
    args = parser.parse_args(argv)
    window = ["--from", args.first_day, "--to", args.last_day]
    snapshot = args.snapshot.resolve()
    if not (snapshot / "arxiv").is_dir():
        print(f"instance_storage: {snapshot} is not a snapshot folder (no arxiv/): pass --snapshot DIR", file=sys.stderr)
        return 2
    root = Path(tempfile.mkdtemp(prefix="instance-storage-"))
    try:
        seconds: dict[str, list[float]] = {storage: [] for storage in STORAGES}
        hashes, counts = set(), {}
        with running_postgres() as server:
            for number in range(1, args.rounds + 1):
                for storage in STORAGES:
                    work = root / f"{storage}-{number}"
                    extra = {}
                    if storage == "postgres":
                        database = make_url(server.create_database(f"dagster_{number}"))
                        extra = {POSTGRES_URL_VAR: database.set(drivername=POSTGRES_DRIVER).render_as_string()}
                    elapsed, warehouse = timed_run(work, snapshot, window, extra)
                    seconds[storage].append(elapsed)
                    hashes.add(json.dumps(table_hashes(warehouse), sort_keys=True))
                    counts[storage] = instance_counts(work / "home", extra)
                    print(f"  round {number} {storage:8} {elapsed:7.1f} s", flush=True)
        median = {storage: statistics.median(values) for storage, values in seconds.items()}
        print(f"snapshot: {snapshot}, window {args.first_day} .. {args.last_day}")
        for storage in STORAGES:
            runs, events = counts[storage]
            print(f"{storage:8} median {median[storage]:7.1f} s over {args.rounds} run(s); one instance: {runs} runs, {events} events")
        print(f"ratio postgres / sqlite: {median['postgres'] / median['sqlite']:.2f}")
        print(f"warehouse tables alike on both storages: {'yes' if len(hashes) == 1 else 'NO'}")
        return 0 if len(hashes) == 1 else 1
    finally:
        shutil.rmtree(root, ignore_errors=True)  # the warehouses and instances of every run


if __name__ == "__main__":
    raise SystemExit(main())
