"""The incremental refresh of one framework's sources: commits and contribution rules
from git, issues, pull requests and comments from GitHub, written only where something
changed (the wrappers are in assets/sources/assets.py).

Each half is a fetch, which only reads the sources, and a write, which only touches the
warehouse: the asset runs the fetches outside the writer pool and takes its slot only to
write. `refresh_commits` and `refresh_threads` do both in one go (benches, tests)."""

from dataclasses import dataclass, field
from datetime import UTC, datetime
from logging import Logger

import duckdb
import polars as pl

from orchestration.clients.commit_records import COMMITS_SOURCE
from orchestration.clients.git import CommitBatch
from orchestration.clients.github import ThreadBatch, watermark
from orchestration.clients.thread_records import COMMENTS_SOURCE, THREADS_SOURCE
from orchestration.resources import FrameworkSources
from orchestration.settings import framework
from orchestration.tables import (
    RAW_FRAMEWORK_DOCS,
    RAW_GIT_COMMIT_FILES,
    RAW_GIT_COMMITS,
    RAW_GITHUB_COMMENTS,
    RAW_GITHUB_THREADS,
    RAW_HTTP_CACHE,
    RAW_QUARANTINE,
    RAW_SOURCE_STATE,
)
from orchestration.warehouse import SliceWrite, Warehouse, write_slices

_FRAMEWORK_SLICE = "framework = ?"


def _keyed_slice(key: str, key_type: str) -> str:
    """The rows of one framework whose `key` is in a list parameter (the rows being upserted)."""
    return f"framework = ? AND list_contains(CAST(? AS {key_type}[]), {key})"


def quarantine_write(slug: str, sources: list[str], frame: pl.DataFrame, settled_refs: list[str] | None) -> SliceWrite:
    """The write of a framework's quarantined records of `sources` into raw.quarantine:
    in place of all of them (`settled_refs` None: the whole history was read), or of those
    whose key this refresh read again, readable or not (an item fixed since leaves)."""
    where = "framework = ? AND list_contains(CAST(? AS VARCHAR[]), source)"
    params: list[object] = [slug, sources]
    if settled_refs is not None:
        where += " AND list_contains(CAST(? AS VARCHAR[]), source_ref)"
        params.append(settled_refs)
    return SliceWrite(RAW_QUARANTINE.name, frame, where, params)


def _state_row(slug: str, source: str, value: str | None) -> pl.DataFrame:
    return pl.DataFrame(
        {"framework": [slug], "source": [source], "watermark": [value], "updated_at": [datetime.now(UTC)]},
        schema=RAW_SOURCE_STATE.schema,
    )


def _query(conn: duckdb.DuckDBPyConnection, sql: str, slug: str) -> list[tuple]:
    """Rows of `sql` (one `?`: the framework), none while its table does not exist yet."""
    try:
        return conn.execute(sql, [slug]).fetchall()
    except duckdb.CatalogException:
        return []


@dataclass
class StoredState:
    """What the warehouse holds for one framework before a refresh."""

    commits_watermark: str | None = None
    threads_updated_at: datetime | None = None
    comments_updated_at: datetime | None = None
    etags: dict[str, str] = field(default_factory=dict)
    docs: set[tuple[str, str]] = field(default_factory=set)
    commits: int = 0
    threads: int = 0
    comments: int = 0


