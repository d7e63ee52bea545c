"""The framework source assets through Dagster: a local git remote and the fake GitHub
for the live path, the recorded ../shared/snapshots for the snapshot path."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import dagster as dg
import pytest

from assets.sources.assets import (
    FRAMEWORK_COMMENTS,
    FRAMEWORK_COMMITS,
    FRAMEWORK_DOCS,
    FRAMEWORK_THREADS,
    framework_sources_refresh,
)
from orchestration.definitions import defs
from orchestration.jobs import framework_refresh_job
from orchestration.resources import FrameworkSources
from orchestration.settings import framework, frameworks
from orchestration.warehouse import Warehouse
from fakes.git_repos import GitRemote
from fakes.github_server import Fault, comment_item, issue_item
from tests.github_fixtures import FakeGithub, fake_github  # noqa: F401  (the fixture)
from tests.helpers import recorded_counts, shared_snapshots
from tests.snapshot_fixtures import blob_sha, doc_record, write_docs, write_history

VERL = framework("verl")
QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
T0 = datetime(2025, 6, 1, tzinfo=UTC)


def materialize(
    sources: FrameworkSources, warehouse: Warehouse, slug: str, selection: list[dg.AssetKey] | None = None
) -> dg.ExecuteInProcessResult:
    return dg.materialize(
        [framework_sources_refresh],
        partition_key=slug,
        selection=selection,
        run_config=QUIET,
        resources={"framework_sources": sources, "warehouse": warehouse},
    )


def metadata(result: dg.ExecuteInProcessResult, key: dg.AssetKey) -> dict[str, object]:
    (event,) = [e for e in result.get_asset_materialization_events() if e.asset_key == key]
    return {name: value.value for name, value in event.materialization.metadata.items()}


@pytest.fixture
def live(tmp_path: Path, fake_github: FakeGithub):
    """verl as a local git remote with two commits and a CONTRIBUTING.md, and on the fake
    GitHub with two threads and a comment; the resources that reach both."""
    remote = GitRemote(tmp_path / "remotes", VERL.repo)
    remote.commit("Initial commit", {"README.md": "# verl\n", "CONTRIBUTING.md": "Open an issue first.\n"})
    remote.commit("Add DAPO clip-higher (arXiv:2503.14476)", {"verl/loss.py": "def dapo_loss():\n    return 0\n"})
    remote.push()
    fake_github.fixtures.add_issues(
        VERL.repo,
        issue_item(VERL.repo, 1, updated_at=T0, title="Support DAPO"),
        issue_item(VERL.repo, 2, updated_at=T0 + timedelta(days=1), pull_request=True, merged_at=T0 + timedelta(days=1)),
    )
    fake_github.fixtures.add_comments(VERL.repo, comment_item(VERL.repo, 501, 1, updated_at=T0 + timedelta(hours=2)))
    sources = FrameworkSources(
        mirror_dir=str(tmp_path / "mirrors"),
        remote_url_template=remote.url_template,
        github_api_url=fake_github.url,
        github_token="test-token-not-logged",
        backoff_s=0.01,
    )
    return remote, fake_github, sources, Warehouse(database=str(tmp_path / "tracker.duckdb"))


def test_first_refresh_stores_commits_docs_threads_and_comments(live):
    _, _, sources, warehouse = live
    result = materialize(sources, warehouse, "verl")
    assert result.success
    assert metadata(result, FRAMEWORK_COMMITS)["dagster/row_count"] == 2
    assert metadata(result, FRAMEWORK_COMMITS)["new_commits"] == 2
    assert metadata(result, FRAMEWORK_THREADS)["dagster/row_count"] == 2
    assert metadata(result, FRAMEWORK_COMMENTS)["dagster/row_count"] == 1
    assert metadata(result, FRAMEWORK_DOCS)["dagster/row_count"] == 1
    docs = warehouse.read("SELECT path, text FROM raw.framework_docs WHERE framework = 'verl'")
    assert docs.rows() == [("CONTRIBUTING.md", "Open an issue first.\n")]
    kinds = warehouse.read("SELECT number, kind, merged_at IS NOT NULL AS merged FROM raw.github_threads ORDER BY number")
    assert kinds.rows() == [(1, "issue", False), (2, "pull_request", True)]


def test_refresh_with_nothing_new_processes_no_commit_and_sends_only_conditional_requests(live):
    _, github, sources, warehouse = live
    assert materialize(sources, warehouse, "verl").success  # first load
    assert materialize(sources, warehouse, "verl").success  # first `since`: no ETag for it yet
    github.fixtures.clear_requests()

    result = materialize(sources, warehouse, "verl")

    assert result.success
    commits = metadata(result, FRAMEWORK_COMMITS)
    assert (commits["new_commits"], commits["new_file_rows"], commits["full_rescan"]) == (0, 0, False)
    assert commits["dagster/row_count"] == 2
    threads = metadata(result, FRAMEWORK_THREADS)
    assert threads["requests"] == threads["not_modified"] == 2
    served = github.fixtures.requests_to("")
    assert len(served) == 2
    assert all("if-none-match" in request.headers for request in served)
    assert warehouse.read("SELECT count(*) AS n FROM raw.github_threads")["n"][0] == 2


def test_new_commit_and_updated_thread_are_picked_up(live):
    remote, github, sources, warehouse = live
    assert materialize(sources, warehouse, "verl").success
    remote.commit("Add GSPO sequence-level ratio", {"verl/gspo.py": "def gspo_loss():\n    return 1\n"})
    remote.push()
    github.fixtures.update_issue(VERL.repo, 1, updated_at=(T0 + timedelta(days=3)).isoformat().replace("+00:00", "Z"), state="closed")

    result = materialize(sources, warehouse, "verl")

    assert metadata(result, FRAMEWORK_COMMITS)["new_commits"] == 1
    assert metadata(result, FRAMEWORK_COMMITS)["dagster/row_count"] == 3
    assert warehouse.read("SELECT state FROM raw.github_threads WHERE number = 1")["state"][0] == "closed"
    assert warehouse.read("SELECT count(*) AS n FROM raw.github_threads")["n"][0] == 2


def test_commits_are_kept_when_github_fails(live):
    _, github, sources, warehouse = live
    # The quota is spent for an hour, longer than the resource may wait (15 minutes).
    github.fixtures.queue(Fault.primary_limit(reset_in_s=3600))

    result = dg.materialize(
        [framework_sources_refresh],
        partition_key="verl",
        run_config=QUIET,
        resources={"framework_sources": sources, "warehouse": warehouse},
        raise_on_error=False,
    )

    assert not result.success
    materialized = {event.asset_key for event in result.get_asset_materialization_events()}
    assert materialized == {FRAMEWORK_COMMITS, FRAMEWORK_DOCS}
    assert warehouse.read("SELECT count(*) AS n FROM raw.git_commits")["n"][0] == 2
    cause = result.failure_data_for_node("framework_sources_refresh").error.cause
    assert cause.cls_name == "RateLimitExceeded" and "raise max_rate_limit_wait_s" in cause.message
    assert "test-token-not-logged" not in str(result.all_events)


def test_unreadable_items_go_to_the_quarantine_and_leave_it_once_github_sends_them_whole(live):
    _, github, sources, warehouse = live
    hostile = {**issue_item(VERL.repo, 3, updated_at=T0 + timedelta(days=2)), "state": "<script>", "labels": "bug"}
    github.fixtures.add_issues(VERL.repo, hostile)
    github.fixtures.add_comments(VERL.repo, {**comment_item(VERL.repo, 502, 1, updated_at=T0), "id": "502"})
    quarantined = "SELECT source, source_ref, reason, framework FROM raw.quarantine ORDER BY source_ref"

    result = materialize(sources, warehouse, "verl")

    assert result.success
    threads = metadata(result, FRAMEWORK_THREADS)
    assert (threads["items_received"], threads["items_quarantined"]) == (5, 2)  # 2 + 1 read, 2 quarantined
    assert threads["dagster/row_count"] == 2 and metadata(result, FRAMEWORK_COMMENTS)["dagster/row_count"] == 1
    rows = warehouse.read(quarantined).rows()
    unreadable_comment = rows[0][1]  # no readable id: named by its content
    assert re.fullmatch(r"volcengine/verl github_comments item sha256:[0-9a-f]{16}", unreadable_comment)
    assert rows == [
        ("github_comments", unreadable_comment, 'id "502": not an integer', "verl"),
        ("github_threads", "volcengine/verl#3", 'state "<script>": not open or closed', "verl"),
    ]

    # GitHub sends #3 whole again (updated): it is stored, and leaves the quarantine.
    github.fixtures.update_issue(VERL.repo, 3, state="open", labels=[], updated_at="2025-06-05T00:00:00Z")
    assert materialize(sources, warehouse, "verl").success
    assert warehouse.read("SELECT count(*) AS n FROM raw.github_threads")["n"][0] == 3
    assert [row[1] for row in warehouse.read(quarantined).rows()] == [unreadable_comment]  # not asked again: kept


def test_a_subset_refreshes_only_what_was_selected(live):
    _, github, sources, warehouse = live
    result = materialize(sources, warehouse, "verl", selection=[FRAMEWORK_THREADS, FRAMEWORK_COMMENTS])
    assert result.success
    assert {event.asset_key for event in result.get_asset_materialization_events()} == {
        FRAMEWORK_THREADS,
        FRAMEWORK_COMMENTS,
    }
    with warehouse.connect() as conn:
        tables = {row[0] for row in conn.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    assert "git_commits" not in tables


def test_framework_refresh_job_covers_the_four_assets_of_one_partition():
    job = defs.resolve_job_def(framework_refresh_job.name)
    keys = job.asset_layer.selected_asset_keys
    assert keys == {FRAMEWORK_COMMITS, FRAMEWORK_DOCS, FRAMEWORK_THREADS, FRAMEWORK_COMMENTS}
    assert job.partitions_def.get_partition_keys() == [f.slug for f in frameworks()]


def test_snapshot_docs_land_in_framework_docs_and_a_changed_one_is_replaced(tmp_path: Path):
    snapshot = tmp_path / "snapshot"
    write_history(snapshot, VERL)
    rules = doc_record(VERL, "CONTRIBUTING.md", "Open an issue first.\n")
    write_docs(snapshot, VERL, [rules, doc_record(VERL, ".github/CODEOWNERS", "* @maintainers\n")])
    sources = FrameworkSources(snapshot_dir=str(snapshot))
    warehouse = Warehouse(database=str(tmp_path / "tracker.duckdb"))
    stored = "SELECT framework, path, blob_sha, fetched_at, text FROM raw.framework_docs ORDER BY path"

    first = materialize(sources, warehouse, VERL.slug, [FRAMEWORK_DOCS])

    assert first.success and metadata(first, FRAMEWORK_DOCS)["dagster/row_count"] == 2
    with warehouse.connect() as conn:
        rows = conn.execute(stored).fetchall()
    assert [row[1] for row in rows] == [".github/CODEOWNERS", "CONTRIBUTING.md"]
    assert rows[1] == ("verl", "CONTRIBUTING.md", rules["blob_sha"], datetime(2025, 4, 1, 12, 30, tzinfo=UTC), rules["text"])

    write_docs(snapshot, VERL, [doc_record(VERL, "CONTRIBUTING.md", "Open a pull request.\n")])
    assert materialize(sources, warehouse, VERL.slug, [FRAMEWORK_DOCS]).success
    with warehouse.connect() as conn:
        assert conn.execute(stored).fetchall() == [
            ("verl", "CONTRIBUTING.md", blob_sha("Open a pull request.\n"), rows[1][3], "Open a pull request.\n")
        ]


@pytest.mark.snapshots
def test_snapshot_load_of_the_seven_frameworks_is_exact_and_idempotent(tmp_path: Path):
    snapshot = shared_snapshots()
    sources = FrameworkSources(snapshot_dir=str(snapshot))
    warehouse = Warehouse(database=str(tmp_path / "tracker.duckdb"))
    counts = (
        "SELECT (SELECT count(*) FROM raw.git_commits), (SELECT count(*) FROM raw.git_commit_files), "
        "(SELECT count(*) FROM raw.github_threads), (SELECT count(*) FROM raw.github_comments)"
    )

    for slug in [f.slug for f in frameworks()]:
        assert materialize(sources, warehouse, slug).success
    with warehouse.connect() as conn:
        first = conn.execute(counts).fetchone()
        first_rows = conn.execute("SELECT sha, framework FROM raw.git_commits ORDER BY framework, sha").fetchall()
        docs = conn.execute("SELECT framework, path, blob_sha FROM raw.framework_docs").fetchall()
    recorded_rows = recorded_counts(snapshot)
    assert first[:3] == (sum(recorded_rows.commits.values()), recorded_rows.commit_files, recorded_rows.threads)
    # Every recorded contribution document (ROLL recorded none), as recorded.
    recorded = {
        (f.slug, line["path"], line["blob_sha"])
        for f in frameworks()
        if (snapshot / "docs" / f"{f.snapshot_stem}.docs.jsonl").is_file()
        for line in map(json.loads, (snapshot / "docs" / f"{f.snapshot_stem}.docs.jsonl").read_text().splitlines())
    }
    assert len(recorded) == recorded_rows.docs and set(docs) == recorded and len(docs) == recorded_rows.docs

    reruns = [materialize(sources, warehouse, f.slug) for f in frameworks()]

    assert all(metadata(run, FRAMEWORK_COMMITS)["new_commits"] == 0 for run in reruns)
    assert all(metadata(run, FRAMEWORK_THREADS)["updated_threads"] == 0 for run in reruns)
    with warehouse.connect() as conn:
        assert conn.execute(counts).fetchone() == first
        assert conn.execute("SELECT sha, framework FROM raw.git_commits ORDER BY framework, sha").fetchall() == first_rows
