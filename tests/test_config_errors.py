"""Configuration errors through `python -m orchestration run`, as a user makes them: each
fails with one line that says what is wrong and what to do, and no stack trace.

The errors found before any run starts go through the CLI's `main` in this process; the
unreadable snapshot file fails in the run that reads it, in a subprocess."""

from __future__ import annotations

import gzip
import re
import shutil
import signal
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from orchestration.cli import main
from orchestration.resources import WAREHOUSE_VARIABLES
from orchestration.settings import ConfigError, framework
from tests.cli_fixtures import cli_environment, run_cli, write_snapshot

# Tomorrow stays in the future however long the suite runs past midnight UTC.
TOMORROW = datetime.now(UTC).date() + timedelta(days=1)


def _overrides_with_unknown_framework(folder: Path) -> Path:
    folder.mkdir()
    (folder / "inclusions.csv").write_text(
        "arxiv_id,framework,action,commit_sha,included_at,path,reason\n"
        "2503.14476,verll,add,,2025-04-01,,typed by hand\n"
    )
    return folder


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory) -> Path:
    return write_snapshot(tmp_path_factory.mktemp("snapshot") / "snapshot")


def _partial(snapshot: Path, root: Path) -> Path:
    partial = root / "partial"
    (partial / "arxiv").mkdir(parents=True)
    for xml in (snapshot / "arxiv").glob("*.xml"):
        (partial / "arxiv" / xml.name).write_bytes(xml.read_bytes())
    return partial


@pytest.fixture
def cli_main(tmp_path, monkeypatch, capsys):
    """`python -m orchestration run ARGS` in this process (no run may start, so no
    subprocess is needed): (exit status, stderr lines)."""
    handlers = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGINT)}
    for name, value in cli_environment(tmp_path / "home", tmp_path / "tracker.duckdb").items():
        monkeypatch.setenv(name, value)
    for name in ("TRACKER_SNAPSHOT_DIR", "OPENALEX_API_KEY", "GITHUB_TOKEN", "TRACKER_OVERRIDES_DIR", *WAREHOUSE_VARIABLES):
        monkeypatch.delenv(name, raising=False)

    def run(*args: str) -> tuple[int, list[str]]:
        capsys.readouterr()
        try:
            status = main(["run", *args])
        except SystemExit as usage_error:  # argparse
            status = usage_error.code
        return status, capsys.readouterr().err.strip().splitlines()

    yield run
    for signum, handler in handlers.items():
        signal.signal(signum, handler)
    assert not (tmp_path / "home" / "run_logs").exists()  # no run was started


