"""Framework sources: commits, issues and pull requests, comments and contribution rules
of the seven frameworks, one static partition per framework, refreshed incrementally."""

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from logging import Logger

import dagster as dg
import duckdb
import polars as pl

from assets.preview import table_metadata
from orchestration.clients.git import CommitBatch
from orchestration.clients.github import ThreadBatch, watermark
from orchestration.partitions import framework_partitions
from orchestration.resources import FrameworkSources
from orchestration.settings import framework
from orchestration.warehouse import WRITER_POOL, SliceWrite, Warehouse, write_slices

COMMITS_TABLE = "raw.git_commits"
COMMIT_FILES_TABLE = "raw.git_commit_files"
THREADS_TABLE = "raw.github_threads"
COMMENTS_TABLE = "raw.github_comments"
DOCS_TABLE = "raw.framework_docs"
STATE_TABLE = "raw.source_state"
HTTP_CACHE_TABLE = "raw.http_cache"

STATE_SCHEMA = {"framework": pl.Utf8, "source": pl.Utf8, "watermark": pl.Utf8, "updated_at": pl.Datetime("us", "UTC")}
HTTP_CACHE_SCHEMA = {"framework": pl.Utf8, "url": pl.Utf8, "etag": pl.Utf8}

_FRAMEWORK_SLICE = "framework = ?"


def _keyed_slice(key: str, key_type: str) -> str:
    """The rows of one framework whose `key` is in a list parameter (the rows being upserted)."""
    return f"framework = ? AND list_contains(CAST(? AS {key_type}[]), {key})"


