"""Benchmark of the framework ingestion: snapshot load, and the no-change daily refresh
through the production path (git mirrors and the GitHub API).

    .venv/bin/python bench/ingest.py [--snapshot DIR] [--json OUT]

Prints, for the seven recorded commit histories and thread samples in DIR (default
../shared/snapshots):
- the time of a full load of the recording into a fresh warehouse (what `dev.py run
  --snapshot` does), and its peak memory above a baseline process that only imports the
  project (each measured in a child process);
and through the path production takes, with the seven recorded histories imported into
local git remotes (same commits, messages, dates and changed files) and the fake GitHub
server serving synthetic threads of the seven frameworks:
- the time and peak memory of the first refresh (clone, `git log` of every commit,
  every thread and comment page);
- the time of a daily refresh with nothing new (`git fetch` of each mirror, the
  conditional GitHub requests), as a fraction of the first refresh (target ≤ 5%), and its
  requests per framework (target ≤ 2, all 304 Not Modified).

Times are of the ingestion itself (source reads, parsing, warehouse writes); Dagster's
run bookkeeping is printed apart, since it is the same for every refresh.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

log = logging.getLogger("bench")


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(phase: str, **options: str) -> dict:
    """Run one phase in a fresh interpreter, so that its peak memory is its own."""
    arguments = [f"--{name.replace('_', '-')}={value}" for name, value in options.items()]
    output = subprocess.run(
        [sys.executable, __file__, "--phase", phase, *arguments], capture_output=True, text=True, check=False
    )
    if output.returncode != 0:
        raise SystemExit(f"bench phase {phase} failed:\n{output.stderr[-3000:]}")
    return json.loads(output.stdout.strip().splitlines()[-1])


def warm_up() -> None:
    """Pay, before timing, what any process pays once: DuckDB imports pandas on its first
    parameterized query (0.6 s here), which is no part of a refresh."""
    import duckdb

    with duckdb.connect(":memory:") as conn:
        conn.execute("SELECT ?", ["warm"]).fetchall()


def refresh_all(sources, database: str) -> dict:
    """What the framework_sources_refresh step does, for each of the seven frameworks."""
    from assets.sources.frameworks import refresh_commits, refresh_threads, stored_state
    from orchestration.settings import frameworks
    from orchestration.warehouse import Warehouse

    warehouse = Warehouse(database=database)
    warm_up()
    started = time.perf_counter()
    commits = threads = 0
    requests, not_modified = {}, {}
    for framework in frameworks():
        with warehouse.connect() as conn:
            state = stored_state(conn, framework.slug)
        commits += refresh_commits(sources, warehouse, framework.slug, state, log).batch.commits.height
        batch = refresh_threads(sources, warehouse, framework.slug, state, log).batch
        threads += batch.threads.height
        requests[framework.slug], not_modified[framework.slug] = batch.requests, batch.not_modified
    seconds = time.perf_counter() - started
    with warehouse.connect() as conn:
        stored = conn.execute("SELECT count(*) FROM raw.git_commits").fetchone()[0]
    return {
        "seconds": seconds,
        "peak_rss_mib": peak_rss_mib(),
        "commits": commits,
        "threads": threads,
        "stored": stored,
        "requests": requests,
        "not_modified": not_modified,
    }


def run_phase(args: argparse.Namespace) -> dict:
    from orchestration.resources import FrameworkSources

    if args.phase == "baseline":
        return {"peak_rss_mib": peak_rss_mib()}
    if args.phase == "snapshot":
        return refresh_all(FrameworkSources(snapshot_dir=args.snapshot), args.database)
    sources = FrameworkSources(
        mirror_dir=args.mirrors,
        remote_url_template=f"file://{args.remotes}/{{repo}}.git",
        github_api_url=args.github,
        github_token="bench-token",
        backoff_s=0.01,
    )
    return refresh_all(sources, args.database)


def recorded_remotes(snapshot: Path, root: Path) -> int:
    """A local git remote per framework holding its recorded history; the commits in all."""
    from orchestration.settings import frameworks
    from fakes.git_repos import import_history

    commits = 0
    for framework in frameworks():
        with gzip.open(snapshot / "github" / f"{framework.snapshot_stem}.jsonl.gz", "rt", encoding="utf-8") as handle:
            records = [json.loads(line) for line in handle if line.strip()]
        import_history(root / f"{framework.repo}.git", framework.default_branch, reversed(records))  # oldest first
        commits += len(records)
    return commits


def dagster_overhead(snapshot: str, database: str) -> float:
    """Seconds of one no-change framework_refresh run of one framework through Dagster."""
    import dagster as dg

    from assets.sources.assets import framework_sources_refresh
    from orchestration.resources import FrameworkSources
    from orchestration.warehouse import Warehouse

    started = time.perf_counter()
    outcome = dg.materialize(
        [framework_sources_refresh],
        partition_key="verl",
        run_config={"loggers": {"console": {"config": {"log_level": "WARNING"}}}},
        resources={"framework_sources": FrameworkSources(snapshot_dir=snapshot), "warehouse": Warehouse(database=database)},
    )
    assert outcome.success
    return time.perf_counter() - started


def measure(snapshot: Path) -> dict:
    """Every figure of this bench (see the module's docstring)."""
    from orchestration.settings import frameworks
    from fakes.github_server import running_fake_github, synthetic_fixtures

    figures: dict = {}
    with tempfile.TemporaryDirectory(prefix="bench_ingest_") as folder:
        work = Path(folder)
        database = str(work / "snapshot.duckdb")
        figures["baseline"] = child("baseline", snapshot=str(snapshot))
        figures["snapshot_load"] = child("snapshot", snapshot=str(snapshot), database=database)
        figures["dagster_run_s"] = dagster_overhead(str(snapshot), database)

        figures["remote_commits"] = recorded_remotes(snapshot, work / "remotes")
        github = synthetic_fixtures([f.repo for f in frameworks()])
        with running_fake_github(github) as url:
            live = {
                "snapshot": str(snapshot),
                "database": str(work / "live.duckdb"),
                "mirrors": str(work / "mirrors"),
                "remotes": str(work / "remotes"),
                "github": url,
            }
            # Day 1: clone and load everything; day 2: the first incremental refresh (a new
            # `since`, so no ETag yet); day 3: nothing changed since day 2, the steady state.
            figures["first_refresh"] = child("live", **live)
            child("live", **live)
            github.clear_requests()
            figures["no_change_refresh"] = child("live", **live)
            figures["served_requests"] = len(github.requests_to(""))
    return figures


def report(figures: dict) -> list[str]:
    baseline = figures["baseline"]["peak_rss_mib"]
    load, first, quiet = figures["snapshot_load"], figures["first_refresh"], figures["no_change_refresh"]
    fraction = quiet["seconds"] / first["seconds"]
    requests, not_modified = quiet["requests"], quiet["not_modified"]
    worst = max(requests.values())
    all_304 = all(requests[slug] == not_modified[slug] for slug in requests)
    return [
        f"snapshot load:       {load['commits']} commits, {load['threads']} threads of 7 frameworks "
        f"in {load['seconds']:.2f} s; peak memory {load['peak_rss_mib'] - baseline:.0f} MiB "
        f"above the {baseline:.0f} MiB baseline ({load['peak_rss_mib']:.0f} MiB in all)",
        f"first refresh:       git clone and parse of {first['commits']} recorded commits "
        f"({figures['remote_commits']} in the remotes), {first['threads']} threads from the fake GitHub "
        f"in {first['seconds']:.2f} s; peak memory {first['peak_rss_mib'] - baseline:.0f} MiB above the baseline",
        f"no-change refresh:   git fetch and conditional GitHub requests: {quiet['commits']} new commits, "
        f"{quiet['threads']} threads in {quiet['seconds']:.3f} s = {fraction:.1%} of the first refresh "
        f"(target ≤ 5%) {'OK' if fraction <= 0.05 else 'MISSED'}",
        f"fake GitHub:         the no-change refresh sent {sum(requests.values())} requests for 7 frameworks "
        f"({figures['served_requests']} served; at most {worst} per framework, {'all' if all_304 else 'NOT all'} 304; "
        f"target ≤ 2, all 304) {'OK' if worst <= 2 and all_304 else 'MISSED'}",
        f"dagster run:         one no-change framework_refresh run (three steps) takes {figures['dagster_run_s']:.2f} s "
        "of bookkeeping and refresh",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--snapshot", default=str(ROOT.parent / "shared" / "snapshots"))
    parser.add_argument("--json", metavar="OUT", help="also write the figures to this file")
    parser.add_argument("--phase", choices=["baseline", "snapshot", "live"], help=argparse.SUPPRESS)
    for hidden in ("--database", "--mirrors", "--remotes", "--github"):
        parser.add_argument(hidden, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(run_phase(args)))
        return 0
    snapshot = Path(args.snapshot)
    if not (snapshot / "github").is_dir():
        raise SystemExit(f"bench/ingest.py: no github/ folder in {snapshot} (pass --snapshot DIR)")
    figures = measure(snapshot)
    for line in report(figures):
        print(line)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    raise SystemExit(main())
