"""Wide-scale simulation: one day of a lab's tracker following 100 repositories and all of
arXiv's cs.* categories, through the production clients and the fake servers.

    .venv/bin/python bench/scale.py [--snapshot DIR] [--quick] [--parts github,arxiv,link] [--json OUT]

Prints one table:
1. GitHub: a daily refresh of --repos repositories (git mirrors fetched over HTTP from
   fakes/git_http_server.py, issues, pull requests and comments from fakes/github_server.py
   with its ETags, Link pages and rate-limit headers) at daily volumes drawn from the
   recorded histories in DIR: commits per day of each framework's last recorded year;
   new issues and pull requests per day from the growth of their numbers (in commit
   subjects and the recorded threads) over that year; comments per new thread from the
   recorded threads. Items are synthetic (sizes drawn from the recorded ones, no recorded
   text). The repositories get --history-days of such days, then one day (warm-up: the
   first `since` after the load), then the measured day. It counts the API requests,
   those answered 304 Not Modified (GitHub does not count them against the limit), and
   the token-hours the rest cost at GitHub's 5,000 requests an hour per token.
2. arXiv: a day of --arxiv-papers new cs.* papers (and the daily schedule's re-harvest of
   REHARVEST_DAYS days) from fakes/arxiv_server.py through LiveArxivClient, paced
   --arxiv-spacing s apart; the wall time at arXiv's 3 s is computed from the requests.
3. Writes: the measured day's slices of every repository (what the write steps of the
   framework refreshes do) written by 1 process on the embedded DuckDB, and by 1, 4 and 8
   parallel processes on a DuckLake warehouse (TRACKER_WAREHOUSE=ducklake:postgres:...,
   TRACKER_DATA_PATH, on a throwaway PostgreSQL from fakes/postgres_cluster.py) where
   `build_resources` supports that setting; otherwise the rows say why they were not
   measured. Each writer is a process of its own (as a Dagster run is) and starts on a
   signal once loaded; the wall time runs from the first start to the last end.
4. Linking: `evidence_of` over the recorded histories against --link-papers papers (the
   recorded ones padded with generated ones, title lengths drawn from the recorded
   titles; bench/link.py) and against --link-baseline papers, each in its own process:
   time, peak RSS, and the ratio of the two (measured in the same run).

--quick: 6 repositories, 1 day of history, one day of arXiv at 0.05 s spacing, linking
at 1,000 and 2,000 papers in one process, DuckDB only: about a minute
(tests/test_scale_bench.py).
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from math import ceil, exp
from pathlib import Path
from statistics import median, quantiles

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

log = logging.getLogger("bench.scale")

#: GitHub's primary rate limit of one token (REST API, authenticated).
GITHUB_REQUESTS_PER_TOKEN_HOUR = 5000
#: arXiv's terms: one request every 3 seconds.
ARXIV_SPACING_S = 3.0
LAKE_WRITERS = (1, 4, 8)
#: The sections --parts chooses from.
PARTS = ("github", "arxiv", "link")
_SUBJECT_NUMBER = re.compile(r"\(#(\d+)\)")
_WORDS = (
    "policy reward rollout trainer config loss advantage critic actor batch token sequence model sampler "
    "buffer checkpoint gradient optimizer scheduler worker engine dataset tokenizer megatron fsdp vllm "
    "sglang ray kl entropy clip ratio value baseline group norm mask padding logits update step fix add "
    "support refactor test docs example recipe async multi turn agent tool memory offload shard"
).split()


# -- volumes measured on the recorded histories ---------------------------------------------


@dataclass(frozen=True)
class RecordedVolumes:
    """What a repository does in a day and how large its items are, as recorded: lists to
    draw from. A repo-day is one (framework, day) of a framework's last recorded year."""

    commits_per_day: list[int]  # one per repo-day
    threads_per_day: list[float]  # per repo-day, its framework's mean new issues + PRs a day
    comments_per_thread: list[int]
    files_per_commit: list[int]
    message_words: list[int]
    tokens_per_file: list[int]
    body_words: list[int]
    comment_words: list[int]
    thread_totals: list[int] = field(default_factory=list)  # per framework: issues + PRs so far (highest number)

    def draw_day(self, rng: random.Random) -> tuple[int, int, int]:
        """(commits, new threads, comments) of one repository on one day."""
        index = rng.randrange(len(self.commits_per_day))
        threads = _poisson(rng, self.threads_per_day[index])
        comments = sum(rng.choice(self.comments_per_thread) for _ in range(threads))
        return self.commits_per_day[index], threads, comments


def _poisson(rng: random.Random, mean: float) -> int:
    """A Poisson draw (Knuth's method: the means here are below 20)."""
    limit, count, product = exp(-mean), 0, rng.random()
    while product > limit:
        count += 1
        product *= rng.random()
    return count


