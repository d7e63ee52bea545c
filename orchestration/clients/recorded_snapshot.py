"""The whole recorded snapshot (the format of ../shared/snapshots) as frames, in one call:
for the benches and tests that work on the recorded data without a warehouse. The
pipeline itself reads the same files through the snapshot clients, one source at a time."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import polars as pl

from orchestration.clients.arxiv_feed import parse_feed
from orchestration.clients.commit_records import snapshot_commit_frames
from orchestration.clients.thread_records import snapshot_thread_frames
from orchestration.settings import frameworks


def recorded_frames(snapshot: Path) -> dict[str, pl.DataFrame]:
    """`entries` (arXiv entries of every month), `commits`, `files`, `threads` and
    `comments` (of every configured framework) of the snapshot folder."""
    commits, files, threads, comments = [], [], [], []
    for framework in frameworks():
        history = snapshot / "github" / f"{framework.snapshot_stem}.jsonl.gz"
        framework_commits, framework_files, _undated = snapshot_commit_frames(history, framework.slug)
        commits.append(framework_commits)
        files.append(framework_files)
        thread_file = snapshot / "github" / f"{framework.snapshot_stem}.threads.jsonl.gz"
        if thread_file.exists():
            with gzip.open(thread_file, "rt", encoding="utf-8") as handle:
                lines = [json.loads(line) for line in handle if line.strip()]
            framework_threads, framework_comments = snapshot_thread_frames(lines, framework.slug)
            threads.append(framework_threads)
            comments.append(framework_comments)
    entries = pl.concat(
        [parse_feed(path.read_bytes(), path.name).entries for path in sorted((snapshot / "arxiv").glob("*.xml"))]
    )
    return {
        "entries": entries,
        "commits": pl.concat(commits),
        "files": pl.concat(files),
        "threads": pl.concat(threads),
        "comments": pl.concat(comments),
    }
