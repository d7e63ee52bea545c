"""Writers in parallel runs, and a reader beside them: the run queue and the writer pool
keep DuckDB to one writer at a time, and a read-only connection polling the file never
fails a refresh nor sees half a partition.

As under `dev.py ui`: a DAGSTER_HOME with the CLI's instance settings (the writer pool of
one slot; Dagster's default run coordinator is the queue), the daemon (`dagster-daemon
run`) dequeuing runs, and runs launched through the queue by `dagster job backfill`, so
each run executes with the jobs' default multiprocess executor. The sources are the fakes:
arXiv, GitHub, and a local git remote per framework that git reaches in place of
github.com (`url.<base>.insteadOf`, set in the environment), so the code location is the
production one, unchanged.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from bench.table_hashes import foreign_slices, slice_hashes
from fakes.arxiv_server import ArxivFixtures, arxiv_entry, running_fake_arxiv
from fakes.git_repos import GitRemote
from fakes.github_server import running_fake_github, synthetic_fixtures
from orchestration.cli import prepare_instance_home
from orchestration.settings import frameworks
from tests.helpers import REPO_ROOT

# Generous limits: they only stop a hung daemon. Fifteen multiprocess runs took 13 min
# here on two cores shared with other jobs (load about 15), and timed out at 12 under load 30.
pytestmark = pytest.mark.timeout(2700)

FIRST_DAY = date(2025, 1, 1)
DAYS = 8
ENTRIES_PER_DAY = 3
LOCK_ERRORS = ("could not set lock", "conflicting lock")
DAGSTER = Path(sys.executable).parent


def arxiv_fixtures() -> ArxivFixtures:
    fixtures = ArxivFixtures()
    for day in range(DAYS):
        for number in range(ENTRIES_PER_DAY):
            published = datetime(2025, 1, 1 + day, 9 + number, tzinfo=UTC)
            arxiv_id = f"2501.{100 * (day + 1) + number:05d}"
            fixtures.add(published, arxiv_entry(arxiv_id, published, title=f"Paper {arxiv_id} on policy optimization"))
    return fixtures


def git_remotes(root: Path) -> dict[str, int]:
    """A bare remote per framework at <root>/<owner>/<name>.git; commits per framework."""
    commits = {}
    for index, framework in enumerate(frameworks()):
        remote = GitRemote(root, framework.repo, branch=framework.default_branch)
        for number in range(index + 2):
            remote.commit(f"Change {number} of {framework.slug}", {f"src/module_{number}.py": f"value_{number} = {number}\n"})
        remote.push()
        commits[framework.slug] = index + 2
    return commits


def run_environment(tmp_path: Path, arxiv_url: str, github_url: str, remotes: Path) -> dict[str, str]:
    environ = {
        name: value
        for name, value in os.environ.items()
        if name not in ("TRACKER_SNAPSHOT_DIR", "OPENALEX_API_KEY", "GITHUB_TOKEN") and not name.startswith("GIT_CONFIG")
    }
    return environ | {
        "DAGSTER_HOME": str(tmp_path / "home"),
        "TRACKER_DUCKDB_PATH": str(tmp_path / "tracker.duckdb"),
        "TRACKER_MIRROR_DIR": str(tmp_path / "mirrors"),
        "TRACKER_SITE_DIR": str(tmp_path / "site"),
        "ARXIV_API_URL": arxiv_url,
        "GITHUB_API_URL": github_url,
        "GITHUB_TOKEN": "concurrency-test-token",
        # git fetches https://github.com/<repo>.git from the local remotes instead.
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": f"url.file://{remotes}/.insteadOf",
        "GIT_CONFIG_VALUE_0": "https://github.com/",
        "GIT_TERMINAL_PROMPT": "0",
    }


def backfill(environ: dict[str, str], job: str, *selection: str) -> None:
    """`dagster job backfill`: one queued run per partition."""
    command = [str(DAGSTER / "dagster"), "job", "backfill", "-w", "workspace.yaml", "-j", job, "--noprompt", *selection]
    result = subprocess.run(command, cwd=REPO_ROOT, env=environ, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]


class PollingReader(threading.Thread):
    """A read-only connection opened on the warehouse again and again, as a user's
    `duckdb` shell or the UI's checks would: what it saw, and how often the writer's lock
    turned it away."""

    def __init__(self, warehouse: Path, interval_s: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.warehouse, self.interval_s = warehouse, interval_s
        self.stop = threading.Event()
        self.seen: list[dict[str, dict[str, str]]] = []
        self.turned_away = 0
        self.errors: list[str] = []

    def run(self) -> None:
        while not self.stop.is_set():
            if self.warehouse.exists():
                try:
                    self.seen.append(slice_hashes(self.warehouse))
                except duckdb.IOException as error:
                    if not mentions_lock_error(str(error)):
                        self.errors.append(str(error).splitlines()[0])
                    self.turned_away += 1
                except duckdb.Error as error:
                    self.errors.append(str(error).splitlines()[0])
            time.sleep(self.interval_s)


def wait_for_runs(home: Path, count: int, timeout_s: float) -> list[dg.DagsterRun]:
    deadline = time.monotonic() + timeout_s
    with dg.DagsterInstance.from_config(str(home)) as instance:
        while time.monotonic() < deadline:
            runs = [run for run in instance.get_runs() if "dagster/backfill" in run.tags]
            if len(runs) >= count and all(run.is_finished for run in runs):
                return runs
            time.sleep(1)
        statuses = {run.run_id[:8]: run.status.value for run in instance.get_runs()}
    raise AssertionError(f"the runs did not finish within {timeout_s:.0f} s: {statuses}")


def run_texts(home: Path, runs: list[dg.DagsterRun]) -> dict[str, str]:
    """Every event message and error of every run, by run id."""
    texts = {}
    with dg.DagsterInstance.from_config(str(home)) as instance:
        for run in runs:
            parts = []
            for entry in instance.all_logs(run.run_id):
                parts.append(entry.message or "")
                event = entry.dagster_event
                if event is not None and event.is_step_failure:
                    parts.append(str(event.step_failure_data.error))
                if event is not None and event.event_type == dg.DagsterEventType.RUN_FAILURE:
                    parts.append(str(event.event_specific_data))
            texts[run.run_id] = "\n".join(parts)
    return texts


@contextmanager
def running_daemon(environ: dict[str, str], log_path: Path) -> Iterator[subprocess.Popen]:
    """`dagster-daemon run` on the repository's workspace for the block (its output in
    `log_path`), then stopped: SIGTERM, and SIGKILL after a minute."""
    with log_path.open("w") as log:
        daemon = subprocess.Popen(
            [str(DAGSTER / "dagster-daemon"), "run", "-w", "workspace.yaml"],
            cwd=REPO_ROOT, env=environ, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        yield daemon
    finally:
        os.killpg(daemon.pid, signal.SIGTERM)
        try:
            daemon.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(daemon.pid, signal.SIGKILL)
            daemon.wait()


def mentions_lock_error(text: str) -> bool:
    return any(error in text.lower() for error in LOCK_ERRORS)


def runs_with_lock_errors(texts: dict[str, str]) -> list[str]:
    """Short ids of the runs whose logs report a DuckDB lock error."""
    return [run_id[:8] for run_id, text in texts.items() if mentions_lock_error(text)]


def failed_runs(texts: dict[str, str], runs: list[dg.DagsterRun]) -> dict[str, str]:
    """Short id -> the end of the log of each run that did not succeed."""
    return {run.run_id[:8]: texts[run.run_id][-2000:] for run in runs if run.status != dg.DagsterRunStatus.SUCCESS}


def max_overlap(home: Path) -> int:
    """The most runs that were executing at one moment."""
    with dg.DagsterInstance.from_config(str(home)) as instance:
        spans = [(record.start_time, record.end_time) for record in instance.get_run_records() if record.start_time]
    return max(sum(start <= moment < end for start, end in spans) for moment, _ in spans)


def test_a_backfill_and_the_seven_refreshes_through_the_queue_with_a_reader_polling(tmp_path):
    home = prepare_instance_home(tmp_path / "home")
    # Only the runs the test launches: the automation sensor would add the derived tables'
    # runs (and their live report fetches), which rewrite whole tables as partitions land.
    with (home / "dagster.yaml").open("a") as config:
        config.write("auto_materialize:\n  enabled: false\n  use_sensors: false\n")
    with dg.DagsterInstance.from_config(str(home)) as instance:
        instance.get_runs()  # the storage is created here, not by the daemon and the CLI at once
    remotes = tmp_path / "remotes"
    commits = git_remotes(remotes)
    github = synthetic_fixtures([f.repo for f in frameworks()], threads_per_repo=40)
    with running_fake_arxiv(arxiv_fixtures()) as arxiv_url, running_fake_github(github) as github_url:
        environ = run_environment(tmp_path, arxiv_url, github_url, remotes)
        daemon_log = tmp_path / "daemon.log"
        with running_daemon(environ, daemon_log):
            reader = PollingReader(tmp_path / "tracker.duckdb")
            reader.start()
            try:
                last_day = FIRST_DAY + timedelta(days=DAYS - 1)
                backfill(environ, "arxiv_harvest", "--from", FIRST_DAY.isoformat(), "--to", last_day.isoformat())
                backfill(environ, "framework_refresh", "--partitions", ",".join(f.slug for f in frameworks()))
                runs = wait_for_runs(home, DAYS + len(frameworks()), timeout_s=2100)
            finally:
                reader.stop.set()
                reader.join(timeout=30)

    texts = run_texts(home, runs)
    failed = failed_runs(texts, runs)
    assert not failed, failed
    assert sorted(run.job_name for run in runs) == ["arxiv_harvest"] * DAYS + ["framework_refresh"] * len(frameworks())
    assert all(run.tags.get("dagster/backfill") for run in runs)  # launched by the backfill, through the queue
    assert runs_with_lock_errors(texts) == []
    assert not mentions_lock_error(daemon_log.read_text())
    assert all("multiprocess executor" in text for text in texts.values())

    with duckdb.connect(str(tmp_path / "tracker.duckdb"), read_only=True) as conn:
        days = dict(conn.execute("SELECT day, count(*) FROM raw.arxiv_entries GROUP BY day").fetchall())
        stored_commits = dict(conn.execute("SELECT framework, count(*) FROM raw.git_commits GROUP BY 1").fetchall())
        threads = dict(conn.execute("SELECT framework, count(*) FROM raw.github_threads GROUP BY 1").fetchall())
    assert days == {FIRST_DAY + timedelta(days=n): ENTRIES_PER_DAY for n in range(DAYS)}
    assert stored_commits == commits
    assert threads == {f.slug: 40 for f in frameworks()}

    # The reader read the warehouse between writes, was turned away during them, and never
    # saw a partition other than whole (a slice it saw is the final one: each is written once).
    assert reader.errors == []
    assert len(reader.seen) > 10
    final = slice_hashes(tmp_path / "tracker.duckdb")
    assert [foreign_slices(seen, final) for seen in reader.seen if foreign_slices(seen, final)] == []
    print(
        f"\n{len(runs)} runs, at most {max_overlap(home)} at once; the reader read {len(reader.seen)} times "
        f"and was turned away {reader.turned_away} times by a writer's lock"
    )
