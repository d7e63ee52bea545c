"""Team mode's warehouse against a real PostgreSQL: a DuckLake catalog there gives the
embedded default's tables, and the seven framework refreshes launched at once write in
parallel processes with no lock error, the rows of one writer at a time.

The refreshes go as under `dev.py ui`: the CLI's instance settings with the writer pool's
limit from TRACKER_WRITERS, the daemon dequeuing the runs of `dagster job backfill`, each
run on the multiprocess executor, the sources the fakes of tests/test_concurrency.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import pytest

from bench.table_hashes import table_hashes
from fakes.github_server import running_fake_github, synthetic_fixtures
from orchestration.cli import prepare_instance_home
from orchestration.resources import warehouse_setting
from orchestration.settings import frameworks
from orchestration.warehouse import Warehouse
from tests.cli_fixtures import cli_environment
from tests.helpers import REPO_ROOT, shared_snapshots
from tests.test_concurrency import (
    backfill,
    failed_runs,
    git_remotes,
    max_overlap,
    run_environment,
    run_texts,
    running_daemon,
    runs_with_lock_errors,
    wait_for_runs,
)

pytestmark = pytest.mark.timeout(1800)

#: A JSON file to collect the figures (hashes, wall times) in, where set; they are printed anyway (-s).
FIGURES = os.environ.get("TRACKER_TEAM_FIGURES")


def lake_environment(catalog_url: str, data_path: Path, writers: int | None = None) -> dict[str, str]:
    """The settings of team mode's warehouse."""
    environ = {"TRACKER_WAREHOUSE": f"ducklake:postgres:{catalog_url}", "TRACKER_DATA_PATH": str(data_path)}
    return environ | ({"TRACKER_WRITERS": str(writers)} if writers else {})


def lake_warehouse(environ: dict[str, str]) -> Warehouse:
    return Warehouse(database=":memory:", backend=environ["TRACKER_WAREHOUSE"], data_path=environ["TRACKER_DATA_PATH"])


def record(figures: dict) -> None:
    if FIGURES:
        path = Path(FIGURES)
        known = json.loads(path.read_text()) if path.exists() else {}
        path.write_text(json.dumps(known | figures, indent=2, sort_keys=True))


def cli_run(root: Path, *args: str, **env: str) -> float:
    """`python -m orchestration run ARGS` in a subprocess, on its own instance and warehouse; its wall time."""
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "orchestration", "run", *args],
        cwd=REPO_ROOT, env=cli_environment(root / "home", root / "tracker.duckdb") | env,
        capture_output=True, text=True, timeout=1500,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    return time.monotonic() - started


@pytest.mark.snapshots
def test_the_full_snapshot_run_on_ducklake_gives_the_embedded_defaults_tables(tmp_path, postgres_database):
    snapshots = shared_snapshots()
    embedded_s = cli_run(tmp_path / "embedded", "--snapshot", str(snapshots))
    embedded = table_hashes(tmp_path / "embedded" / "tracker.duckdb")
    lake = lake_environment(postgres_database, tmp_path / "lake" / "files")
    lake_s = cli_run(tmp_path / "lake", "--snapshot", str(snapshots), **lake)
    on_lake = table_hashes(lake_warehouse(lake))

    print(f"\nembedded {embedded_s:.0f} s, ducklake {lake_s:.0f} s; {len(embedded)} tables")
    for table, figures in embedded.items():
        print(f"{table:36} {figures['rows']:>7} rows  {figures['sha256'][:16]}  {'=' if on_lake.get(table) == figures else 'DIFFERS'}")
    record({"full_snapshot": {"embedded_s": embedded_s, "ducklake_s": lake_s, "hashes": embedded, "equal": on_lake == embedded}})
    assert sorted(on_lake) == sorted(embedded)
    assert {t for t in embedded if on_lake[t] != embedded[t]} == set()
    assert not (tmp_path / "lake" / "tracker.duckdb").exists()  # the file backend was never opened
    assert any((tmp_path / "lake" / "files").rglob("*.parquet"))


