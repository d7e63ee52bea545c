"""`python -m orchestration run` end to end, as a user runs it: a subprocess on a fresh warehouse."""

import os
import subprocess
import sys
from datetime import date

import duckdb
import polars as pl
import pytest

from fakes.serving import free_port
from orchestration.cli import CliError, resolve_window, ui_environment
from tests.helpers import REPO_ROOT, recorded_counts, shared_snapshots


def run_cli(tmp_path, *args: str, **env: str) -> subprocess.CompletedProcess:
    environ = {
        **os.environ,
        "TRACKER_DUCKDB_PATH": str(tmp_path / "tracker.duckdb"),
        "DAGSTER_HOME": str(tmp_path / "dagster_home"),
        "TRACKER_SITE_DIR": str(tmp_path / "site"),  # not the repository's data/site
        **env,
    }
    environ.pop("TRACKER_SNAPSHOT_DIR", None)
    return subprocess.run(
        [sys.executable, "-m", "orchestration", "run", *args],
        cwd=REPO_ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=600,
    )


def table(tmp_path, name: str, order: str) -> pl.DataFrame:
    with duckdb.connect(str(tmp_path / "tracker.duckdb"), read_only=True) as conn:
        return conn.sql(f"SELECT * FROM {name} ORDER BY {order}").pl()


def test_window_defaults_and_errors():
    today = date(2026, 12, 2)
    assert resolve_window(None, None, today) == resolve_window(date(2025, 1, 1), date(2026, 12, 1), today)
    with pytest.raises(CliError, match="after the last complete UTC day"):
        resolve_window(None, date(2026, 12, 2), today)
    with pytest.raises(CliError, match="before the first partition"):
        resolve_window(date(2024, 12, 31), None, today)
    with pytest.raises(CliError, match="is after --to"):
        resolve_window(date(2025, 3, 1), date(2025, 2, 1), today)


def test_without_network_it_fails_fast_naming_the_snapshot_option(tmp_path):
    closed_port = free_port()
    result = run_cli(
        tmp_path, "--from", "2025-01-01", "--to", "2025-01-02", ARXIV_API_URL=f"http://127.0.0.1:{closed_port}/api/query"
    )
    assert result.returncode == 1
    last_line = result.stderr.strip().splitlines()[-1]
    assert last_line.startswith("orchestration run: ")
    assert "TRACKER_SNAPSHOT_DIR" in last_line and "--snapshot" in last_line
    assert "Traceback" not in result.stderr
    assert "retry" not in result.stderr  # fast: a refused first connection is not retried


def test_a_missing_snapshot_folder_is_a_one_line_error(tmp_path):
    result = run_cli(tmp_path, "--snapshot", str(tmp_path / "nowhere"))
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1].startswith("orchestration run: --snapshot")


def test_the_ui_gets_the_snapshot_folder_in_its_environment_only(tmp_path, monkeypatch):
    monkeypatch.delenv("TRACKER_SNAPSHOT_DIR", raising=False)
    environ = ui_environment({"PATH": "/bin"}, tmp_path / "home", str(tmp_path / "snapshot"))
    assert environ == {"PATH": "/bin", "DAGSTER_HOME": str(tmp_path / "home"), "TRACKER_SNAPSHOT_DIR": str(tmp_path / "snapshot")}
    assert "TRACKER_SNAPSHOT_DIR" not in ui_environment({"PATH": "/bin"}, tmp_path / "home", None)
    assert "TRACKER_SNAPSHOT_DIR" not in os.environ


def test_the_ui_refuses_a_missing_snapshot_folder_in_one_line(tmp_path):
    environ = {**os.environ, "DAGSTER_HOME": str(tmp_path / "dagster_home")}
    result = subprocess.run(
        [sys.executable, "-m", "orchestration", "ui", "--snapshot", str(tmp_path / "nowhere")],
        cwd=REPO_ROOT, env=environ, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"orchestration ui: --snapshot {tmp_path / 'nowhere'}: no arxiv/ folder there (expected the snapshot format)"
    ]


@pytest.mark.snapshots
def test_the_shared_snapshot_loads_whole_and_a_rerun_changes_nothing(tmp_path):
    snapshots = shared_snapshots()
    args = ("--snapshot", str(snapshots), "--from", "2025-01-01", "--to", "2026-06-30")
    first = run_cli(tmp_path, *args)
    assert first.returncode == 0, first.stderr[-3000:]
    entries = table(tmp_path, "raw.arxiv_entries", "arxiv_id, version")
    papers = table(tmp_path, "core.papers", "arxiv_id")
    recorded = recorded_counts(snapshots)
    assert entries.height == recorded.arxiv_entries
    assert papers.height == recorded.arxiv_entries
    assert papers["cohort"].min() == "2025-Q1" and papers["cohort"].max() == "2026-Q2"
    commits = table(tmp_path, "raw.git_commits", "framework, sha")
    threads = table(tmp_path, "raw.github_threads", "framework, number")
    assert (commits.height, threads.height) == (sum(recorded.commits.values()), recorded.threads)

    second = run_cli(tmp_path, *args)
    assert second.returncode == 0, second.stderr[-3000:]
    assert table(tmp_path, "raw.arxiv_entries", "arxiv_id, version").equals(entries)
    assert table(tmp_path, "core.papers", "arxiv_id").equals(papers)
    assert table(tmp_path, "raw.git_commits", "framework, sha").equals(commits)
    assert table(tmp_path, "raw.github_threads", "framework, number").equals(threads)