def _gz_lines(path: Path) -> Iterator[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def recorded_volumes(snapshot: Path) -> RecordedVolumes:
    """Daily volumes and item sizes of the seven recorded frameworks in `snapshot`."""
    import polars as pl

    from orchestration.settings import frameworks

    commits_per_day: list[int] = []
    threads_per_day: list[float] = []
    thread_totals: list[int] = []
    comments_per_thread, files_per_commit, message_words, tokens_per_file, body_words, comment_words = ([] for _ in range(6))
    for framework in frameworks():
        days, numbers = [], []
        for record in _gz_lines(snapshot / "github" / f"{framework.snapshot_stem}.jsonl.gz"):
            day = datetime.fromisoformat(record["committed_at"]).astimezone(UTC).date()
            days.append(day)
            files_per_commit.append(len(record["files"]))
            message_words.append(len((record["message"] or "").split()))
            tokens_per_file += [len(changed["added_tokens"] or []) for changed in record["files"]]
            subject = _SUBJECT_NUMBER.search((record["message"] or "").split("\n", 1)[0])
            if subject:
                numbers.append((day, int(subject.group(1))))
        threads_file = snapshot / "github" / f"{framework.snapshot_stem}.threads.jsonl.gz"
        for thread in _gz_lines(threads_file) if threads_file.exists() else ():
            comments_per_thread.append(len(thread["comments"]))
            body_words.append(len(thread["body_tokens"] or []))
            comment_words += [len(comment["body_tokens"] or []) for comment in thread["comments"]]
            if thread.get("created_at"):
                numbers.append((date.fromisoformat(thread["created_at"][:10]), thread["number"]))
        last = max(days)
        first = max(min(days), last - timedelta(days=364))
        per_day = pl.DataFrame({"day": days}).filter(pl.col("day") >= first).group_by("day").len()
        calendar = pl.DataFrame({"day": pl.date_range(first, last, eager=True)})
        counts = calendar.join(per_day, on="day", how="left")["len"].fill_null(0).to_list()
        # Issues and pull requests share one sequence of numbers: its growth over the year
        # is the framework's new threads (commits only show merged PRs' numbers).
        in_year = [number for day, number in numbers if first <= day <= last]
        before = [number for day, number in numbers if day < first]
        rate = (max(in_year) - (max(before) if before else min(in_year))) / max(1, (last - first).days) if in_year else 0.0
        commits_per_day += counts
        threads_per_day += [rate] * len(counts)
        thread_totals.append(max((number for _, number in numbers), default=0))
    return RecordedVolumes(
        commits_per_day, threads_per_day, comments_per_thread or [0], files_per_commit, message_words,
        tokens_per_file, body_words or [50], comment_words or [30], thread_totals,
    )  # fmt: skip


def first_load_requests(volumes: RecordedVolumes, repos: int) -> int:
    """An estimate of the API requests of the first load of `repos` repositories the size
    of the median recorded one: every thread and comment, 100 a page."""
    from orchestration.clients.github import PER_PAGE

    threads = median(volumes.thread_totals)
    comments = threads * sum(volumes.comments_per_thread) / len(volumes.comments_per_thread)
    return repos * (ceil(threads / PER_PAGE) + ceil(comments / PER_PAGE))


def volume_summary(volumes: RecordedVolumes, samples: int = 20_000, seed: int = 3) -> dict[str, tuple[float, float]]:
    """Median and 90th percentile per repository per day of commits, new threads and comments."""
    rng = random.Random(seed)
    draws = [volumes.draw_day(rng) for _ in range(samples)]
    return {
        name: (median(column), quantiles(column, n=10)[-1])
        for name, column in zip(("commits", "threads", "comments"), zip(*draws, strict=True), strict=True)
    }


# -- the simulated repositories -------------------------------------------------------------


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(max(1, words)))