def refresh_all_at_once(root: Path, remotes: Path, github_url: str, lake: dict[str, str], rounds: int) -> dict:
    """The seven framework refreshes launched at once through the queue, `rounds` times
    (the second a daily refresh: little new, every framework rewriting its rows of the
    same tables), on a fresh instance and lake; what they wrote and how long each round took."""
    home = root / "home"
    with pytest.MonkeyPatch.context() as env:  # the pool limit as the CLI writes it, from the same settings
        for name, value in lake.items():
            env.setenv(name, value)
        prepare_instance_home(home, warehouse_setting().writers)
    with (home / "dagster.yaml").open("a") as config:  # only the runs the test launches
        config.write("auto_materialize:\n  enabled: false\n  use_sensors: false\n")
    with dg.DagsterInstance.from_config(str(home)) as instance:
        instance.get_runs()  # the storage is created here, not by the daemon and the CLI at once
    environ = run_environment(root, "http://127.0.0.1:9/api/query", github_url, remotes) | lake
    wall_s, hashes = [], []
    with running_daemon(environ, root / "daemon.log"):
        for round_number in range(1, rounds + 1):
            started = time.monotonic()
            backfill(environ, "framework_refresh", "--partitions", ",".join(f.slug for f in frameworks()))
            runs = wait_for_runs(home, round_number * len(frameworks()), timeout_s=1200)
            wall_s.append(time.monotonic() - started)
            hashes.append(table_hashes(lake_warehouse(lake)))
    texts = run_texts(home, runs)
    failed = failed_runs(texts, runs)
    return {
        "failed": failed,
        "lock_errors": runs_with_lock_errors(texts),
        "conflicts_retried": sum(text.count("conflicted with a concurrent writer") for text in texts.values()),
        "multiprocess": all("multiprocess executor" in text for text in texts.values()),
        "wall_s": wall_s,
        "at_once": max_overlap(home),
        "hashes": hashes,
    }


def test_the_seven_refreshes_at_once_on_ducklake_write_in_parallel_the_rows_of_one_writer(tmp_path, postgres_server):
    remotes = tmp_path / "remotes"
    commits = git_remotes(remotes)
    github = synthetic_fixtures([f.repo for f in frameworks()], threads_per_repo=40)
    parallel_writers = len(frameworks())
    outcomes = {}
    with running_fake_github(github) as github_url:  # one server: the cached request URLs are the same
        for writers, rounds in ((1, 1), (parallel_writers, 2)):
            catalog = postgres_server.create_database(f"refresh_{writers}_{os.getpid()}")
            lake = lake_environment(catalog, tmp_path / f"writers_{writers}" / "files", writers)
            outcomes[writers] = refresh_all_at_once(tmp_path / f"writers_{writers}", remotes, github_url, lake, rounds)
    one, parallel = outcomes[1], outcomes[parallel_writers]
    print(
        f"\nseven refreshes at once on DuckLake: {one['wall_s'][0]:.0f} s with 1 writer, {parallel['wall_s'][0]:.0f} s "
        f"with {parallel_writers} ({one['wall_s'][0] / parallel['wall_s'][0]:.2f}x), then a daily refresh of the seven "
        f"{parallel['wall_s'][1]:.0f} s; runs executing at once {one['at_once']} / {parallel['at_once']}; "
        f"commit conflicts retried {one['conflicts_retried']} / {parallel['conflicts_retried']}"
    )
    record({"seven_refreshes": {str(w): {k: v for k, v in o.items() if k != "hashes"} for w, o in outcomes.items()}})
    for outcome in (one, parallel):
        assert outcome["failed"] == {} and outcome["lock_errors"] == [] and outcome["multiprocess"]
    assert parallel["at_once"] > 1
    assert parallel["hashes"][0] == one["hashes"][0]
    # The daily refresh found nothing new: it changed no table, but recorded the ETags of
    # its conditional requests (new URLs: `since` the stored watermark).
    first, daily = parallel["hashes"]
    assert {table for table in first if daily[table] != first[table]} <= {"raw.http_cache"}
    rows = {table: figures["rows"] for table, figures in daily.items()}
    assert rows["raw.git_commits"] == sum(commits.values())
    assert rows["raw.github_threads"] == 40 * len(frameworks())
