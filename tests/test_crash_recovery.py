"""A crash never blocks the next run: `python -m orchestration run` subprocesses killed
(SIGKILL) or stopped (SIGTERM) while they hold the warehouse writers' pool slot.

The warehouse file starts as a named pipe: the first step that opens the warehouse (the
write of the arXiv harvest, in the writer pool) blocks on it while holding the slot, so
the signal lands at a known point. (The harvest's fetch runs outside the pool: a block
there would hold no slot.) Removing the pipe lets the next run create the warehouse.

The tests of dead runs and freed slots run on both instance storages (`instance_storage`):
SQLite under DAGSTER_HOME and PostgreSQL (TRACKER_DAGSTER_POSTGRES_URL, team mode)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest

from bench.crash_trials import KillPoint, Reference, clean_run, describe, run_trial
from bench.table_hashes import table_hashes
from tests.helpers import REPO_ROOT
from tests.cli_fixtures import (  # noqa: F401  (instance_storage: the fixture)
    WINDOW,
    instance_storage,
    read_until,
    run_cli,
    run_statuses,
    start_cli,
    wait_until,
    write_snapshot,
    writer_slot_holders,
)

pytestmark = pytest.mark.timeout(420)


def blocking_warehouse(path: Path) -> Path:
    """A named pipe where the warehouse file goes: DuckDB blocks reading it."""
    os.mkfifo(path)
    return path


@pytest.fixture(scope="module")
def invented_clean_run(tmp_path_factory) -> tuple[Path, Reference]:
    """The invented snapshot and what an uninterrupted run of it writes and runs (once per module)."""
    work = tmp_path_factory.mktemp("clean_run")
    snapshot = write_snapshot(work / "snapshot")
    return snapshot, clean_run(snapshot, work, WINDOW)


def unblock(warehouse: Path) -> None:
    """No pipe any more: the next connection creates the file (a reader blocked on the pipe stays blocked)."""
    warehouse.unlink()


def test_a_run_killed_holding_the_writer_slot_does_not_block_the_next(tmp_path, invented_clean_run, instance_storage):
    snapshot = write_snapshot(tmp_path / "snapshot")
    home, warehouse = tmp_path / "home", blocking_warehouse(tmp_path / "tracker.duckdb")
    killed = start_cli(home, warehouse, "run", "--snapshot", str(snapshot), *WINDOW, env=instance_storage)
    try:
        read_until(killed, "(arxiv_harvest, run ")  # the instance is set up: the test may open it too
        holders = wait_until(lambda: writer_slot_holders(home), 120, "the first run to hold the writer slot")
    finally:
        killed.kill()
        killed.wait()
    assert run_statuses(home)[holders[0]] == dg.DagsterRunStatus.STARTED  # it could not record its end

    unblock(warehouse)
    rerun = run_cli(home, warehouse, "run", "--snapshot", str(snapshot), *WINDOW, timeout=240, env=instance_storage)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert f"marked 1 run(s) failed whose process is gone: {holders[0]}" in rerun.stderr
    assert run_statuses(home)[holders[0]] == dg.DagsterRunStatus.FAILURE
    assert writer_slot_holders(home) == []

    assert table_hashes(warehouse) == invented_clean_run[1].hashes


#: The reduced crash trials: (stage, asset step) killed at its first write. The full run
#: (bench/crash_trials.py, 21 trials on ../shared/snapshots) also kills at random moments.
CI_KILL_POINTS = [("source", "framework_sources_refresh.write"), ("link", "evidence"), ("metrics", "cohort_inclusion")]


@pytest.mark.timeout(900)
def test_runs_killed_in_a_source_a_link_and_a_metrics_asset_rerun_to_the_clean_tables(tmp_path, invented_clean_run):
    snapshot, reference = invented_clean_run
    for number, (stage, step_key) in enumerate(CI_KILL_POINTS, start=1):
        target = next(step for step in reference.steps if step.key == step_key)
        trial = run_trial(number, KillPoint(stage, target, "write", 0.0), tmp_path, snapshot, WINDOW, reference)
        assert trial.opens and trial.half_written == [], describe(trial)
        assert stage in trial.hit_stages, describe(trial)  # the kill fell inside the aimed step's stage
        assert trial.rerun_code == 0 and trial.differing == [], describe(trial)


def test_a_waiting_run_names_the_holder_and_goes_on_when_the_holder_dies(tmp_path, instance_storage):
    snapshot = write_snapshot(tmp_path / "snapshot")
    home, warehouse = tmp_path / "home", blocking_warehouse(tmp_path / "tracker.duckdb")
    holder = start_cli(home, warehouse, "run", "--snapshot", str(snapshot), *WINDOW, env=instance_storage)
    waiter = None
    try:
        read_until(holder, "(arxiv_harvest, run ")
        holder_run = wait_until(lambda: writer_slot_holders(home), 120, "the first run to hold the writer slot")[0]
        waiter = start_cli(home, warehouse, "run", "--snapshot", str(snapshot), *WINDOW, env=instance_storage)
        waiting = read_until(waiter, "waiting for")
        assert f"waiting for the duckdb_writer pool slot, held by run {holder_run}" in waiting
        assert f"pid {holder.pid}" in waiting
        unblock(warehouse)
        holder.kill()
        holder.wait()
        _, rest = waiter.communicate(timeout=240)
        assert waiter.returncode == 0, rest[-3000:]
    finally:
        for process in (holder, waiter):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
    assert run_statuses(home)[holder_run] == dg.DagsterRunStatus.FAILURE


def test_sigterm_stops_a_run_at_once_with_one_line_and_frees_its_slot(tmp_path, instance_storage):
    snapshot = write_snapshot(tmp_path / "snapshot")
    home, warehouse = tmp_path / "home", blocking_warehouse(tmp_path / "tracker.duckdb")
    stopped = start_cli(home, warehouse, "run", "--snapshot", str(snapshot), *WINDOW, env=instance_storage)
    try:
        read_until(stopped, "(arxiv_harvest, run ")
        held = wait_until(lambda: writer_slot_holders(home), 120, "the run to hold the writer slot")[0]
        stopped.send_signal(signal.SIGTERM)
        # The step blocks on the pipe for good: exiting at all is not waiting for it.
        _, stderr = stopped.communicate(timeout=60)
    finally:
        if stopped.poll() is None:
            stopped.kill()
            stopped.wait()
    assert stopped.returncode == 128 + signal.SIGTERM
    last_line = stderr.strip().splitlines()[-1]
    assert last_line.startswith("orchestration run: stopped by SIGTERM during arXiv 2025-01-01 .. 2025-02-28")
    assert f"run {held} marked canceled" in last_line
    assert "Traceback" not in stderr
    assert run_statuses(home)[held] == dg.DagsterRunStatus.CANCELED
    assert writer_slot_holders(home) == []

    unblock(warehouse)
    rerun = run_cli(home, warehouse, "run", "--snapshot", str(snapshot), *WINDOW, timeout=240, env=instance_storage)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert "whose process is gone" not in rerun.stderr  # nothing was left to clean up


def test_a_failing_run_ends_with_its_reason_and_where_the_trace_is(tmp_path):
    snapshot = write_snapshot(tmp_path / "snapshot")
    (snapshot / "arxiv" / "2025-02.xml").write_text("<feed")  # cut off
    home = tmp_path / "home"
    result = run_cli(home, tmp_path / "tracker.duckdb", "run", "--snapshot", str(snapshot), *WINDOW)
    assert result.returncode == 1
    last_line = result.stderr.strip().splitlines()[-1]
    assert last_line.startswith("orchestration run: arXiv 2025-01-01 .. 2025-02-28 failed: arxiv_entries.fetch: ")
    assert "2025-02.xml" in last_line
    log_file = Path(last_line.rsplit("full log: ", 1)[1].rstrip(")"))
    assert log_file.parent == home / "run_logs" and log_file.is_file()
    assert "Stack Trace" in log_file.read_text()  # the trace is in the log file ...
    for noise in ("Traceback", "Stack Trace", "Calculating Metrics", "Telemetry", "Welcome to Dagster"):
        assert noise not in result.stderr  # ... not on the terminal
    assert "arxiv_entries: fetching 2025-01-01 .. 2025-02-28" in result.stderr  # progress stays


def test_an_older_instance_config_gains_the_new_settings_and_keeps_its_own(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "dagster.yaml").write_text("concurrency:\n  pools:\n    default_limit: 1\nrun_monitoring:\n  poll_interval_seconds: 5\n")
    result = run_cli(home, tmp_path / "tracker.duckdb", "run", "--snapshot", str(tmp_path / "nowhere"))
    assert result.returncode == 1  # the instance is prepared before the options are checked
    with dg.DagsterInstance.from_config(str(home)) as instance:
        assert instance.run_monitoring_enabled
        assert instance.run_monitoring_settings["poll_interval_seconds"] == 5  # the user's value
        assert instance.run_monitoring_settings["free_slots_after_run_end_seconds"] == 60
        assert instance.get_concurrency_config().pool_config.default_pool_limit == 1


def test_the_schedules_are_off_on_recorded_data_and_on_otherwise(tmp_path):
    def statuses(**env: str) -> str:
        environ = {k: v for k, v in os.environ.items() if k != "TRACKER_SNAPSHOT_DIR"} | env
        script = (
            "from orchestration.definitions import defs\n"
            "print(sorted((s.name, s.default_status.value) for s in defs.schedules))"
        )
        return subprocess.run(
            [sys.executable, "-c", script], cwd=REPO_ROOT, env=environ, capture_output=True, text=True, check=True, timeout=120
        ).stdout.strip()

    live = statuses()
    assert live == str([("daily_framework_refresh", "RUNNING"), ("daily_refresh", "RUNNING"), ("weekly_compaction", "RUNNING")])
    recorded = statuses(TRACKER_SNAPSHOT_DIR=str(tmp_path))
    assert recorded == str([("daily_framework_refresh", "STOPPED"), ("daily_refresh", "STOPPED"), ("weekly_compaction", "STOPPED")])


def test_under_the_ui_the_daemon_sensor_fails_a_killed_run_and_frees_its_slot(tmp_path, instance_storage):
    from orchestration.schedules import dead_runs_sensor

    snapshot = write_snapshot(tmp_path / "snapshot")
    home, warehouse = tmp_path / "home", blocking_warehouse(tmp_path / "tracker.duckdb")
    killed = start_cli(home, warehouse, "run", "--snapshot", str(snapshot), *WINDOW, env=instance_storage)
    try:
        read_until(killed, "(arxiv_harvest, run ")
        holders = wait_until(lambda: writer_slot_holders(home), 120, "the run to hold the writer slot")
    finally:
        killed.kill()
        killed.wait()
    with dg.DagsterInstance.from_config(str(home)) as instance:
        skipped = dead_runs_sensor(dg.build_sensor_context(instance=instance))
    assert f"marked failed: {holders[0]}" in skipped.skip_message
    assert run_statuses(home)[holders[0]] == dg.DagsterRunStatus.FAILURE
    assert writer_slot_holders(home) == []


#: A run as the UI's launcher starts one: no CLI tags, its process named by an engine event
#: ("Executing steps in process (pid: N)"); its only step waits to be killed.
UI_LIKE_RUN = """
import time
import dagster as dg