class SimulatedRepos:
    """`count` repositories: a bare git remote each under `remotes`, and their issues, pull
    requests and comments in `github` (the fake GitHub's fixtures), grown day by day;
    `day_totals` holds each day's (commits, new threads, comments) over all of them."""

    def __init__(self, remotes: Path, count: int, volumes: RecordedVolumes, seed: int = 1) -> None:
        from fakes.github_server import GithubFixtures
        from orchestration.settings import Framework

        self.remotes, self.volumes = remotes, volumes
        self.rng = random.Random(seed)
        self.github = GithubFixtures()
        self.day_totals: dict[date, list[int]] = {}
        self.repos = [
            Framework(f"repo-{index:03d}", f"lab{index % 10}/repo-{index:03d}", "main", (), ("CONTRIBUTING.md",))
            for index in range(count)
        ]
        for repo in self.repos:
            self.github.add_repo(repo.repo)  # a repository without threads yet lists none (no 404)
        self._numbers = {repo.slug: 0 for repo in self.repos}
        self._comment_ids = {repo.slug: (index + 1) * 10_000_000 for index, repo in enumerate(self.repos)}
        self._imported: set[str] = set()
        self._updated: dict[tuple[str, int], datetime] = {}

    def _commit(self, repo, at: datetime) -> dict:
        """A commit record of the snapshot format (what fakes.git_repos.import_history takes)."""
        rng, volumes = self.rng, self.volumes
        files = [
            {
                "path": f"{rng.choice(_WORDS)}/{rng.choice(_WORDS)}_{rng.randrange(50)}.py",
                "added_text": "",
                "added_tokens": sorted({f"{rng.choice(_WORDS)}_{rng.randrange(500)}" for _ in range(rng.choice(volumes.tokens_per_file))}),
            }
            for _ in range(max(1, rng.choice(volumes.files_per_commit)))
        ]
        number = self._numbers[repo.slug]
        subject = f"[{rng.choice(_WORDS)}] {_text(rng, 6)} (#{number})"
        return {
            "sha": f"{rng.getrandbits(160):040x}",  # only written into the files: makes every repository's blobs its own
            "author": f"dev{rng.randrange(40)}",
            "authored_at": at.isoformat(),
            "committed_at": at.isoformat(),
            "message": subject + "\n\n" + _text(rng, rng.choice(volumes.message_words)),
            "files": files,
        }

    def add_days(self, days: Sequence[date]) -> None:
        """Each repository's commits, threads and comments of `days`; git gets one import per repository."""
        from fakes.git_repos import import_history
        from fakes.github_server import comment_item, issue_item, iso

        rng = self.rng
        for repo in self.repos:
            commits: list[dict] = []
            for day in days:
                midnight = datetime(day.year, day.month, day.day, tzinfo=UTC)
                n_commits, n_threads, n_comments = self.volumes.draw_day(rng)
                totals = self.day_totals.setdefault(day, [0, 0, 0])
                totals[0] += n_commits
                totals[1] += n_threads
                totals[2] += n_comments
                for at in sorted(midnight + timedelta(seconds=rng.randrange(86_400)) for _ in range(n_commits)):
                    commits.append(self._commit(repo, at))
                new_threads = []
                for _ in range(n_threads):
                    self._numbers[repo.slug] += 1
                    number = self._numbers[repo.slug]
                    created = midnight + timedelta(seconds=rng.randrange(86_400))
                    pull = rng.random() < 0.6
                    self.github.add_issues(
                        repo.repo,
                        issue_item(
                            repo.repo, number, created_at=created, updated_at=created, title=_text(rng, rng.randint(4, 12)),
                            body=_text(rng, rng.choice(self.volumes.body_words)), user=f"user{rng.randrange(500)}",
                            pull_request=pull, labels=["enhancement"] if rng.random() < 0.2 else [],
                        ),
                    )  # fmt: skip
                    new_threads.append((number, created))
                    self._updated[(repo.slug, number)] = created
                # Half the comments go to the day's new threads, half to the 200 threads
                # before them (which then show as updated on the issues list too).
                older = self._numbers[repo.slug] - len(new_threads)
                for _ in range(n_comments):
                    if older < 1 or rng.random() < 0.5:
                        number, created = rng.choice(new_threads)
                        at = created + timedelta(seconds=rng.randrange(max(1, int((midnight + timedelta(days=1) - created).total_seconds()))))
                    else:
                        number = rng.randint(max(1, older - 199), older)
                        at = midnight + timedelta(seconds=rng.randrange(86_400))
                    self._comment_ids[repo.slug] += 1
                    body = _text(rng, rng.choice(self.volumes.comment_words))
                    self.github.add_comments(
                        repo.repo, comment_item(repo.repo, self._comment_ids[repo.slug], number, updated_at=at, body=body, user=f"user{rng.randrange(500)}")
                    )  # fmt: skip
                    # GitHub moves a thread's updated_at forward only.
                    key = (repo.slug, number)
                    if at > self._updated.get(key, at - timedelta(seconds=1)):
                        self._updated[key] = at
                        self.github.update_issue(repo.repo, number, updated_at=iso(at))
            if commits or repo.slug not in self._imported:
                bare = self.remotes / f"{repo.repo}.git"
                import_history(bare, repo.default_branch, commits or [self._commit(repo, datetime(2024, 1, 1, tzinfo=UTC))], append=repo.slug in self._imported)
                self._imported.add(repo.slug)


# -- the refresh: fetch (outside the writer pool), then write ----------------------------------


@dataclass
class RepoFetch:
    """One repository's fetched day, with the state it was fetched against: what the
    `fetch` step hands to the `write` step of a framework refresh."""

    slug: str
    state: object
    commits: object
    threads: object