CASES = {
    "bad date": (["--from", "2025-02-30"], r"argument --from: not a date \(YYYY-MM-DD\): '2025-02-30'; see .* --help"),
    "reversed range": (["--from", "2025-03-01", "--to", "2025-02-01"], "--from 2025-03-01 is after --to 2025-02-01"),
    "before the start": (["--from", "2024-12-31"], "--from 2024-12-31 is before the first partition, 2025-01-01"),
    "future day": (["--to", TOMORROW.isoformat()], rf"--to {TOMORROW} is after the last complete UTC day, \d{{4}}-\d{{2}}-\d{{2}}"),
    "bad cohort key": (["--cohort", "2025-04-01"], r"--cohort 2025-04-01: not a cohort: '2025-04-01' \(expected a quarter like 2025-Q2\)"),
    "impossible quarter": (["--cohort", "2025-Q5"], "expected a quarter like 2025-Q2"),
    "cohort before the start": (["--cohort", "2024-Q4"], "--cohort 2024-Q4 is before the first cohort, 2025-Q1"),
    "future cohort": (["--cohort", f"{TOMORROW.year + 1}-Q1"], "has no complete UTC day yet"),
    "cohort and range": (["--cohort", "2025-Q1", "--to", "2025-02-01"], "--cohort names the window itself: give it without --from and --to"),
    "unknown option": (["--framework", "verl"], "unrecognized arguments: --framework verl; see"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_a_bad_window_or_cohort_fails_before_any_run_in_one_line_naming_the_fix(cli_main, case):
    args, message = CASES[case]
    status, lines = cli_main(*args)
    assert status in (1, 2) and len(lines) == 1, lines
    assert re.search(message, lines[0]), lines[0]


def test_a_missing_or_partial_snapshot_folder_fails_before_any_run(cli_main, tmp_path, snapshot):
    status, lines = cli_main("--snapshot", str(tmp_path / "nowhere"))
    assert status == 1 and lines == [f"orchestration run: --snapshot {tmp_path / 'nowhere'}: no arxiv/ folder there (expected the snapshot format)"]

    status, lines = cli_main("--snapshot", str(_partial(snapshot, tmp_path)))
    assert status == 1 and len(lines) == 1
    assert re.search(r"a partial snapshot, without github/volcengine__verl\.jsonl\.gz, .*; copy the whole recorded folder", lines[0])


def test_an_unknown_framework_in_an_override_fails_before_any_run_naming_file_and_line(cli_main, tmp_path, snapshot, monkeypatch):
    overrides = _overrides_with_unknown_framework(tmp_path / "overrides")
    monkeypatch.setenv("TRACKER_OVERRIDES_DIR", str(overrides))
    status, lines = cli_main("--snapshot", str(snapshot), "--from", "2025-01-01", "--to", "2025-01-31")
    assert status == 1 and len(lines) == 1
    assert lines[0].startswith(f"orchestration run: {overrides / 'inclusions.csv'}:2: framework 'verll': unknown; expected one of [")
    assert lines[0].endswith("; fix that row (overrides: TRACKER_OVERRIDES_DIR)")


def test_an_unreadable_recorded_history_fails_its_run_naming_the_file(tmp_path, snapshot):
    broken = tmp_path / "snapshot"
    shutil.copytree(snapshot, broken)
    history = broken / "github" / f"{framework('verl').snapshot_stem}.jsonl.gz"
    history.write_bytes(gzip.compress(b'{"sha": "' + b"a" * 40 + b'", "files": 3}\n')[:-6])  # cut in transit

    result = run_cli(tmp_path / "home", tmp_path / "tracker.duckdb", "run", "--snapshot", str(broken), "--from", "2025-01-01", "--to", "2025-01-31")

    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    # the step (the refresh's fetch), then our own message: the file and what to do
    assert re.match(rf"orchestration run: framework verl failed: framework_sources_refresh[.\w]*: {re.escape(str(history))}: ", last), last
    assert "truncated or corrupt gzip file" in last and "restore it from the recorded snapshot" in last


def test_an_unknown_framework_names_the_configuration_file():
    with pytest.raises(ConfigError, match=r"unknown framework 'verll'; configured in .*frameworks\.toml: verl, "):
        framework("verll")


def test_a_malformed_warehouse_setting_fails_before_any_run_in_one_line(cli_main, monkeypatch, tmp_path):
    monkeypatch.setenv("TRACKER_WAREHOUSE", "ducklake:sqlite:tracker.db")
    status, lines = cli_main("--from", "2025-01-01", "--to", "2025-01-31")
    assert status == 1 and len(lines) == 1
    assert lines[0].startswith("orchestration run: TRACKER_WAREHOUSE: expected 'duckdb' or 'ducklake:postgres:")

    monkeypatch.setenv("TRACKER_WAREHOUSE", "duckdb")
    monkeypatch.setenv("TRACKER_WRITERS", "4")
    status, lines = cli_main("--from", "2025-01-01", "--to", "2025-01-31")
    assert status == 1 and lines == [
        "orchestration run: TRACKER_WRITERS=4: the duckdb warehouse file takes one writer at a time; unset "
        "TRACKER_WRITERS, or set TRACKER_WAREHOUSE=ducklake:postgres:<conninfo> for parallel writers"
    ]
