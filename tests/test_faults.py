"""Faults, end to end: a refresh against fakes that fail at random writes the tables of a
fault-free one; a source that never answers fails the run by its deadline; fetching
holds no writer slot."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime

import dagster as dg
import pytest

from assets.sources.assets import arxiv_entries, framework_sources_refresh
from bench.faults import Drill, build_world, differing_tables, refresh
from fakes import arxiv_server, github_server
from fakes.arxiv_server import arxiv_entry
from fakes.git_repos import GitRemote
from fakes.serving import silent_server
from orchestration.jobs import partition_range_tags
from orchestration.resources import ArxivSource, FrameworkSources
from orchestration.settings import framework
from orchestration.warehouse import WRITER_POOL, Warehouse

QUIET = {"loggers": {"console": {"config": {"log_level": "ERROR"}}}}
FAST = {"timeout_s": 0.2, "stall_s": 0.4, "arxiv_interval_s": 0.1}
WINDOW = partition_range_tags(datetime(2025, 1, 1).date(), datetime(2025, 1, 10).date())


def each_then_a_normal_answer(faults: list, normal) -> tuple:
    """Every fault once, each followed by a normal answer (its retry succeeds)."""
    return tuple(item for fault in faults for item in (fault, normal))


def test_a_refresh_against_faulty_fakes_writes_exactly_the_tables_of_a_fault_free_one(tmp_path):
    world = build_world(tmp_path, framework_count=2, entries=130, threads=300)  # pages enough for every fault
    clean = refresh(world, "clean", Drill(**FAST))
    # Every kind of fault first (empty pages where pages have items: ahead of the others),
    # then 30% of the requests at random.
    arxiv_mix = sorted(arxiv_server.fault_mix(stall_s=FAST["stall_s"]), key=lambda f: f.kind != "empty_page")
    github_mix = sorted(github_server.fault_mix(stall_s=FAST["stall_s"]), key=lambda f: f.kind != "empty_page")
    faulty = refresh(
        world,
        "faulty",
        Drill(
            rate=0.3,
            seed=7,
            arxiv_faults=each_then_a_normal_answer(arxiv_mix, arxiv_server.Fault.normal()),
            github_faults=each_then_a_normal_answer(github_mix, github_server.Fault.normal()),
            **FAST,
        ),
    )

    assert differing_tables(clean, faulty) == []
    assert {"raw.arxiv_entries", "raw.git_commits", "raw.github_threads", "raw.github_comments"} <= set(faulty.hashes)
    assert faulty.hashes["raw.github_comments"]["rows"] == 2 * 300 * 2
    assert set(faulty.duplicates.values()) == {0}
    assert set(faulty.injected["arXiv"]) == {fault.label for fault in arxiv_mix}
    assert set(faulty.injected["GitHub"]) == {fault.label for fault in github_mix}
    injected = sum(counter.total() for counter in faulty.injected.values())
    assert injected > len(arxiv_mix) + len(github_mix)  # the random ones came on top
    assert faulty.retries == injected  # every fault was seen, and retried once
    assert min(faulty.arxiv_gaps) >= FAST["arxiv_interval_s"]  # arXiv's spacing held, retries included


def test_an_arxiv_that_never_answers_fails_the_run_within_the_deadline(tmp_path):
    deadline_minutes = 0.02
    with silent_server() as base_url:
        arxiv = ArxivSource(
            api_url=f"{base_url}/api/query", timeout_s=0.2, max_retries=100, backoff_s=0.01, deadline_minutes=deadline_minutes
        )
        started = time.monotonic()
        result = dg.materialize(
            [arxiv_entries],
            resources={"arxiv": arxiv, "warehouse": Warehouse(database=str(tmp_path / "tracker.duckdb"))},
            tags=WINDOW,
            run_config=QUIET,
            raise_on_error=False,
        )
        elapsed = time.monotonic() - started
    assert not result.success
    error = result.failure_data_for_node("arxiv_entries").error
    message = error.cause.message if error.cause else error.message
    assert "ArxivUnavailableError" in message
    assert "deadline of 0.02 min (deadline_minutes of the arxiv resource)" in message and "retry later" in message
    assert elapsed < deadline_minutes * 60 + 10  # the deadline, and Dagster's bookkeeping of one run


def test_a_github_that_never_answers_fails_the_refresh_within_the_deadline_and_keeps_the_commits(tmp_path):
    verl = framework("verl")
    remote = GitRemote(tmp_path / "remotes", verl.repo)
    remote.commit("Initial commit", {"README.md": "# verl\n"})
    remote.push()
    warehouse = Warehouse(database=str(tmp_path / "tracker.duckdb"))
    with silent_server() as base_url:
        sources = FrameworkSources(
            mirror_dir=str(tmp_path / "mirrors"),
            remote_url_template=remote.url_template,
            github_api_url=base_url,
            timeout_s=0.2,
            max_retries=100,
            backoff_s=0.01,
            deadline_minutes=0.02,
        )
        result = dg.materialize(
            [framework_sources_refresh],
            partition_key="verl",
            resources={"framework_sources": sources, "warehouse": warehouse},
            run_config=QUIET,
            raise_on_error=False,
        )
    assert not result.success
    cause = result.failure_data_for_node("framework_sources_refresh").error.cause
    assert cause.cls_name == "SourceUnavailableError"
    assert "deadline of 0.02 min (deadline_minutes of the framework_sources resource)" in cause.message
    assert warehouse.read("SELECT count(*) AS n FROM raw.git_commits")["n"][0] == 1


def test_the_harvest_fetches_while_another_writer_holds_the_slot_and_waits_only_to_write(tmp_path, fake_arxiv):
    home = tmp_path / "home"
    home.mkdir()
    (home / "dagster.yaml").write_text("concurrency:\n  pools:\n    default_limit: 1\n")
    for day in range(1, 11):
        published = datetime(2025, 1, day, 9, tzinfo=UTC)
        fake_arxiv.fixtures.add(published, arxiv_entry(f"2501.{day:05d}", published))
    database = tmp_path / "tracker.duckdb"
    arxiv = ArxivSource(api_url=fake_arxiv.url, page_size=4, min_interval_s=0, timeout_s=5)
    outcome: dict[str, dg.ExecuteInProcessResult] = {}
    with dg.DagsterInstance.from_config(str(home)) as instance:
        storage = instance.event_log_storage
        storage.set_concurrency_slots(WRITER_POOL, 1)
        assert storage.claim_concurrency_slot(WRITER_POOL, "another-writer", "write").slot_status.value == "CLAIMED"

        def run() -> None:
            outcome["result"] = dg.materialize(
                [arxiv_entries],
                instance=instance,
                resources={"arxiv": arxiv, "warehouse": Warehouse(database=str(database))},
                tags=WINDOW,
                run_config=QUIET,
            )

        harvest = threading.Thread(target=run)
        harvest.start()
        waiting: list[str] = []
        deadline = time.monotonic() + 60
        while not waiting and time.monotonic() < deadline:
            time.sleep(0.1)
            waiting = [
                step.step_key
                for step in storage.get_concurrency_info(WRITER_POOL).pending_steps
                if step.run_id != "another-writer" and step.assigned_timestamp is None
            ]
        # The slot is taken: every page was fetched all the same, and only the write waits.
        assert waiting == ["arxiv_entries.write"]
        assert len(fake_arxiv.fixtures.requests) == 3 and not database.exists()
        storage.free_concurrency_slots_for_run("another-writer")
        harvest.join(timeout=60)
    assert outcome["result"].success
    assert Warehouse(database=str(database)).read("SELECT count(*) AS n FROM raw.arxiv_entries")["n"][0] == 10
