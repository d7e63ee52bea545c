"""Faults benchmark: a refresh against fake servers failing 30% of requests, against a fault-free one.

    .venv/bin/python bench/faults.py [--rate 0.3] [--seed 1] [--frameworks 7] [--entries 200]
                                     [--threads 500] [--arxiv-interval 0.5]

Builds one invented world: arXiv entries of ten days on the fake arXiv, and for each
framework a local git remote and synthetic issues, pull requests and comments on the fake
GitHub. Then refreshes it twice through Dagster, each time into a fresh warehouse:
`arxiv_entries` over the ten days and `framework_sources_refresh` of every framework,
first with the fakes answering every request, then with both failing `--rate` of their
requests at random (seeded: plain-text 429; 403 and 429 with and without Retry-After;
500/502/503; connection resets; stalls past the client's timeout; truncated bodies;
empty pages; arXiv's HTTP-200 error feed). Prints the faults injected by kind, the
retries the clients made, whether every table hashes the same as the fault-free run's,
duplicate rows, the smallest gap between two arXiv requests against the configured
spacing, and the wall-time ratio of the two refreshes. Exits 1 when a table differs, a
row is duplicated or the spacing was broken.

The clients run with short timeouts and backoffs (the faults are the same, the waits
shorter): see `drill_resources`. `tests/test_faults.py` runs a small world through the
same functions.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import dagster as dg  # noqa: E402

from assets.sources.assets import FRAMEWORK_THREADS, arxiv_entries, framework_sources_refresh  # noqa: E402
from bench.table_hashes import table_hashes  # noqa: E402
from fakes import arxiv_server, github_server  # noqa: E402
from fakes.arxiv_server import ArxivFixtures, arxiv_entry, running_fake_arxiv  # noqa: E402
from fakes.git_repos import GitRemote  # noqa: E402
from fakes.github_server import GithubFixtures, running_fake_github, synthetic_fixtures  # noqa: E402
from fakes.serving import RandomFaults  # noqa: E402
from orchestration.jobs import partition_range_tags  # noqa: E402
from orchestration.resources import ArxivSource, FrameworkSources  # noqa: E402
from orchestration.settings import Framework, frameworks  # noqa: E402
from orchestration.warehouse import Warehouse  # noqa: E402

FIRST_DAY = date(2025, 3, 1)
DAYS = 10
QUIET = {"loggers": {"console": {"config": {"log_level": "ERROR"}}}}
#: The key columns of the raw tables a refresh writes: no two rows may share one.
KEYS = {
    "raw.arxiv_entries": ("arxiv_id", "version"),
    "raw.git_commits": ("framework", "sha"),
    "raw.git_commit_files": ("framework", "sha", "path"),
    "raw.github_threads": ("framework", "number"),
    "raw.github_comments": ("framework", "comment_id"),
    "raw.framework_docs": ("framework", "path"),
}


@dataclass
class World:
    """What the fakes serve: arXiv entries, the frameworks' git remotes and GitHub items."""

    root: Path
    frameworks: list[Framework]
    arxiv: ArxivFixtures
    github: GithubFixtures
    remote_url_template: str


@dataclass(frozen=True)
class Drill:
    """How a refresh is run: the share of requests that fail (`rate`, seeded), faults
    queued ahead of the random ones (each fake takes them first, in order), the clients'
    timeout and arXiv spacing, and how long a stalled fake waits (past the timeout)."""

    rate: float = 0.0
    seed: int = 1
    arxiv_faults: tuple[arxiv_server.Fault, ...] = ()
    github_faults: tuple[github_server.Fault, ...] = ()
    timeout_s: float = 0.5
    stall_s: float = 1.0
    arxiv_interval_s: float = 0.5


@dataclass
class Refresh:
    """What one refresh of the world did."""

    seconds: float = 0.0
    hashes: dict[str, dict[str, object]] = field(default_factory=dict)
    duplicates: dict[str, int] = field(default_factory=dict)
    injected: dict[str, Counter[str]] = field(default_factory=dict)  # by source, then fault
    requests: dict[str, int] = field(default_factory=dict)  # by source, as the fakes saw them
    retries: int = 0
    arxiv_gaps: list[float] = field(default_factory=list)


