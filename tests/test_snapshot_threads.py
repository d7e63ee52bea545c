"""SnapshotThreads: recorded threads from a snapshot folder (own small fixtures, and the
real ../shared/snapshots where present)."""

from __future__ import annotations

import gzip
import json
import logging
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest

from orchestration.clients.github import SnapshotThreads
from orchestration.settings import Framework, framework, frameworks
from orchestration.tables import RAW_GITHUB_COMMENTS, RAW_GITHUB_THREADS
from tests.helpers import recorded_counts

SHARED_SNAPSHOTS = Path(__file__).resolve().parents[1].parent / "shared" / "snapshots"
ACME = Framework("acme", "acme/rl", "main", (), ())


def shared_snapshots() -> Path:
    if not SHARED_SNAPSHOTS.is_dir():
        pytest.skip("../shared/snapshots not found: recorded real data is only on CI and developer machines")
    return SHARED_SNAPSHOTS


def write_threads(folder: Path, stem: str, lines: list[dict | str]) -> Path:
    (folder / "github").mkdir(parents=True, exist_ok=True)
    path = folder / "github" / f"{stem}.threads.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for line in lines:
            handle.write((line if isinstance(line, str) else json.dumps(line)) + "\n")
    return path


def line(number: int, comments: int = 1) -> dict:
    return {
        "repo": "acme/rl", "number": number, "kind": "issue", "state": "open", "labels": [], "title": f"t{number}",
        "author": "a", "created_at": "2025-04-01", "html_url": f"https://github.com/acme/rl/issues/{number}",
        "body_tokens": ["GRPO"], "body_complete": True,
        "comments": [{"author": "b", "created_at": "2025-04-02", "kind": "comment", "body_tokens": ["ok"]}] * comments,
    }  # fmt: skip


def test_reads_the_framework_file(tmp_path):
    write_threads(tmp_path, "acme__rl", [line(3, comments=2), line(8, comments=0)])
    batch = SnapshotThreads(tmp_path).refresh(ACME, None, None)
    assert batch.threads["number"].to_list() == [3, 8]
    assert batch.threads["comment_count"].to_list() == [2, 0]
    assert batch.comments["thread_number"].to_list() == [3, 3]
    assert (batch.requests, batch.not_modified, batch.complete_history) == (0, 0, True)


def test_watermarks_do_not_matter(tmp_path):
    write_threads(tmp_path, "acme__rl", [line(1)])
    late = datetime(2030, 1, 1, tzinfo=UTC)
    assert SnapshotThreads(tmp_path).refresh(ACME, late, late).threads.height == 1


def test_a_missing_threads_file_is_an_empty_batch_with_a_note(tmp_path, caplog):
    (tmp_path / "github").mkdir()
    with caplog.at_level(logging.INFO):
        batch = SnapshotThreads(tmp_path).refresh(ACME, None, None)
    assert batch.threads.is_empty() and batch.comments.is_empty()
    assert batch.threads.schema == pl.Schema(RAW_GITHUB_THREADS.schema) and batch.comments.schema == pl.Schema(RAW_GITHUB_COMMENTS.schema)
    assert "acme__rl.threads.jsonl.gz" in caplog.text


def test_a_missing_github_folder_is_an_error_naming_it(tmp_path):
    with pytest.raises(FileNotFoundError, match=str(tmp_path / "github")):
        SnapshotThreads(tmp_path).refresh(ACME, None, None)


def test_a_broken_line_names_file_and_line(tmp_path):
    write_threads(tmp_path, "acme__rl", [line(1), "{not json"])
    with pytest.raises(ValueError, match=r"acme__rl\.threads\.jsonl\.gz:2"):
        SnapshotThreads(tmp_path).refresh(ACME, None, None)


@pytest.mark.snapshots
def test_the_recorded_threads_of_the_seven_frameworks():
    source = SnapshotThreads(shared_snapshots())
    batches = {f.slug: source.refresh(f, None, None) for f in frameworks()}
    assert len(batches) == 7
    assert sum(b.threads.height for b in batches.values()) == recorded_counts(SHARED_SNAPSHOTS).threads
    for slug, batch in batches.items():
        threads, comments = batch.threads, batch.comments
        assert threads.height > 0, slug
        assert threads.schema == pl.Schema(RAW_GITHUB_THREADS.schema) and comments.schema == pl.Schema(RAW_GITHUB_COMMENTS.schema)
        assert threads["number"].n_unique() == threads.height, slug
        assert threads["framework"].unique().to_list() == [slug]
        assert set(threads["kind"]) <= {"issue", "pull_request"}
        assert set(threads["state"]) <= {"open", "closed", "merged"}
        assert comments["comment_id"].n_unique() == comments.height, slug
        assert set(comments["thread_number"]) <= set(threads["number"])
        assert threads["comment_count"].sum() == comments.height
        assert threads["html_url"].str.starts_with(f"https://github.com/{framework(slug).repo}/").all()
    all_comments = pl.concat([b.comments for b in batches.values()])
    assert all_comments.height > 0
    assert set(all_comments["kind"]) == {"comment", "review thread"}
    assert (all_comments["body_tokens"].list.len() > 0).any()


@pytest.mark.snapshots
def test_loading_twice_gives_identical_frames():
    for each in frameworks():
        first = SnapshotThreads(shared_snapshots()).refresh(each, None, None)
        again = SnapshotThreads(shared_snapshots()).refresh(each, None, None)
        assert first.threads.equals(again.threads) and first.comments.equals(again.comments), each.slug