def fetch_day(sources, database: str, repos: Sequence) -> tuple[list[RepoFetch], dict]:
    """Every repository's new commits and threads against the warehouse's state, in turn.

    What `fetch_commits` and `fetch_threads` do (they look a slug up in frameworks.toml,
    which does not list the simulated repositories)."""
    from assets.sources.frameworks import CommitsFetch, ThreadsFetch, stored_state
    from orchestration.clients.github import watermark
    from orchestration.warehouse import Warehouse

    warehouse = Warehouse(database=database)
    fetched, requests, not_modified = [], 0, 0
    started = time.perf_counter()
    git = sources.commits()
    for repo in repos:
        with warehouse.connect() as conn:
            state = stored_state(conn, repo.slug)
        commits = CommitsFetch(git.refresh(repo, state.commits_watermark, log), git.contribution_docs(repo))
        etags = dict(state.etags)
        batch = sources.threads(etags).refresh(repo, watermark(state.threads_updated_at), watermark(state.comments_updated_at), log)
        fetched.append(RepoFetch(repo.slug, state, commits, ThreadsFetch(batch, etags)))
        requests += batch.requests
        not_modified += batch.not_modified
    figures = {
        "seconds": time.perf_counter() - started,
        "requests": requests,
        "not_modified": not_modified,
        "commits": sum(item.commits.batch.commits.height for item in fetched),
        "threads": sum(item.threads.batch.threads.height for item in fetched),
        "comments": sum(item.threads.batch.comments.height for item in fetched),
    }
    return fetched, figures


def write_fetched(warehouse, fetched: Sequence[RepoFetch]) -> None:
    """The `write` steps of the repositories' refreshes: like a step, each opens the
    warehouse once (`write_framework_sources`)."""
    from assets.sources.frameworks import write_commits, write_threads

    for item in fetched:
        with warehouse.session():
            write_commits(warehouse, item.slug, item.state, item.commits, log)
            write_threads(warehouse, item.slug, item.state, item.threads, log)


def write_phase(batch_files: Sequence[str], share: int, writers: int, wait_for_go: bool) -> dict:
    """A writer process: its share of each day's repositories, days in order, into the
    warehouse `build_resources` makes of the environment; the last day is timed."""
    import pickle

    from orchestration.resources import build_resources

    # As Dagster does when it loads the code location: the EnvVar settings read now.
    warehouse = build_resources()["warehouse"].process_config_and_initialize()
    days = [pickle.loads(Path(path).read_bytes())[share::writers] for path in batch_files]
    for day in days[:-1]:
        write_fetched(warehouse, day)
    if wait_for_go:
        print("ready", flush=True)
        sys.stdin.readline()
    started = time.time()
    write_fetched(warehouse, days[-1])
    return {"started": started, "ended": time.time(), "repos": len(days[-1])}


def _writer_command(batch_files: Sequence[str], share: int, writers: int, go: bool) -> list[str]:
    return [sys.executable, __file__, "--phase", "write", "--share", f"{share}/{writers}", *(["--go"] if go else []), *batch_files]


def parallel_write(batch_files: Sequence[str], writers: int, environ: dict[str, str], cwd: Path) -> dict:
    """`writers` processes each writing its share of the last day in `batch_files` (the
    earlier days first, untimed): the seconds from the first writer's start to the last
    one's end, and the log lines that report a commit conflict (each one a transaction
    run again). Their logs go to files in `cwd` (a full pipe would stall a writer)."""
    logs = [cwd / f"writer_{writers}_{share}.log" for share in range(writers)]
    children = []
    for share, log_file in enumerate(logs):
        with log_file.open("w") as stderr:
            children.append(subprocess.Popen(
                _writer_command(batch_files, share, writers, go=True), env=environ, cwd=cwd, text=True,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
            ))  # fmt: skip
    try:
        for child, log_file in zip(children, logs, strict=True):
            if child.stdout.readline().strip() != "ready":
                child.wait()
                raise RuntimeError(f"a writer failed before writing: {_last_line(log_file.read_text())}")
        for child in children:
            child.stdin.write("go\n")
            child.stdin.flush()
        results = []
        for child, log_file in zip(children, logs, strict=True):
            out, _ = child.communicate(timeout=3600)
            if child.returncode != 0:
                raise RuntimeError(f"a writer exited {child.returncode}: {_last_line(log_file.read_text())}")
            results.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
    conflicts = sum(line.lower().count("conflict") > 0 for log_file in logs for line in log_file.read_text().splitlines())
    return {"seconds": max(r["ended"] for r in results) - min(r["started"] for r in results), "conflicts": conflicts}


def _last_line(text: str) -> str:
    lines = [line for line in (text or "").strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def _clean_environment(**settings: str) -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("TRACKER_WAREHOUSE", "TRACKER_DATA_PATH", "TRACKER_WRITERS", "TRACKER_DUCKDB_PATH")}
    return {**environ, "PYTHONPATH": str(ROOT), **settings}


