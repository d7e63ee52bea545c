"""Dagster's instance in PostgreSQL (team mode), on a real server started by the test set-up
(`postgres_database` in tests/conftest.py; skipped with the reason only where none can be
had): the CLI's one setting and its one-line errors, and the team set-up in deploy/."""

from __future__ import annotations

import shutil
from pathlib import Path

import dagster as dg
import pytest
from sqlalchemy.engine import make_url

from orchestration.cli import POSTGRES_URL_VAR
from orchestration.settings import frameworks
from tests.cli_fixtures import database_text, postgres_instance_url, postgres_query, run_cli, write_snapshot
from tests.helpers import REPO_ROOT

pytestmark = pytest.mark.timeout(600)

ONE_MONTH = ("--from", "2025-01-01", "--to", "2025-01-31")
#: A password in the instance's URL, which must stay in the environment (the test server never asks for it).
PG_PASSWORD = "pg-SENTINELpassword-31415"
#: The jobs of the runs of one `python -m orchestration run`: arXiv, each framework, derived, metrics.
CLI_JOBS = sorted(["arxiv_harvest", *["framework_refresh"] * len(frameworks()), "derived_tables", "cohort_metrics"])


def runs_in_database(url: str) -> dict[str, tuple[str, str]]:
    """run id -> (job, status), read from Dagster's `runs` table itself."""
    return {run_id: (job, status) for run_id, job, status in postgres_query(url, "SELECT run_id, pipeline_name, status FROM runs")}


def files_holding(folder: Path, secret: str) -> list[Path]:
    return [path for path in folder.rglob("*") if path.is_file() and secret.encode() in path.read_bytes()]


def test_the_cli_keeps_its_runs_in_postgres_and_the_next_invocation_sees_them(tmp_path, postgres_database):
    snapshot = write_snapshot(tmp_path / "snapshot")
    home, warehouse = tmp_path / "home", tmp_path / "tracker.duckdb"
    url = postgres_instance_url(postgres_database, PG_PASSWORD)
    args = ("run", "--snapshot", str(snapshot), *ONE_MONTH)

    first = run_cli(home, warehouse, *args, env={POSTGRES_URL_VAR: url})
    assert first.returncode == 0, first.stderr[-3000:]
    first_runs = runs_in_database(postgres_database)
    assert sorted(job for job, _ in first_runs.values()) == CLI_JOBS
    assert {status for _, status in first_runs.values()} == {"SUCCESS"}
    assert not (home / "history").exists()  # no SQLite instance beside it

    second = run_cli(home, warehouse, *args, env={POSTGRES_URL_VAR: url})
    assert second.returncode == 0, second.stderr[-3000:]
    all_runs = runs_in_database(postgres_database)
    assert set(first_runs) < set(all_runs) and len(all_runs) == 2 * len(first_runs)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(POSTGRES_URL_VAR, url)
        with dg.DagsterInstance.from_config(str(home)) as instance:  # as the webserver and daemon open it
            assert {run.run_id for run in instance.get_runs()} == set(all_runs)
            papers = instance.fetch_materializations(dg.AssetKey("papers"), limit=10).records
            assert {record.run_id for record in papers} <= set(all_runs) and len(papers) == 2

    # The password was used (the URL) but never written: not in DAGSTER_HOME (dagster.yaml
    # refers to the variable), not in the output, not in the instance's own tables.
    assert "env: TRACKER_DAGSTER_POSTGRES_URL" in (home / "dagster.yaml").read_text()
    assert files_holding(home, PG_PASSWORD) == []
    assert PG_PASSWORD not in first.stderr + first.stdout + second.stderr + second.stdout
    assert PG_PASSWORD not in database_text(postgres_database)


