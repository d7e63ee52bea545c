"""Source assets: what arXiv published and what each framework publishes, stored as received."""

from collections.abc import Iterator
from datetime import timedelta

import dagster as dg
import polars as pl

from assets.papers.affiliations import (
    arxiv_affiliations,
    override_affiliations,
    papers_without_affiliations,
    read_affiliation_overrides,
)
from assets.preview import table_metadata
from assets.sources.arxiv import arxiv_entries_write, arxiv_entry_rows, quarantine_rows
from assets.sources.frameworks import refresh_commits, refresh_threads, stored_state
from orchestration.jobs import derived_automation
from orchestration.partitions import daily_partitions, framework_partitions
from orchestration.resources import ArxivSource, Curation, FrameworkSources, OpenAlexSource
from orchestration.tables import (
    CORE_PAPERS,
    RAW_ARXIV_ENTRIES,
    RAW_FRAMEWORK_DOCS,
    RAW_GIT_COMMITS,
    RAW_GITHUB_COMMENTS,
    RAW_GITHUB_THREADS,
    RAW_OPENALEX_WORKS,
    RAW_QUARANTINE,
    catalog,
)
from orchestration.warehouse import WRITER_POOL, SliceWrite, Warehouse, upsert_rows, write_slices


ALL_RESULTS_RECEIVED_CHECK = "received_every_entry_arxiv_counted"


@dg.asset(
    group_name="sources",
    **catalog(RAW_ARXIV_ENTRIES),
    kinds={"python", "duckdb"},
    partitions_def=daily_partitions,
    backfill_policy=dg.BackfillPolicy.single_run(),
    pool=WRITER_POOL,
    check_specs=[
        dg.AssetCheckSpec(
            ALL_RESULTS_RECEIVED_CHECK,
            asset="arxiv_entries",
            description="The harvest received every entry arXiv's feed counted for the window "
            "(opensearch:totalResults, summed over the queries): none missing from the pages.",
            blocking=True,
        )
    ],
)
def arxiv_entries(context: dg.AssetExecutionContext, arxiv: ArxivSource, warehouse: Warehouse):
    """arXiv submissions of the partition's days matching the screening query.

    A row is one version of one arXiv entry as fetched (`arxiv_id` without version,
    `version`), with `day`, the UTC day of its first version. A range backfill is one
    run; arXiv is asked for the whole window page by page (split in sub-ranges where it
    counts more than one query can page). Entries that cannot be parsed go to
    raw.quarantine with the raw text and the reason, and the stored version of their
    paper stays (see `arxiv_entries_write`). A page set that fails writes nothing.
    """
    window = context.partition_time_window
    first_day, last_day = window.start.date(), (window.end - timedelta(days=1)).date()
    context.log.info(f"arxiv_entries: fetching {first_day} .. {last_day}")
    fetch = arxiv.client().fetch_window(first_day, last_day, context.log)

    rows = arxiv_entry_rows(fetch.entries)
    quarantined = quarantine_rows(fetch.quarantine, first_day)
    in_window = "day BETWEEN ? AND ?"
    with warehouse.connect() as conn:
        write_slices(
            conn,
            [
                arxiv_entries_write(rows, quarantined, first_day, last_day, complete=fetch.complete),
                SliceWrite(
                    RAW_QUARANTINE.name,
                    quarantined,
                    "source = 'arxiv' AND partition_day BETWEEN ? AND ?",
                    [first_day, last_day],
                ),
            ],
        )
        stored = conn.execute(f"SELECT count(*) FROM {RAW_ARXIV_ENTRIES.name} WHERE {in_window}", [first_day, last_day]).fetchone()[0]
    kept = stored - rows.height
    context.log.info(
        f"arxiv_entries: {fetch.received} received of {fetch.total_results} counted by arXiv, in "
        f"{fetch.pages} page(s) over {fetch.queries} sub-range(s); {rows.height} stored, {kept} kept from before, "
        f"{quarantined.height} quarantined, {fetch.outside_window} outside the window, {fetch.duplicates} duplicate(s)"
    )
    return dg.MaterializeResult(
        metadata=table_metadata(
            rows,
            ["arxiv_id", "version", "day", "title", "primary_category"],
            received=fetch.received,
            total_results=fetch.total_results,
            fetched=fetch.fetched,
            stored=stored,
            kept=kept,
            quarantined=quarantined.height,
            outside_window=fetch.outside_window,
            duplicates=fetch.duplicates,
            pages=fetch.pages,
            queries=fetch.queries,
            requests=fetch.requests,
            window=f"{first_day} .. {last_day}",
        ),
        check_results=[all_results_received_check(fetch.received, fetch.total_results)],
    )