@dg.op
def wait_to_be_killed():
    time.sleep(600)

@dg.job
def ui_like():
    wait_to_be_killed()

with dg.DagsterInstance.get() as instance:
    ui_like.execute_in_process(instance=instance)
"""


def test_the_daemon_sensor_fails_a_ui_run_whose_process_died_and_the_cli_leaves_it_on_a_server(tmp_path, instance_storage):
    from orchestration.cli import prepare_instance_home, release_dead_runs, worker_pid
    from orchestration.schedules import dead_runs_sensor

    home = prepare_instance_home(tmp_path / "home")
    worker = subprocess.Popen(
        [sys.executable, "-c", UI_LIKE_RUN], env={**os.environ, "DAGSTER_HOME": str(home)}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )  # fmt: skip
    try:
        with dg.DagsterInstance.from_config(str(home)) as instance:
            run_id = wait_until(lambda: [r.run_id for r in instance.get_runs() if worker_pid(instance, r.run_id)], 120, "the run's process")[0]
            assert worker_pid(instance, run_id) == worker.pid
    finally:
        worker.kill()
        worker.wait()
    with dg.DagsterInstance.from_config(str(home)) as instance:
        # The CLI may run on another host than the UI's runs on a server's storage: it leaves them.
        assert release_dead_runs(instance) == ([] if instance_storage else [run_id])
        if instance_storage:
            assert type(instance.run_coordinator).__name__ == "QueuedRunCoordinator"  # the daemon launches the UI's runs
            skipped = dead_runs_sensor(dg.build_sensor_context(instance=instance))
            assert skipped.skip_message == f"marked failed: {run_id}"
        assert instance.get_run_by_id(run_id).status == dg.DagsterRunStatus.FAILURE
