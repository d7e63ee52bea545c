"""A small invented snapshot folder and helpers to run `python -m orchestration` on it as a
user does: a subprocess with its own DAGSTER_HOME and warehouse."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import polars as pl
import pytest
import sqlalchemy
import yaml

from orchestration.cli import POSTGRES_DRIVER, POSTGRES_URL_VAR
from orchestration.resources import WAREHOUSE_VARIABLES
from orchestration.settings import frameworks
from orchestration.warehouse import WRITER_POOL
from fakes.arxiv_server import arxiv_entry, atom_feed
from tests.helpers import REPO_ROOT

WINDOW = ("--from", "2025-01-01", "--to", "2025-02-28")
PAPER = "2501.00001"


def curation_rows() -> pl.DataFrame:
    return pl.read_csv(REPO_ROOT / "overrides" / "inclusions.csv", comment_prefix="#", infer_schema_length=0)


def month_feed(month: int) -> str:
    """One recorded arXiv answer: two entries submitted in 2025-`month`, and the papers of
    that month which overrides/inclusions.csv corrects (a real snapshot has them)."""
    ids = [f"25{month:02d}.0000{n}" for n in (1, 2)]
    ids += sorted(i for i in curation_rows()["arxiv_id"].unique().to_list() if i.startswith(f"25{month:02d}."))
    entries = [
        arxiv_entry(
            arxiv_id,
            published=datetime(2025, month, 2 + n, 10, tzinfo=UTC),
            title=f"Clipped Policy Optimization {n} (CPO{month}{n}) for reasoning models",
        )
        for n, arxiv_id in enumerate(ids, start=1)
    ]
    return atom_feed("cat:cs.LG", entries, total=len(entries), start=0)


def curated_commits(framework_slug: str) -> list[str]:
    """The commits of a framework that overrides/inclusions.csv names: a real history has
    them, so the invented one does too."""
    named = curation_rows().filter((pl.col("framework") == framework_slug) & pl.col("commit_sha").is_not_null())
    return named["commit_sha"].unique().sort().to_list()


def commit_line(repo: str, sha: str, parent: str | None, committed_at: str, message: str, files: list[dict]) -> dict:
    return {
        "repo": repo, "sha": sha, "parents": [parent] if parent else [], "authored_at": committed_at,
        "committed_at": committed_at, "author": "Ada", "message": message,
        "html_url": f"https://github.com/{repo}/commit/{sha}", "diff_incomplete": False, "files": files,
    }  # fmt: skip


def write_snapshot(folder: Path) -> Path:
    """arxiv/2025-01.xml and 2025-02.xml, and per framework a first commit, the commits
    the curation names, and a newest commit implementing PAPER (a documentation page
    citing it, an identifier naming its method)."""
    (folder / "arxiv").mkdir(parents=True)
    (folder / "github").mkdir()
    for month in (1, 2):
        (folder / "arxiv" / f"2025-{month:02d}.xml").write_text(month_feed(month))
    for framework in frameworks():
        implementation = [
            {"path": "docs/algo/cpo.md", "additions": 3, "deletions": 0,
             "added_text": f"# CPO11\nhttps://arxiv.org/abs/{PAPER}", "added_tokens": []},
            {"path": "src/loss.py", "additions": 5, "deletions": 0, "added_text": "", "added_tokens": ["cpo11_loss"]},
        ]  # fmt: skip
        shas = ["a" * 40, *curated_commits(framework.slug), "b" * 40]
        lines = [
            commit_line(framework.repo, sha, parent, f"2025-01-{10 + index:02d}T10:00:00+00:00", "Refactor", [])
            for index, (parent, sha) in enumerate(zip([None, *shas], shas, strict=False))
        ]
        lines[-1] |= {"message": f"Add CPO11 (arXiv {PAPER})", "files": implementation}
        lines.reverse()  # newest first, as recorded
        # mtime=0: the same bytes every time, so two folders written alike have the same
        # digests (the snapshot's watermark) and their runs write the same tables.
        with gzip.GzipFile(folder / "github" / f"{framework.snapshot_stem}.jsonl.gz", "wb", mtime=0) as handle:
            handle.write("".join(json.dumps(line) + "\n" for line in lines).encode("utf-8"))
    return folder


def cli_environment(home: Path, warehouse: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The CLI's environment: its own DAGSTER_HOME and warehouse, no secrets, plus `extra`
    (e.g. TRACKER_DAGSTER_POSTGRES_URL for an instance in PostgreSQL)."""
    environ = {
        **os.environ,
        "DAGSTER_HOME": str(home),
        "TRACKER_DUCKDB_PATH": str(warehouse),
        "TRACKER_SITE_DIR": str(warehouse.parent / "site"),  # not the repository's data/site
    }
    for name in ("TRACKER_SNAPSHOT_DIR", "OPENALEX_API_KEY", "GITHUB_TOKEN", *WAREHOUSE_VARIABLES):
        environ.pop(name, None)
    environ.pop(POSTGRES_URL_VAR, None)  # the instance's storage is the test's choice (`extra`)
    return {**environ, **(extra or {})}