def build_world(root: Path, *, framework_count: int, entries: int, threads: int) -> World:
    chosen = list(frameworks())[:framework_count]
    arxiv = ArxivFixtures()
    for number in range(entries):
        published = datetime.combine(FIRST_DAY, datetime.min.time(), UTC) + timedelta(hours=number * DAYS * 24 // entries)
        arxiv.add(published, arxiv_entry(f"2503.{number:05d}", published, title=f"Policy Optimization Method {number}"))
    github = synthetic_fixtures([f.repo for f in chosen], threads_per_repo=threads, comments_per_thread=2)
    remotes = root / "remotes"
    for framework in chosen:
        remote = GitRemote(remotes, framework.repo, branch=framework.default_branch)
        remote.commit("Initial commit", {"README.md": f"# {framework.slug}\n", "CONTRIBUTING.md": "Open an issue first.\n"})
        remote.commit("Add DAPO clip-higher (arXiv:2503.14476)", {"src/loss.py": "def dapo_loss():\n    return 0\n"})
        remote.push()
    return World(root, chosen, arxiv, github, f"file://{remotes}/{{repo}}.git")


def drill_resources(world: World, drill: Drill, arxiv_url: str, github_url: str, mirrors: Path) -> dict:
    """The resources of a drill: the production clients with short timeouts and waits."""
    waits = {"max_retries": 8, "backoff_s": 0.05, "timeout_s": drill.timeout_s, "deadline_minutes": 2}
    return {
        "arxiv": ArxivSource(api_url=arxiv_url, page_size=10, min_interval_s=drill.arxiv_interval_s, **waits),
        "framework_sources": FrameworkSources(
            mirror_dir=str(mirrors),
            remote_url_template=world.remote_url_template,
            github_api_url=github_url,
            github_token="drill-token",
            secondary_wait_s=0.05,
            **waits,
        ),
    }


def duplicate_rows(database: Path) -> dict[str, int]:
    """Rows beyond the first of each key, per table."""
    import duckdb

    with duckdb.connect(str(database), read_only=True) as conn:
        return {
            table: conn.execute(f"SELECT count(*) - count(DISTINCT ({', '.join(key)})) FROM {table}").fetchone()[0]
            for table, key in KEYS.items()
        }


def refresh(world: World, name: str, drill: Drill) -> Refresh:
    """Refresh the world into `<root>/<name>.duckdb` as `drill` says; raises when a run fails."""
    faults = {
        "arXiv": RandomFaults(arxiv_server.fault_mix(stall_s=drill.stall_s), rate=drill.rate, seed=drill.seed),
        "GitHub": RandomFaults(github_server.fault_mix(stall_s=drill.stall_s), rate=drill.rate, seed=drill.seed + 1),
    }
    world.arxiv.requests.clear()
    world.github.clear_requests()
    world.arxiv.random_faults, world.github.random_faults = faults["arXiv"], faults["GitHub"]
    world.arxiv.queue(*drill.arxiv_faults)
    world.github.queue(*drill.github_faults)
    database = world.root / f"{name}.duckdb"
    outcome = Refresh()
    started = time.perf_counter()
    with running_fake_arxiv(world.arxiv) as arxiv_url, running_fake_github(world.github) as github_url:
        resources = drill_resources(world, drill, arxiv_url, github_url, world.root / f"{name}_mirrors")
        resources["warehouse"] = Warehouse(database=str(database))
        window = partition_range_tags(FIRST_DAY, FIRST_DAY + timedelta(days=DAYS - 1))
        runs = [dg.materialize([arxiv_entries], resources=resources, tags=window, run_config=QUIET, raise_on_error=False)]
        for framework in world.frameworks:
            runs.append(
                dg.materialize(
                    [framework_sources_refresh],
                    partition_key=framework.slug,
                    resources=resources,
                    run_config=QUIET,
                    raise_on_error=False,
                )
            )
    outcome.seconds = time.perf_counter() - started
    for run in runs:
        if not run.success:
            failure = next(event for event in run.all_events if event.is_step_failure)
            raise RuntimeError(f"{name} refresh failed: {failure.step_key}: {failure.step_failure_data.error.message}")
        # One per run: a range run repeats the harvest's figures on every day's materialization.
        counted = {event.asset_key: event.materialization.metadata for event in run.get_asset_materialization_events()}
        outcome.retries += sum(counted[key]["retries"].value for key in (arxiv_entries.key, FRAMEWORK_THREADS) if key in counted)
    outcome.injected = {source: random_faults.injected for source, random_faults in faults.items()}
    outcome.requests = {"arXiv": len(world.arxiv.requests), "GitHub": len(world.github.requests)}
    times = [request.at for request in world.arxiv.requests]
    outcome.arxiv_gaps = [later - earlier for earlier, later in zip(times, times[1:])]
    outcome.hashes = table_hashes(database)
    outcome.duplicates = duplicate_rows(database)
    return outcome


def differing_tables(first: Refresh, second: Refresh) -> list[str]:
    return sorted(t for t in first.hashes.keys() | second.hashes.keys() if first.hashes.get(t) != second.hashes.get(t))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=float, default=0.3, help="share of requests that fail (default 0.3)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--frameworks", type=int, default=7, help="frameworks refreshed (default all 7)")
    parser.add_argument("--entries", type=int, default=200, help="arXiv entries over the ten days (10 a page)")
    parser.add_argument("--threads", type=int, default=500, help="GitHub threads per framework (2 comments each)")
    parser.add_argument("--arxiv-interval", type=float, default=0.5, help="seconds between arXiv requests")
    parser.add_argument("--json", metavar="OUT", help="also write the figures to this file (bench/run_all.py reads it)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        world = build_world(Path(folder), framework_count=args.frameworks, entries=args.entries, threads=args.threads)
        clean = refresh(world, "clean", Drill(seed=args.seed, arxiv_interval_s=args.arxiv_interval))
        faulty = refresh(world, "faulty", Drill(rate=args.rate, seed=args.seed, arxiv_interval_s=args.arxiv_interval))
    differing = differing_tables(clean, faulty)
    duplicates = sum(faulty.duplicates.values()) + sum(clean.duplicates.values())
    smallest_gap = min(faulty.arxiv_gaps + clean.arxiv_gaps)
    spaced = smallest_gap >= args.arxiv_interval
    injected = sum(counter.total() for counter in faulty.injected.values())
    rows = sum(figures["rows"] for figures in faulty.hashes.values())
    print(f"world:            {args.entries} arXiv entries; {len(world.frameworks)} framework(s), each a git remote and "
          f"{args.threads} threads with 2 comments each on GitHub")
    print(f"faults injected:  {injected} of {sum(faulty.requests.values())} requests ({args.rate:.0%} drawn, seed {args.seed})")
    for source, counter in faulty.injected.items():
        kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(counter.items()))
        print(f"  {source + ':':7} {counter.total()} of {faulty.requests[source]} requests: {kinds}")
    print(f"retries:          {faulty.retries} (fault-free run: {clean.retries}, {sum(clean.requests.values())} requests)")
    print(f"identical hashes: {'yes' if not differing else 'NO: ' + ', '.join(differing)} "
          f"({len(faulty.hashes)} tables, {rows} rows)")
    print(f"duplicate rows:   {duplicates}")
    print(f"arXiv spacing:    smallest gap {smallest_gap:.3f} s, configured {args.arxiv_interval} s: "
          f"{'never broken' if spaced else 'BROKEN'}")
    print(f"wall time:        fault-free {clean.seconds:.1f} s, with faults {faulty.seconds:.1f} s, "
          f"ratio {faulty.seconds / clean.seconds:.2f}")
    if args.json:
        figures = {
            "injected": injected,
            "requests": sum(faulty.requests.values()),
            "kinds": len({kind for counter in faulty.injected.values() for kind in counter}),
            "retries": faulty.retries,
            "tables": len(faulty.hashes),
            "rows": rows,
            "differing_tables": differing,
            "duplicates": duplicates,
            "smallest_arxiv_gap_s": smallest_gap,
            "arxiv_interval_s": args.arxiv_interval,
            "seconds": {"fault_free": clean.seconds, "faulty": faulty.seconds},
        }
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return 0 if not differing and not duplicates and spaced else 1


if __name__ == "__main__":
    raise SystemExit(main())
