"""Benchmark of the framework ingestion: snapshot load, no-change refresh, GitHub requests.

    .venv/bin/python bench/ingest.py [--snapshot DIR]

Prints, for the seven recorded commit histories and thread samples in DIR (default
../shared/snapshots):
- the time of a full load into a fresh warehouse, and its peak memory above a baseline
  process that only imports the project (each measured in a child process);
- the time of a refresh with nothing new, as a fraction of the full load (target ≤ 5%);
and, against the fake GitHub server with synthetic threads of the seven frameworks:
- the requests of a daily refresh with nothing new, per framework (target ≤ 2, all 304).

Times are of the ingestion itself (source read, parsing, warehouse writes); Dagster's
run bookkeeping is printed apart, since it is the same for every refresh.
"""

from __future__ import annotations

import argparse
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


def child(phase: str, snapshot: str, database: str) -> dict:
    """Run one phase in a fresh interpreter, so that its peak memory is its own."""
    output = subprocess.run(
        [sys.executable, __file__, "--phase", phase, "--snapshot", snapshot, "--database", database],
        capture_output=True,
        text=True,
        check=False,
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


def run_phase(phase: str, snapshot: str, database: str) -> dict:
    from assets.sources.frameworks import refresh_commits, refresh_threads, stored_state
    from orchestration.resources import FrameworkSources
    from orchestration.settings import frameworks
    from orchestration.warehouse import Warehouse

    if phase == "baseline":
        return {"peak_rss_mib": peak_rss_mib()}
    sources = FrameworkSources(snapshot_dir=snapshot)
    warehouse = Warehouse(database=database)
    warm_up()
    started = time.perf_counter()
    commits = threads = 0
    # What the framework_sources_refresh run does for each framework.
    for framework in frameworks():
        with warehouse.connect() as conn:
            state = stored_state(conn, framework.slug)
        commits += refresh_commits(sources, warehouse, framework.slug, state, log).batch.commits.height
        threads += refresh_threads(sources, warehouse, framework.slug, state, log).batch.threads.height
    seconds = time.perf_counter() - started
    with warehouse.connect() as conn:
        stored = conn.execute("SELECT count(*) FROM raw.git_commits").fetchone()[0]
    return {"seconds": seconds, "peak_rss_mib": peak_rss_mib(), "commits": commits, "threads": threads, "stored": stored}


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


def github_no_change_requests() -> tuple[dict[str, int], dict[str, int]]:
    """Requests and 304s per framework of a no-change daily refresh against the fake GitHub."""
    from assets.sources.frameworks import refresh_threads, stored_state
    from orchestration.resources import FrameworkSources
    from orchestration.settings import frameworks
    from orchestration.warehouse import Warehouse
    from fakes.github_server import running_fake_github, synthetic_fixtures

    fixtures = synthetic_fixtures([f.repo for f in frameworks()])
    with tempfile.TemporaryDirectory() as folder, running_fake_github(fixtures) as url:
        sources = FrameworkSources(github_api_url=url, github_token="bench-token", backoff_s=0.01)
        warehouse = Warehouse(database=str(Path(folder) / "bench.duckdb"))
        # day 1: the first load; day 2: the first incremental refresh (new `since`, so
        # no ETag yet); day 3: nothing changed since day 2 — the steady state measured.
        def refresh(slug: str):
            with warehouse.connect() as conn:
                state = stored_state(conn, slug)
            return refresh_threads(sources, warehouse, slug, state, log).batch

        for _day in range(2):
            for framework in frameworks():
                refresh(framework.slug)
        fixtures.clear_requests()
        requests, not_modified = {}, {}
        for framework in frameworks():
            batch = refresh(framework.slug)
            requests[framework.slug], not_modified[framework.slug] = batch.requests, batch.not_modified
        served = fixtures.requests_to("")
        assert len(served) == sum(requests.values()), (len(served), requests)
    return requests, not_modified


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--snapshot", default=str(ROOT.parent / "shared" / "snapshots"))
    parser.add_argument("--phase", choices=["baseline", "load", "refresh"], help=argparse.SUPPRESS)
    parser.add_argument("--database", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(run_phase(args.phase, args.snapshot, args.database)))
        return 0
    if not (Path(args.snapshot) / "github").is_dir():
        raise SystemExit(f"bench/ingest.py: no github/ folder in {args.snapshot} (pass --snapshot DIR)")

    with tempfile.TemporaryDirectory() as folder:
        database = str(Path(folder) / "bench.duckdb")
        baseline = child("baseline", args.snapshot, database)
        load = child("load", args.snapshot, database)
        refresh = child("refresh", args.snapshot, database)
        overhead = dagster_overhead(args.snapshot, database)
    requests, not_modified = github_no_change_requests()

    fraction = refresh["seconds"] / load["seconds"]
    print(f"snapshot load:       {load['commits']} commits, {load['threads']} threads of 7 frameworks "
          f"in {load['seconds']:.2f} s; peak memory {load['peak_rss_mib'] - baseline['peak_rss_mib']:.0f} MiB "
          f"above the {baseline['peak_rss_mib']:.0f} MiB baseline ({load['peak_rss_mib']:.0f} MiB in all)")
    print(f"no-change refresh:   {refresh['commits']} new commits in {refresh['seconds']:.3f} s = "
          f"{fraction:.1%} of the full load (target ≤ 5%) {'OK' if fraction <= 0.05 else 'MISSED'}")
    print(f"dagster run:         one no-change framework_refresh run (three steps) takes {overhead:.2f} s of bookkeeping and refresh")
    worst = max(requests.values())
    all_304 = all(requests[slug] == not_modified[slug] for slug in requests)
    print(f"fake GitHub:         no-change daily refresh sent {sum(requests.values())} requests for 7 frameworks "
          f"(at most {worst} per framework, {'all' if all_304 else 'NOT all'} 304; target ≤ 2, all 304) "
          f"{'OK' if worst <= 2 and all_304 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    raise SystemExit(main())