def start_cli(home: Path, warehouse: Path, *args: str, env: Mapping[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "orchestration", *args],
        cwd=REPO_ROOT,
        env=cli_environment(home, warehouse, env),
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )


def run_cli(
    home: Path, warehouse: Path, *args: str, timeout: float = 300, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "orchestration", *args],
        cwd=REPO_ROOT,
        env=cli_environment(home, warehouse, env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def read_until(process: subprocess.Popen, text: str) -> str:
    """The first stderr line of `process` containing `text` (the lines before it are read too)."""
    while True:
        line = process.stderr.readline()
        assert line, f"the process ended without a line containing {text!r}"
        if text in line:
            return line


def wait_until(condition: Callable[[], object], timeout: float, what: str) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def instance_created(home: Path) -> bool:
    """Whether the CLI has set up the instance in `home` (its SQLite files, or a dagster.yaml
    naming a server's storage): opened earlier, the test would race it creating them."""
    config = home / "dagster.yaml"
    in_server = config.exists() and "storage" in (yaml.safe_load(config.read_text()) or {})
    return in_server or (home / "history" / "runs" / "index.db").exists()


def writer_slot_holders(home: Path) -> list[str]:
    """The runs holding the warehouse writers' pool slot on the instance in `home`."""
    if not instance_created(home):
        return []
    with dg.DagsterInstance.from_config(str(home)) as instance:
        if not instance.event_log_storage.supports_global_concurrency_limits:
            return []
        return [slot.run_id for slot in instance.event_log_storage.get_concurrency_info(WRITER_POOL).claimed_slots]


def run_statuses(home: Path) -> dict[str, dg.DagsterRunStatus]:
    with dg.DagsterInstance.from_config(str(home)) as instance:
        return {record.dagster_run.run_id: record.dagster_run.status for record in instance.get_run_records()}


def postgres_instance_url(database_url: str, password: str | None = None) -> str:
    """The instance URL the CLI takes for a database of the test server (the driver named),
    with `password` where given (the server trusts loopback connections and never asks for
    it: a sentinel stands for a real password)."""
    url = sqlalchemy.engine.make_url(database_url).set(drivername=POSTGRES_DRIVER)
    return url.set(password=password).render_as_string(hide_password=False) if password else url.render_as_string()


def postgres_query(database_url: str, sql: str) -> list[tuple]:
    """The rows `sql` returns from a database of the test server."""
    engine = sqlalchemy.create_engine(postgres_instance_url(database_url))
    try:
        with engine.connect() as conn:
            return [tuple(row) for row in conn.execute(sqlalchemy.text(sql))]
    finally:
        engine.dispose()


def database_text(database_url: str) -> str:
    """Every row of every table of a database of the test server (Dagster's instance), as text."""
    tables = postgres_query(database_url, "SELECT quote_ident(table_name) FROM information_schema.tables WHERE table_schema = 'public'")
    return "\n".join(
        postgres_query(database_url, f"SELECT coalesce(string_agg(t::text, E'\\n'), '') FROM {table} t")[0][0] for (table,) in tables
    )


@pytest.fixture(params=["sqlite", "postgres"])
def instance_storage(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Where the CLI keeps Dagster's instance: SQLite under DAGSTER_HOME (nothing to set)
    or a fresh database of the test PostgreSQL server. Returns the CLI's extra environment,
    also set in this process so that the test opens the same instance."""
    if request.param == "sqlite":
        return {}
    url = postgres_instance_url(request.getfixturevalue("postgres_database"))
    monkeypatch.setenv(POSTGRES_URL_VAR, url)
    return {POSTGRES_URL_VAR: url}