@contextmanager
def _environment(**settings: str) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in settings}
    os.environ.update(settings)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def lake_setting_unsupported(work: Path) -> str | None:
    """Why the DuckLake setting cannot be measured on this checkout, or None: a
    TRACKER_WAREHOUSE that `build_resources` ignores gives the default warehouse."""
    from orchestration.resources import build_resources

    try:
        default = build_resources()["warehouse"]
        with _environment(TRACKER_WAREHOUSE="ducklake:postgres:host=127.0.0.1 dbname=probe", TRACKER_DATA_PATH=str(work / "probe")):
            lake = build_resources()["warehouse"]
    except Exception as error:  # noqa: BLE001  (the reason is reported, not raised)
        return f"build_resources refuses TRACKER_WAREHOUSE=ducklake:postgres:...: {_last_line(str(error))}"
    if type(lake) is type(default) and lake.model_dump() == default.model_dump():
        return "TRACKER_WAREHOUSE is not supported by orchestration/resources.py here (i18-lake not merged); rerun after merging"
    return None


def measure_writes(batch_files: list[str], duckdb_base: Path, work: Path, quick: bool) -> list[dict]:
    """The write wall time of the last day: 1 writer on DuckDB; 1, 4, 8 on DuckLake."""
    rows = []
    database = work / "write_duckdb.duckdb"
    shutil.copyfile(duckdb_base, database)
    try:
        written = parallel_write(batch_files[-1:], 1, _clean_environment(TRACKER_DUCKDB_PATH=str(database)), work)
        rows.append({"backend": "duckdb (embedded file)", "writers": 1, **written})
    except RuntimeError as error:
        rows.append({"backend": "duckdb (embedded file)", "writers": 1, "error": str(error)})
    reason = "skipped by --quick (run without it)" if quick else lake_setting_unsupported(work)
    if reason is None:
        rows += _measure_lake(batch_files, work)
    else:
        rows += [{"backend": "ducklake (PostgreSQL catalog)", "writers": n, "error": f"not measured: {reason}"} for n in LAKE_WRITERS]
    return rows