@pytest.mark.parametrize(
    "url, says",
    [
        ("postgresql://tracker@db.example/dagster", "(postgresql://tracker@db.example/dagster) is not of the form postgresql+psycopg2://"),
        (f"postgresql+psycopg2://tracker:{PG_PASSWORD}@db.example:port/dagster", "is not a URL of the form postgresql+psycopg2://"),
        (f"postgresql+psycopg2://tracker:{PG_PASSWORD}@db.example:5432", "(postgresql+psycopg2://tracker:***@db.example:5432) is not of the form"),
        (f"postgresql+psycopg2://tracker:{PG_PASSWORD}@127.0.0.1:{{port}}/dagster", "cannot be reached (connection to server at"),
    ],
    ids=["bare-postgresql", "bad-port", "no-database", "unreachable"],
)
def test_a_malformed_or_unreachable_instance_url_stops_the_cli_in_one_line(tmp_path, unused_port, url, says):
    url = url.format(port=unused_port)
    result = run_cli(tmp_path / "home", tmp_path / "tracker.duckdb", "run", env={POSTGRES_URL_VAR: url}, timeout=60)
    assert result.returncode == 1
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert says in result.stderr and POSTGRES_URL_VAR in result.stderr
    assert PG_PASSWORD not in result.stderr


def test_an_instance_config_on_postgres_without_the_url_says_how_to_go_back(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "dagster.yaml").write_text(f"storage:\n  postgres:\n    postgres_url:\n      env: {POSTGRES_URL_VAR}\n")
    result = run_cli(home, tmp_path / "tracker.duckdb", "run", timeout=60)
    assert result.returncode == 1
    assert result.stderr.strip() == (
        f"orchestration run: {home / 'dagster.yaml'} keeps Dagster's instance in PostgreSQL ({POSTGRES_URL_VAR}), "
        "which is not set: set it, or delete the file's storage block to go back to SQLite under DAGSTER_HOME"
    )


def team_environment(database_url: str) -> dict[str, str]:
    """deploy/env.example's DAGSTER_PG_* variables, for a database of the test server."""
    url = make_url(database_url)
    return {
        "DAGSTER_PG_HOST": url.host,
        "DAGSTER_PG_PORT": str(url.port),
        "DAGSTER_PG_DB": url.database,
        "DAGSTER_PG_USERNAME": url.username,
        "DAGSTER_PG_PASSWORD": PG_PASSWORD,
    }


def test_the_team_instance_config_loads_on_postgres_and_records_a_cli_run_there(tmp_path, postgres_database, monkeypatch):
    from dagster_postgres import PostgresEventLogStorage, PostgresRunStorage, PostgresScheduleStorage

    home, warehouse = tmp_path / "home", tmp_path / "tracker.duckdb"
    home.mkdir()
    shutil.copy(REPO_ROOT / "deploy" / "dagster.yaml", home / "dagster.yaml")
    environment = team_environment(postgres_database)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    with dg.DagsterInstance.from_config(str(home)) as instance:  # as dagster-webserver and dagster-daemon open it
        assert isinstance(instance.run_storage, PostgresRunStorage)
        assert isinstance(instance.event_log_storage, PostgresEventLogStorage)
        assert isinstance(instance.schedule_storage, PostgresScheduleStorage)
        assert type(instance.run_coordinator).__name__ == "QueuedRunCoordinator"
        concurrency = instance.get_concurrency_config()
        assert concurrency.pool_config.default_pool_limit == 1
        assert concurrency.run_queue_config.max_concurrent_runs == 8
        assert instance.run_monitoring_enabled
        assert instance.event_log_storage.supports_global_concurrency_limits

    written = (home / "dagster.yaml").read_text()
    snapshot = write_snapshot(tmp_path / "snapshot")
    result = run_cli(home, warehouse, "run", "--snapshot", str(snapshot), *ONE_MONTH, env=environment)
    assert result.returncode == 0, result.stderr[-3000:]
    assert (home / "dagster.yaml").read_text() == written  # the CLI found every setting it needs there

    runs = runs_in_database(postgres_database)
    assert sorted(job for job, _ in runs.values()) == CLI_JOBS
    assert {status for _, status in runs.values()} == {"SUCCESS"}
    events = dict(postgres_query(postgres_database, "SELECT run_id, count(*) FROM event_logs GROUP BY run_id"))
    assert set(events) == set(runs) and min(events.values()) > 10
    assert not (home / "history").exists()
    assert files_holding(home, PG_PASSWORD) == [] and PG_PASSWORD not in result.stderr
