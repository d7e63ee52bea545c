"""SIGKILL at random points of a snapshot run; the next run must finish on its own and
write the tables of a clean run.

    .venv/bin/python bench/crash_trials.py [--snapshot ../shared/snapshots] [--trials 5] [--seed 20261204]

First one clean run gives the reference content hashes (bench/table_hashes.py) and its
duration T. Each trial then starts the same run in a fresh DAGSTER_HOME and warehouse,
kills it (SIGKILL, its whole process group) after a random delay in [0.05 T, 0.95 T],
and reruns it in the same home and warehouse with no help: the rerun must exit 0 within
the time limit and its tables must hash as the clean run's. Prints one line per trial
and a summary; exits 1 when any trial failed.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from table_hashes import table_hashes  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def start_run(home: Path, warehouse: Path, snapshot: Path) -> subprocess.Popen:
    environment = {**os.environ, "DAGSTER_HOME": str(home), "TRACKER_DUCKDB_PATH": str(warehouse)}
    return subprocess.Popen(
        [sys.executable, "-m", "orchestration", "run", "--snapshot", str(snapshot)],
        cwd=ROOT,
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def finish(process: subprocess.Popen, limit_s: float) -> tuple[int | None, str]:
    try:
        _, stderr = process.communicate(timeout=limit_s)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        _, stderr = process.communicate()
        return None, stderr
    return process.returncode, stderr


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--snapshot", default=str(ROOT.parent / "shared" / "snapshots"))
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--seed", type=int, default=20261204)
    args = parser.parse_args(argv)
    snapshot = Path(args.snapshot).resolve()
    if not (snapshot / "arxiv").is_dir():
        print(f"crash_trials: {snapshot} is not a snapshot folder (no arxiv/)", file=sys.stderr)
        return 2
    draw = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="crash_trials_") as scratch:
        work = Path(scratch)
        started = time.monotonic()
        code, stderr = finish(start_run(work / "clean_home", work / "clean.duckdb", snapshot), 1800)
        clean_s = time.monotonic() - started
        if code != 0:
            print(f"crash_trials: the clean run failed ({code}): {stderr.strip().splitlines()[-1:]}", file=sys.stderr)
            return 2
        reference = table_hashes(work / "clean.duckdb")
        print(f"clean run: {clean_s:.1f} s, {len(reference)} tables")
        failures = 0
        for trial in range(1, args.trials + 1):
            home, warehouse = work / f"home_{trial}", work / f"tracker_{trial}.duckdb"
            delay = draw.uniform(0.05, 0.95) * clean_s
            victim = start_run(home, warehouse, snapshot)
            time.sleep(delay)
            killed = victim.poll() is None
            if killed:
                os.killpg(victim.pid, signal.SIGKILL)
            victim.communicate()
            started = time.monotonic()
            code, stderr = finish(start_run(home, warehouse, snapshot), max(600.0, 5 * clean_s))
            rerun_s = time.monotonic() - started
            differing = sorted(t for t, h in table_hashes(warehouse).items() if reference.get(t) != h) if code == 0 else []
            ok = code == 0 and not differing
            failures += not ok
            what = f"killed at {delay:5.1f} s" if killed else f"finished before {delay:5.1f} s"
            verdict = "same tables" if ok else (f"rerun exit {code}" if code != 0 else f"differ: {', '.join(differing)}")
            print(f"trial {trial:2}: {what}; rerun exit {code} in {rerun_s:5.1f} s; {verdict}")
        print(f"\n{args.trials - failures} of {args.trials} trials converged to the clean run's tables")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