def _measure_lake(batch_files: list[str], work: Path) -> list[dict]:
    """The last day written by 1, 4 and 8 processes into DuckLake warehouses that hold the
    earlier days: those are loaded once, by one writer, into a catalog database that each
    measurement then copies (PostgreSQL's CREATE DATABASE … TEMPLATE); the Parquet files
    are shared (a write adds files, never changes one)."""
    from fakes.postgres_cluster import PostgresUnavailable, running_postgres

    backend = "ducklake (PostgreSQL catalog)"
    data_path = work / "lake_data"
    data_path.mkdir()

    def environment(database: str) -> dict[str, str]:
        return _clean_environment(TRACKER_WAREHOUSE=f"ducklake:postgres:{server.libpq(database)}", TRACKER_DATA_PATH=str(data_path))

    try:
        with running_postgres() as server:
            server.create_database("lake_base")
            loaded = subprocess.run(
                _writer_command(batch_files[:-1], 0, 1, go=False), env=environment("lake_base"), cwd=work,
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            if loaded.returncode != 0:
                return [{"backend": backend, "writers": n, "error": f"failed: loading the earlier days: {_last_line(loaded.stderr)}"} for n in LAKE_WRITERS]
            if not any(data_path.rglob("*.parquet")):
                reason = "no Parquet file under TRACKER_DATA_PATH after loading (the setting did not reach the warehouse)"
                return [{"backend": backend, "writers": n, "error": f"not measured: {reason}"} for n in LAKE_WRITERS]
            rows = []
            for writers in LAKE_WRITERS:
                database = f"lake_{writers}_writers"
                subprocess.run(
                    [str(server.bin_dir / "createdb"), "-h", "127.0.0.1", "-p", str(server.port), "-U", server.user, "-T", "lake_base", database],
                    check=True, capture_output=True, timeout=300,
                )  # fmt: skip
                try:
                    rows.append({"backend": backend, "writers": writers, **parallel_write(batch_files[-1:], writers, environment(database), work)})
                except RuntimeError as error:
                    rows.append({"backend": backend, "writers": writers, "error": f"failed: {error}"})
            return rows
    except PostgresUnavailable as error:
        return [{"backend": backend, "writers": n, "error": f"not measured: no PostgreSQL server: {error}"} for n in LAKE_WRITERS]


def github_day(args: argparse.Namespace, volumes: RecordedVolumes, work: Path) -> dict:
    """Sections 1 and 3: the simulated repositories' days through git and the fake GitHub."""
    import pickle

    from fakes.git_http_server import GitHttpFixtures, running_git_http_server
    from fakes.github_server import running_fake_github
    from orchestration.resources import FrameworkSources
    from orchestration.warehouse import Warehouse

    repos = SimulatedRepos(work / "remotes", args.repos, volumes, seed=args.seed)
    today = date(2026, 6, 1)
    history = [today - timedelta(days=args.history_days + 2 - offset) for offset in range(args.history_days)]
    warm_day, measured_day = today - timedelta(days=2), today - timedelta(days=1)
    started = time.perf_counter()
    repos.add_days(history)
    print(f"[scale] {args.repos} repositories with {args.history_days} days of history in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    database = str(work / "tracker.duckdb")
    git_fixtures = GitHttpFixtures(root=work / "remotes")
    batch_files = []
    figures: dict = {}
    with running_fake_github(repos.github) as github_url, running_git_http_server(git_fixtures) as git_url:
        sources = FrameworkSources(
            mirror_dir=str(work / "mirrors"), remote_url_template=f"{git_url}/{{repo}}.git",
            github_api_url=github_url, github_token="bench-token", backoff_s=0.01,
        )  # fmt: skip
        for name, days in (("history", None), ("warm-up", warm_day), ("measured", measured_day)):
            if days is not None:
                repos.add_days([days])
            repos.github.clear_requests()
            with git_fixtures.lock:
                git_fixtures.requests.clear()
            fetched, fetch_figures = fetch_day(sources, database, repos.repos)
            fetch_figures["served"] = len(repos.github.requests_to(""))
            fetch_figures["git_http_requests"] = len(git_fixtures.requests)
            batch_file = work / f"day_{len(batch_files)}.pickle"
            batch_file.write_bytes(pickle.dumps(fetched))
            batch_files.append(str(batch_file))
            if name == "measured":
                shutil.copyfile(database, work / "before_measured.duckdb")
                figures["refresh"] = fetch_figures
            else:
                write_fetched(Warehouse(database=database), fetched)
            print(f"[scale] {name} day fetched: {fetch_figures}", file=sys.stderr, flush=True)
    figures["volumes"] = {day.isoformat(): totals for day, totals in repos.day_totals.items() if day == measured_day}
    figures["writes"] = measure_writes(batch_files, work / "before_measured.duckdb", work, args.quick)
    return figures


# -- arXiv ----------------------------------------------------------------------------------


def arxiv_figures(papers_per_day: int, days: int, spacing_s: float, seed: int) -> dict:
    """`days` days of `papers_per_day` synthetic cs.* entries through LiveArxivClient."""
    from fakes.arxiv_server import ArxivFixtures, ListedEntry, arxiv_entry, running_fake_arxiv
    from orchestration.clients.arxiv import LiveArxivClient
    from orchestration.settings import arxiv_query

    rng = random.Random(seed)
    last = date(2026, 5, 29)
    first = last - timedelta(days=days - 1)
    fixtures = ArxivFixtures()
    for offset in range(days):
        day = first + timedelta(days=offset)
        for index in range(papers_per_day):
            published = datetime(day.year, day.month, day.day, tzinfo=UTC) + timedelta(seconds=rng.randrange(86_400))
            arxiv_id = f"{day:%y%m}.{offset * papers_per_day + index + 10_000:05d}"
            entry = arxiv_entry(
                arxiv_id, published, title=_text(rng, rng.randint(6, 16)).capitalize(), summary=_text(rng, rng.randint(120, 260)),
                authors=tuple(f"Author {rng.randrange(10_000)}" for _ in range(rng.randint(1, 12))),
                primary_category=rng.choice(("cs.LG", "cs.CL", "cs.CV", "cs.AI", "cs.RO", "cs.CR")),
            )  # fmt: skip
            fixtures.entries.append(ListedEntry(published, entry, None))
    fixtures.entries.sort(key=lambda listed: listed.published)
    with running_fake_arxiv(fixtures) as url:
        client = LiveArxivClient(url, arxiv_query(), min_interval_s=spacing_s, backoff_s=0.01)
        started = time.perf_counter()
        fetched = client.fetch_window(first, last, log)
        seconds = time.perf_counter() - started
    waits = max(0, fetched.requests - 1)
    return {
        "days": days,
        "entries": fetched.entries.height,
        "requests": fetched.requests,
        "seconds": seconds,
        "spacing_s": spacing_s,
        "page_size": client.page_size,
        "seconds_at_3s": seconds + waits * (ARXIV_SPACING_S - spacing_s),
    }


# -- linking --------------------------------------------------------------------------------


def link_phase(snapshot: Path, sizes: Sequence[int]) -> list[dict]:
    """`evidence_of` over the recorded histories against each of `sizes` papers (smallest
    first: the peak RSS of a size is the process's), in this process."""
    from assets.links.evidence import evidence_of
    from bench.link import linking_inputs, peak_rss_mb
    from bench.link_quality import load_snapshots

    data = load_snapshots(snapshot)
    # Generated titles have an acronym, then this many words: the recorded titles' lengths.
    title_words = [max(2, len(title.split()) - 1) for title in data["papers"]["title"].to_list() if title]
    figures = []
    for papers in sorted(sizes):
        all_papers, aliases, _ = linking_inputs(data, papers, title_words)
        rss_before = peak_rss_mb()
        started = time.perf_counter()
        evidence = evidence_of(data["commits"], data["files"], data["threads"], data["comments"], all_papers, aliases)
        figures.append({
            "papers": all_papers.height,
            "aliases": aliases.height,
            "seconds": time.perf_counter() - started,
            "peak_rss_mb": peak_rss_mb(),
            "rss_before_mb": rss_before,
            "evidence": evidence.height,
        })  # fmt: skip
    return figures


def link_figures(snapshot: Path, baseline: int, scaled: int, one_process: bool) -> tuple[dict, dict]:
    """Linking at today's size and at wide scale: each in its own process (its own peak
    RSS), or both in one (--quick: the recorded data is loaded once)."""
    command = ["--phase", "link", "--snapshot", str(snapshot), "--papers"]
    if one_process:
        return tuple(_child_json([*command, str(baseline), str(scaled)]))
    return _child_json([*command, str(baseline)])[0], _child_json([*command, str(scaled)])[0]


def _child_json(arguments: list[str]) -> list[dict]:
    output = subprocess.run([sys.executable, __file__, *arguments], capture_output=True, text=True, check=False, env=_clean_environment())
    if output.returncode != 0:
        raise RuntimeError(f"{' '.join(arguments)} failed: {_last_line(output.stderr)}")
    return json.loads(output.stdout.strip().splitlines()[-1])


# -- the table ------------------------------------------------------------------------------


def report(figures: dict, args: argparse.Namespace) -> list[str]:
    rows: list[tuple[str, str]] = []
    summary = figures["volume_summary"]
    rows.append((
        "daily volume per repository",
        "median / p90 per repo-day over the 7 recorded frameworks' last year: "
        + ", ".join(f"{name} {mid:g} / {p90:g}" for name, (mid, p90) in summary.items()),
    ))  # fmt: skip
    github = figures.get("github")
    if github is not None:
        rows += _github_rows(figures, github, args)
    for name, arxiv in (("arXiv cs.*, one day", figures.get("arxiv_day")), ("arXiv, daily re-harvest", figures.get("arxiv_reharvest"))):
        if arxiv is None:
            continue
        rows.append((
            name,
            f"{arxiv['entries']} entries ({arxiv['days']} day{'s' if arxiv['days'] > 1 else ''}) in {arxiv['requests']} request(s) of "
            f"{arxiv['page_size']}: {arxiv['seconds']:.1f} s at {arxiv['spacing_s']:g} s spacing; "
            f"{arxiv['seconds_at_3s']:.1f} s at arXiv's 3 s",
        ))  # fmt: skip
    if "link_scaled" in figures:
        rows += _link_rows(figures["link_baseline"], figures["link_scaled"])
    return _table(rows)


def _link_rows(baseline: dict, scaled: dict) -> list[tuple[str, str]]:
    rows = [
        (
            name,
            f"{link['papers']:,} papers, {link['aliases']:,} aliases: evidence_of {link['seconds']:.1f} s, "
            f"peak RSS {link['peak_rss_mb']:.0f} MB ({link['rss_before_mb']:.0f} MB before linking), {link['evidence']:,} evidence rows",
        )
        for name, link in (("linking, today's size", baseline), ("linking, wide scale", scaled))
    ]
    rows.append((
        "linking ratio",
        f"{scaled['papers'] / baseline['papers']:.0f}x the papers: {scaled['seconds'] / baseline['seconds']:.1f}x the time, "
        f"{scaled['peak_rss_mb'] / baseline['peak_rss_mb']:.2f}x the peak RSS",
    ))  # fmt: skip
    return rows


def _github_rows(figures: dict, github: dict, args: argparse.Namespace) -> list[tuple[str, str]]:
    refresh = github["refresh"]
    totals = next(iter(github["volumes"].values()), [0, 0, 0])
    billable = refresh["requests"] - refresh["not_modified"]
    token_hours = billable / GITHUB_REQUESTS_PER_TOKEN_HOUR
    rows = [
        (
            f"the measured day, {args.repos} repos",
            f"{totals[0]} new commits, {totals[1]} new issues/PRs, {totals[2]} comments made; fetched "
            f"{refresh['commits']} commits, {refresh['threads']} threads, {refresh['comments']} comments "
            f"in {refresh['seconds']:.1f} s (one repository after another: git fetch + 2 API lists each)",
        ),
        (
            "GitHub API requests",
            f"{refresh['requests']} ({refresh['requests'] / args.repos:.2f} a repository; {refresh['served']} served), "
            f"{refresh['not_modified']} answered 304 (free), {billable} counted against the limit; "
            f"git over HTTP: {refresh['git_http_requests']} requests (not REST API, not counted)",
        ),
        (
            "first load (estimate)",
            f"{figures['first_load_requests']:,} requests for {args.repos} repositories the size of the median recorded one "
            f"({median(figures['thread_totals']):,.0f} issues/PRs, the recorded comments per thread): "
            f"{figures['first_load_requests'] / GITHUB_REQUESTS_PER_TOKEN_HOUR:.1f} token-hours, once",
        ),
        (
            "token-hours a day",
            f"{billable} / {GITHUB_REQUESTS_PER_TOKEN_HOUR} per token-hour = {token_hours:.3f} token-hours "
            f"({token_hours / 24:.2%} of one token's day): one token {'suffices' if billable <= GITHUB_REQUESTS_PER_TOKEN_HOUR else 'does NOT suffice'}"
            " (the whole refresh fits in one hour's quota)" * (billable <= GITHUB_REQUESTS_PER_TOKEN_HOUR),
        ),
    ]
    duckdb_seconds = next((row.get("seconds") for row in github["writes"] if row["backend"].startswith("duckdb")), None)
    for row in github["writes"]:
        label = f"write the day: {row['backend']}, {row['writers']} writer{'s' if row['writers'] > 1 else ''}"
        if "seconds" in row:
            ratio = f" ({duckdb_seconds / row['seconds']:.2f}x the DuckDB default's speed)" if duckdb_seconds and not row["backend"].startswith("duckdb") else ""
            conflicts = f"; {row['conflicts']} commit conflict(s) retried" if row["conflicts"] else ""
            rows.append((label, f"{row['seconds']:.2f} s for {args.repos} repositories' slices{ratio}{conflicts}"))
        else:
            rows.append((label, row["error"]))
    return rows


def _table(rows: list[tuple[str, str]]) -> list[str]:
    width = max(len(name) for name, _ in rows)
    return [f"{'what':<{width}} | figure", f"{'-' * width}-|-------"] + [f"{name:<{width}} | {figure}" for name, figure in rows]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--snapshot", type=Path, default=ROOT.parent / "shared" / "snapshots")
    parser.add_argument("--quick", action="store_true", help="a reduced run, under a minute")
    parser.add_argument("--repos", type=int, default=100)
    parser.add_argument("--history-days", type=int, default=30)
    parser.add_argument("--arxiv-papers", type=int, default=800, help="new cs.* papers a day")
    parser.add_argument("--arxiv-spacing", type=float, default=1.0, help="seconds between arXiv requests in the bench")
    parser.add_argument("--link-papers", type=int, default=200_000)
    parser.add_argument("--link-baseline", type=int, default=10_000, help="today's size (bench/link.py's)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", metavar="OUT", help="also write the figures to this file")
    parser.add_argument(
        "--parts", default=",".join(PARTS),
        help=f"comma-separated sections to run, of {','.join(PARTS)} (github includes the writes); default all",
    )  # fmt: skip
    parser.add_argument("--phase", choices=["write", "link"], help=argparse.SUPPRESS)
    parser.add_argument("--share", default="0/1", help=argparse.SUPPRESS)
    parser.add_argument("--go", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--papers", type=int, nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("batches", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.phase == "write":
        share, writers = (int(part) for part in args.share.split("/"))
        print(json.dumps(write_phase(args.batches, share, writers, args.go)))
        return 0
    if args.phase == "link":
        print(json.dumps(link_phase(args.snapshot, args.papers)))
        return 0
    if args.quick:
        args.repos, args.history_days, args.arxiv_spacing = 6, 1, 0.05
        args.link_papers, args.link_baseline = 2_000, 1_000
    parts = {part.strip() for part in args.parts.split(",") if part.strip()}
    if not parts or parts - set(PARTS):
        raise SystemExit(f"bench/scale.py: --parts takes a comma-separated subset of {','.join(PARTS)}, got {args.parts!r}")
    if not (args.snapshot / "github").is_dir():
        raise SystemExit(f"bench/scale.py: no github/ folder in {args.snapshot} (pass --snapshot DIR)")

    from orchestration.schedules import REHARVEST_DAYS

    figures: dict = {}
    volumes = recorded_volumes(args.snapshot)
    figures["volume_summary"] = volume_summary(volumes)
    figures["thread_totals"] = volumes.thread_totals
    figures["first_load_requests"] = first_load_requests(volumes, args.repos)
    if "github" in parts:
        with tempfile.TemporaryDirectory(prefix="bench_scale_") as folder:
            figures["github"] = github_day(args, volumes, Path(folder))
    if "arxiv" in parts:
        print("[scale] arXiv", file=sys.stderr, flush=True)
        figures["arxiv_day"] = arxiv_figures(args.arxiv_papers, 1, args.arxiv_spacing, args.seed)
        if not args.quick:
            figures["arxiv_reharvest"] = arxiv_figures(args.arxiv_papers, REHARVEST_DAYS, args.arxiv_spacing, args.seed)
    if "link" in parts:
        print("[scale] linking", file=sys.stderr, flush=True)
        figures["link_baseline"], figures["link_scaled"] = link_figures(args.snapshot, args.link_baseline, args.link_papers, args.quick)
    for line in report(figures, args):
        print(line)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2, default=str))
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    raise SystemExit(main())