def all_results_received_check(received: int, total_results: int) -> dg.AssetCheckResult:
    """Passes when the harvest received at least as many distinct entries as arXiv counted."""
    passed = received >= total_results
    return dg.AssetCheckResult(
        check_name=ALL_RESULTS_RECEIVED_CHECK,
        passed=passed,
        severity=dg.AssetCheckSeverity.ERROR,
        metadata={"received": received, "total_results": total_results},
        description=None
        if passed
        else f"received {received} of the {total_results} entries arXiv counted (opensearch:totalResults): "
        f"{total_results - received} missing; stored rows this harvest lacks were kept. Materialize the window again",
    )


FRAMEWORK_COMMITS = dg.AssetKey("framework_commits")
FRAMEWORK_DOCS = dg.AssetKey("framework_docs")
FRAMEWORK_THREADS = dg.AssetKey("framework_threads")
FRAMEWORK_COMMENTS = dg.AssetKey("framework_comments")


@dg.multi_asset(
    specs=[
        dg.AssetSpec(
            FRAMEWORK_COMMITS,
            group_name="sources",
            **catalog(RAW_GIT_COMMITS),
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
            **catalog(RAW_FRAMEWORK_DOCS),
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
            **catalog(RAW_GITHUB_THREADS),
            kinds={"github", "duckdb"},
            skippable=True,
            description="Issues and pull requests of the framework (raw.github_threads: one row per thread).",
        ),
        dg.AssetSpec(
            FRAMEWORK_COMMENTS,
            group_name="sources",
            **catalog(RAW_GITHUB_COMMENTS),
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
                    new_commits_quarantined=batch.quarantine.height,
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
        requests = {
            "requests": threads.batch.requests,
            "not_modified": threads.batch.not_modified,
            # received = updated threads + updated comments + older copies + quarantined
            "items_received": threads.batch.received,
            "items_quarantined": threads.batch.quarantine.height,
        }
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


@dg.asset(
    group_name="sources",
    **catalog(RAW_OPENALEX_WORKS),
    kinds={"openalex", "duckdb"},
    deps=[dg.AssetKey("papers")],
    pool=WRITER_POOL,
    automation_condition=derived_automation,
)
def openalex_works(
    context: dg.AssetExecutionContext, curation: Curation, warehouse: Warehouse, openalex: OpenAlexSource
) -> dg.MaterializeResult:
    """One cached OpenAlex answer per arXiv id asked (HTTP status and the authorships as
    JSON), for the papers that overrides, arXiv and (in snapshot mode) the recorded
    affiliations leave without any affiliation. Each paper is asked once; without
    OPENALEX_API_KEY nothing is asked and the papers' maintainer company stays unknown."""
    papers = warehouse.read_table(CORE_PAPERS, ["arxiv_id", "author_affiliations"])
    curated = override_affiliations(read_affiliation_overrides(curation.path("affiliations.csv")))
    wanted = papers_without_affiliations(
        papers, curated, arxiv_affiliations(papers), openalex.recorded_affiliations(context.log)
    )
    cached = warehouse.read_table(RAW_OPENALEX_WORKS)
    missing = sorted(set(wanted) - set(cached["arxiv_id"]))
    figures: dict[str, object] = {"openalex_cached": cached.height, "openalex_requests": 0}
    lookup = openalex.lookup()
    if lookup is None:
        if missing:
            context.log.info(
                f"openalex_works: OPENALEX_API_KEY is not set, so OpenAlex was skipped for {len(missing)} papers "
                "without affiliations (their maintainer_company stays unknown)"
            )
        figures["openalex_skipped"] = len(missing)
    elif missing:
        try:
            fetched = lookup.works(missing, context.log)
        finally:
            close = getattr(lookup, "close", None)
            if close:
                close()
        if fetched.height:
            with warehouse.connect() as conn:
                upsert_rows(conn, RAW_OPENALEX_WORKS.name, fetched, ["arxiv_id"])
            cached = pl.concat([cached.filter(~pl.col("arxiv_id").is_in(fetched["arxiv_id"].implode())), fetched])
        figures["openalex_requests"] = getattr(lookup, "requests", fetched.height)
        figures["openalex_fetched"] = fetched.height
    return dg.MaterializeResult(metadata=table_metadata(cached, ["arxiv_id", "status", "fetched_at"], **figures))