def _state_row(slug: str, source: str, value: str | None) -> pl.DataFrame:
    return pl.DataFrame(
        {"framework": [slug], "source": [source], "watermark": [value], "updated_at": [datetime.now(UTC)]},
        schema=STATE_SCHEMA,
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
    head = _query(conn, f"SELECT watermark FROM {STATE_TABLE} WHERE framework = ? AND source = 'commits'", slug)
    threads = _query(conn, f"SELECT max(updated_at), count(*) FROM {THREADS_TABLE} WHERE framework = ?", slug)
    comments = _query(conn, f"SELECT max(updated_at), count(*) FROM {COMMENTS_TABLE} WHERE framework = ?", slug)
    commits = _query(conn, f"SELECT count(*) FROM {COMMITS_TABLE} WHERE framework = ?", slug)
    return StoredState(
        commits_watermark=head[0][0] if head else None,
        threads_updated_at=threads[0][0] if threads else None,
        comments_updated_at=comments[0][0] if comments else None,
        etags=dict(_query(conn, f"SELECT url, etag FROM {HTTP_CACHE_TABLE} WHERE framework = ?", slug)),
        docs=set(_query(conn, f"SELECT path, blob_sha FROM {DOCS_TABLE} WHERE framework = ?", slug)),
        commits=commits[0][0] if commits else 0,
        threads=threads[0][1] if threads else 0,
        comments=comments[0][1] if comments else 0,
    )


def _count(conn: duckdb.DuckDBPyConnection, table: str, slug: str) -> int:
    return conn.execute(f"SELECT count(*) FROM {table} WHERE framework = ?", [slug]).fetchone()[0]


@dataclass
class CommitsRefresh:
    batch: CommitBatch
    docs: pl.DataFrame
    commits_stored: int
    wrote: bool


@dataclass
class ThreadsRefresh:
    batch: ThreadBatch
    threads_stored: int
    comments_stored: int
    wrote: bool


def refresh_commits(
    framework_sources: FrameworkSources, warehouse: Warehouse, slug: str, state: StoredState, log: Logger
) -> CommitsRefresh:
    """Store the commits of `slug` not stored yet, and its contribution documents.

    Nothing is written (and the warehouse is not opened) when the watermark is the stored
    one (the head; for a snapshot, the head and the file's digest) and the documents are
    unchanged: a refresh with nothing new costs one read.
    """
    source = framework_sources.commits()
    batch = source.refresh(framework(slug), state.commits_watermark, log)
    docs = source.contribution_docs(framework(slug))
    commits_unchanged = not batch.full_rescan and batch.commits.is_empty() and batch.watermark == state.commits_watermark
    docs_unchanged = set(docs.select("path", "blob_sha").iter_rows()) == state.docs and state.commits_watermark is not None
    stored = state.commits
    if not (commits_unchanged and docs_unchanged):
        if batch.full_rescan:
            where, params = _FRAMEWORK_SLICE, [slug]
        else:
            where, params = _keyed_slice("sha", "VARCHAR"), [slug, batch.commits["sha"].to_list()]
        writes = [SliceWrite(DOCS_TABLE, docs, _FRAMEWORK_SLICE, [slug])]
        if not commits_unchanged:
            writes[:0] = [
                SliceWrite(COMMITS_TABLE, batch.commits, where, params),
                SliceWrite(COMMIT_FILES_TABLE, batch.files, where, params),
                SliceWrite(
                    STATE_TABLE, _state_row(slug, "commits", batch.watermark), "framework = ? AND source = 'commits'", [slug]
                ),
            ]
        with warehouse.connect() as conn:
            write_slices(conn, writes)
            stored = _count(conn, COMMITS_TABLE, slug)
    log.info(
        f"framework_commits[{slug}]: {batch.commits.height} new commit(s), {batch.files.height} file row(s), "
        f"{'full rescan' if batch.full_rescan else 'incremental'}, {stored} stored in all; "
        f"{docs.height} contribution document(s)"
    )
    return CommitsRefresh(batch, docs, stored, wrote=not (commits_unchanged and docs_unchanged))


def refresh_threads(
    framework_sources: FrameworkSources, warehouse: Warehouse, slug: str, state: StoredState, log: Logger
) -> ThreadsRefresh:
    """Upsert the threads and comments of `slug` updated since the stored watermarks.

    The stored ETags make an unchanged framework cost 304s; nothing is then written.
    """
    etags = dict(state.etags)
    batch = framework_sources.threads(etags).refresh(
        framework(slug), watermark(state.threads_updated_at), watermark(state.comments_updated_at), log
    )
    unchanged = (
        not batch.complete_history and batch.threads.is_empty() and batch.comments.is_empty() and etags == state.etags
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
            schema=HTTP_CACHE_SCHEMA,
        )
        with warehouse.connect() as conn:
            write_slices(
                conn,
                [
                    SliceWrite(THREADS_TABLE, batch.threads, thread_slice, thread_params),
                    SliceWrite(COMMENTS_TABLE, batch.comments, comment_slice, comment_params),
                    SliceWrite(HTTP_CACHE_TABLE, cache, _FRAMEWORK_SLICE, [slug]),
                ],
            )
            threads_stored, comments_stored = _count(conn, THREADS_TABLE, slug), _count(conn, COMMENTS_TABLE, slug)
    log.info(
        f"framework_threads[{slug}]: {batch.threads.height} thread(s), {batch.comments.height} comment(s) "
        f"in {batch.requests} request(s) ({batch.not_modified} not modified), "
        f"{threads_stored} thread(s) and {comments_stored} comment(s) stored in all"
    )
    return ThreadsRefresh(batch, threads_stored, comments_stored, wrote=not unchanged)


FRAMEWORK_COMMITS = dg.AssetKey("framework_commits")
FRAMEWORK_DOCS = dg.AssetKey("framework_docs")
FRAMEWORK_THREADS = dg.AssetKey("framework_threads")
FRAMEWORK_COMMENTS = dg.AssetKey("framework_comments")


@dg.multi_asset(
    specs=[
        dg.AssetSpec(
            FRAMEWORK_COMMITS,
            group_name="sources",
            kinds={"git", "duckdb"},
            skippable=True,
            description=(
                "Commits of the framework's default branch (raw.git_commits: one row per commit) and the "
                "files each changed against its first parent (raw.git_commit_files: one row per commit and "
                "path, with the added text and the added identifier tokens). Incremental: only commits not "
                "reachable from the last refresh's head are parsed; a head that is no longer reachable "
                "(a force-push) rescans and replaces the framework."
            ),
        ),
        dg.AssetSpec(
            FRAMEWORK_DOCS,
            group_name="sources",
            kinds={"git", "duckdb"},
            skippable=True,
            description=(
                "The framework's contribution rules, templates, governance and code owners "
                "(raw.framework_docs: one row per document path, as configured in frameworks.toml), read at the "
                "default branch's head from the mirror, or from the snapshot's docs/, for the tracker to list."
            ),
        ),
        dg.AssetSpec(
            FRAMEWORK_THREADS,
            group_name="sources",
            kinds={"github", "duckdb"},
            skippable=True,
            description="Issues and pull requests of the framework (raw.github_threads: one row per thread).",
        ),
        dg.AssetSpec(
            FRAMEWORK_COMMENTS,
            group_name="sources",
            kinds={"github", "duckdb"},
            skippable=True,
            description="Comments on the framework's issues and pull requests (raw.github_comments: one row per comment).",
        ),
    ],
    partitions_def=framework_partitions,
    pool=WRITER_POOL,
    can_subset=True,
)
def framework_sources_refresh(
    context: dg.AssetExecutionContext, framework_sources: FrameworkSources, warehouse: Warehouse
) -> Iterator[dg.MaterializeResult]:
    """Everything one framework publishes, refreshed in one step: the commits and the
    contribution rules from git, then the issues, pull requests and comments from GitHub.

    One step rather than four, because a refresh with nothing new is mostly the cost of
    starting a step and opening the warehouse. The warehouse is read once, and held open
    only while writing, never during a download. Commits are stored (and reported) before
    GitHub is asked, so a GitHub outage does not lose the commits.
    """
    slug = context.partition_key
    selected = context.selected_asset_keys
    with warehouse.connect() as conn:
        state = stored_state(conn, slug)
    if selected & {FRAMEWORK_COMMITS, FRAMEWORK_DOCS}:
        commits = refresh_commits(framework_sources, warehouse, slug, state, context.log)
        batch = commits.batch
        if FRAMEWORK_COMMITS in selected:
            yield dg.MaterializeResult(
                asset_key=FRAMEWORK_COMMITS,
                metadata=table_metadata(
                    batch.commits,
                    ["sha", "committed_at", "author", "message"],
                    **{"dagster/row_count": commits.commits_stored},
                    new_commits=batch.commits.height,
                    new_file_rows=batch.files.height,
                    full_rescan=batch.full_rescan,
                    head=batch.head or "",
                ),
            )
        if FRAMEWORK_DOCS in selected:
            yield dg.MaterializeResult(
                asset_key=FRAMEWORK_DOCS, metadata=table_metadata(commits.docs, ["path", "blob_sha", "fetched_at"])
            )
    if selected & {FRAMEWORK_THREADS, FRAMEWORK_COMMENTS}:
        threads = refresh_threads(framework_sources, warehouse, slug, state, context.log)
        requests = {"requests": threads.batch.requests, "not_modified": threads.batch.not_modified}
        if FRAMEWORK_THREADS in selected:
            yield dg.MaterializeResult(
                asset_key=FRAMEWORK_THREADS,
                metadata=table_metadata(
                    threads.batch.threads,
                    ["number", "kind", "state", "title"],
                    **{"dagster/row_count": threads.threads_stored},
                    updated_threads=threads.batch.threads.height,
                    **requests,
                ),
            )
        if FRAMEWORK_COMMENTS in selected:
            yield dg.MaterializeResult(
                asset_key=FRAMEWORK_COMMENTS,
                metadata=table_metadata(
                    threads.batch.comments,
                    ["thread_number", "author", "created_at"],
                    **{"dagster/row_count": threads.comments_stored},
                    updated_comments=threads.batch.comments.height,
                    **requests,
                ),
            )