def stored_state(conn: duckdb.DuckDBPyConnection, slug: str) -> StoredState:
    """Watermarks, validators and row counts of `slug`, read in one connection."""
    head = _query(conn, f"SELECT watermark FROM {RAW_SOURCE_STATE.name} WHERE framework = ? AND source = 'commits'", slug)
    threads = _query(conn, f"SELECT max(updated_at), count(*) FROM {RAW_GITHUB_THREADS.name} WHERE framework = ?", slug)
    comments = _query(conn, f"SELECT max(updated_at), count(*) FROM {RAW_GITHUB_COMMENTS.name} WHERE framework = ?", slug)
    commits = _query(conn, f"SELECT count(*) FROM {RAW_GIT_COMMITS.name} WHERE framework = ?", slug)
    return StoredState(
        commits_watermark=head[0][0] if head else None,
        threads_updated_at=threads[0][0] if threads else None,
        comments_updated_at=comments[0][0] if comments else None,
        etags=dict(_query(conn, f"SELECT url, etag FROM {RAW_HTTP_CACHE.name} WHERE framework = ?", slug)),
        docs=set(_query(conn, f"SELECT path, blob_sha FROM {RAW_FRAMEWORK_DOCS.name} WHERE framework = ?", slug)),
        commits=commits[0][0] if commits else 0,
        threads=threads[0][1] if threads else 0,
        comments=comments[0][1] if comments else 0,
    )


def _count(conn: duckdb.DuckDBPyConnection, table: str, slug: str) -> int:
    return conn.execute(f"SELECT count(*) FROM {table} WHERE framework = ?", [slug]).fetchone()[0]


@dataclass
class CommitsFetch:
    """What git (or the snapshot) gave for one framework: new commits and the documents."""

    batch: CommitBatch
    docs: pl.DataFrame


@dataclass
class CommitsRefresh:
    batch: CommitBatch
    docs: pl.DataFrame
    commits_stored: int
    wrote: bool


@dataclass
class ThreadsFetch:
    """What GitHub (or the snapshot) gave for one framework, and the validators it left."""

    batch: ThreadBatch
    etags: dict[str, str]


@dataclass
class ThreadsRefresh:
    batch: ThreadBatch
    threads_stored: int
    comments_stored: int
    wrote: bool


def fetch_commits(framework_sources: FrameworkSources, slug: str, state: StoredState, log: Logger) -> CommitsFetch:
    """The commits of `slug` not reachable from the stored watermark, and its contribution documents."""
    source = framework_sources.commits()
    batch = source.refresh(framework(slug), state.commits_watermark, log)
    return CommitsFetch(batch, source.contribution_docs(framework(slug)))


def write_commits(warehouse: Warehouse, slug: str, state: StoredState, fetched: CommitsFetch, log: Logger) -> CommitsRefresh:
    """Store the fetched commits of `slug` and its contribution documents.

    Nothing is written when the watermark is the stored one (the head; for a snapshot,
    the head and the file's digest) and the documents are unchanged: a refresh with
    nothing new costs one read.
    """
    batch, docs = fetched.batch, fetched.docs
    commits_unchanged = not batch.full_rescan and batch.commits.is_empty() and batch.watermark == state.commits_watermark
    docs_unchanged = set(docs.select("path", "blob_sha").iter_rows()) == state.docs and state.commits_watermark is not None
    stored = state.commits
    if not (commits_unchanged and docs_unchanged):
        if batch.full_rescan:
            where, params = _FRAMEWORK_SLICE, [slug]
        else:
            where, params = _keyed_slice("sha", "VARCHAR"), [slug, batch.commits["sha"].to_list()]
        writes = [SliceWrite(RAW_FRAMEWORK_DOCS.name, docs, _FRAMEWORK_SLICE, [slug])]
        if not commits_unchanged:
            writes[:0] = [
                SliceWrite(RAW_GIT_COMMITS.name, batch.commits, where, params),
                SliceWrite(RAW_GIT_COMMIT_FILES.name, batch.files, where, params),
                # New commits are new keys: an incremental refresh adds its quarantined ones.
                quarantine_write(
                    slug,
                    [COMMITS_SOURCE],
                    batch.quarantine,
                    None if batch.full_rescan else batch.quarantine["source_ref"].to_list(),
                ),
                SliceWrite(
                    RAW_SOURCE_STATE.name, _state_row(slug, "commits", batch.watermark), "framework = ? AND source = 'commits'", [slug]
                ),
            ]
        with warehouse.connect() as conn:
            write_slices(conn, writes)
            stored = _count(conn, RAW_GIT_COMMITS.name, slug)
    log.info(
        f"framework_commits[{slug}]: {batch.commits.height} new commit(s), {batch.files.height} file row(s), "
        f"{batch.quarantine.height} quarantined, "
        f"{'full rescan' if batch.full_rescan else 'incremental'}, {stored} stored in all; "
        f"{docs.height} contribution document(s)"
    )
    return CommitsRefresh(batch, docs, stored, wrote=not (commits_unchanged and docs_unchanged))


def refresh_commits(
    framework_sources: FrameworkSources, warehouse: Warehouse, slug: str, state: StoredState, log: Logger
) -> CommitsRefresh:
    """`fetch_commits`, then `write_commits`."""
    return write_commits(warehouse, slug, state, fetch_commits(framework_sources, slug, state, log), log)


def fetch_threads(framework_sources: FrameworkSources, slug: str, state: StoredState, log: Logger) -> ThreadsFetch:
    """The threads and comments of `slug` updated since the stored watermarks, asked with
    the stored ETags (an unchanged framework costs 304s)."""
    etags = dict(state.etags)
    batch = framework_sources.threads(etags).refresh(
        framework(slug), watermark(state.threads_updated_at), watermark(state.comments_updated_at), log
    )
    return ThreadsFetch(batch, etags)


def write_threads(warehouse: Warehouse, slug: str, state: StoredState, fetched: ThreadsFetch, log: Logger) -> ThreadsRefresh:
    """Upsert the fetched threads and comments of `slug`; nothing is written when nothing changed."""
    batch, etags = fetched.batch, fetched.etags
    unchanged = (
        not batch.complete_history
        and batch.threads.is_empty()
        and batch.comments.is_empty()
        and batch.quarantine.is_empty()
        and etags == state.etags
    )
    threads_stored, comments_stored = state.threads, state.comments
    if not unchanged:
        if batch.complete_history:
            thread_slice, thread_params = _FRAMEWORK_SLICE, [slug]
            comment_slice, comment_params = _FRAMEWORK_SLICE, [slug]
        else:
            thread_slice, thread_params = _keyed_slice("number", "BIGINT"), [slug, batch.threads["number"].to_list()]
            comment_slice = _keyed_slice("comment_id", "BIGINT")
            comment_params = [slug, batch.comments["comment_id"].to_list()]
        cache = pl.DataFrame(
            {"framework": [slug] * len(etags), "url": list(etags), "etag": list(etags.values())},
            schema=RAW_HTTP_CACHE.schema,
        )
        with warehouse.connect() as conn:
            write_slices(
                conn,
                [
                    SliceWrite(RAW_GITHUB_THREADS.name, batch.threads, thread_slice, thread_params),
                    SliceWrite(RAW_GITHUB_COMMENTS.name, batch.comments, comment_slice, comment_params),
                    SliceWrite(RAW_HTTP_CACHE.name, cache, _FRAMEWORK_SLICE, [slug]),
                    quarantine_write(
                        slug,
                        [THREADS_SOURCE, COMMENTS_SOURCE],
                        batch.quarantine,
                        None if batch.complete_history else batch.settled_refs,
                    ),
                ],
            )
            threads_stored, comments_stored = _count(conn, RAW_GITHUB_THREADS.name, slug), _count(conn, RAW_GITHUB_COMMENTS.name, slug)
    log.info(
        f"framework_threads[{slug}]: {batch.threads.height} thread(s), {batch.comments.height} comment(s), "
        f"{batch.quarantine.height} quarantined, of {batch.received} item(s) received "
        f"in {batch.requests} request(s) ({batch.not_modified} not modified), "
        f"{threads_stored} thread(s) and {comments_stored} comment(s) stored in all"
    )
    return ThreadsRefresh(batch, threads_stored, comments_stored, wrote=not unchanged)


def refresh_threads(
    framework_sources: FrameworkSources, warehouse: Warehouse, slug: str, state: StoredState, log: Logger
) -> ThreadsRefresh:
    """`fetch_threads`, then `write_threads`."""
    return write_threads(warehouse, slug, state, fetch_threads(framework_sources, slug, state, log), log)
