"""Source assets: what arXiv published and what each framework publishes, stored as received."""

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta

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
from assets.sources.frameworks import (
    CommitsFetch,
    StoredState,
    ThreadsFetch,
    fetch_commits,
    fetch_threads,
    stored_state,
    write_commits,
    write_threads,
)
from orchestration.clients.arxiv import ArxivFetch
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
ALL_RESULTS_RECEIVED = dg.AssetCheckSpec(
    ALL_RESULTS_RECEIVED_CHECK,
    asset="arxiv_entries",
    description="The harvest received every entry arXiv's feed counted for the window "
    "(opensearch:totalResults, summed over the queries): none missing from the pages.",
    blocking=True,
)

# The source assets are graphs of two or three ops, because Dagster's pools hold a slot
# for a whole op: the fetch runs outside the writer pool, so that a slow or stalled source
# never keeps the other writers waiting, and only the ops that touch the warehouse (the
# write; for a framework, also the read of its watermarks) take the slot. What a fetch
# received goes to the write through the IO manager (in memory under `dev.py run`).


def _window(context: dg.OpExecutionContext) -> tuple[date, date]:
    window = context.partition_time_window
    return window.start.date(), (window.end - timedelta(days=1)).date()


@dg.op(description="Ask arXiv for the window's entries, page by page (no warehouse, no writer slot).")
def fetch_arxiv_window(context: dg.OpExecutionContext, arxiv: ArxivSource) -> ArxivFetch:
    first_day, last_day = _window(context)
    context.log.info(f"arxiv_entries: fetching {first_day} .. {last_day}")
    return arxiv.client().fetch_window(first_day, last_day, context.log)


@dg.op(
    description="Replace the window's rows with what the fetch received, in one transaction (in the writer pool).",
    pool=WRITER_POOL,
    out={"result": dg.Out(dg.Nothing), ALL_RESULTS_RECEIVED.get_python_identifier(): dg.Out(dg.Nothing)},
)
def write_arxiv_window(context: dg.OpExecutionContext, warehouse: Warehouse, fetch: ArxivFetch) -> Iterator[object]:
    first_day, last_day = _window(context)
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
    yield dg.Output(
        None,
        "result",
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
            retries=fetch.retries,
            window=f"{first_day} .. {last_day}",
        ),
    )
    yield all_results_received_check(fetch.received, fetch.total_results)


@dg.graph_asset(
    group_name="sources",
    **catalog(RAW_ARXIV_ENTRIES),
    kinds={"python", "duckdb"},
    partitions_def=daily_partitions,
    backfill_policy=dg.BackfillPolicy.single_run(),
    check_specs=[ALL_RESULTS_RECEIVED],
)
def arxiv_entries():
    """arXiv submissions of the partition's days matching the screening query.

    A row is one version of one arXiv entry as fetched (`arxiv_id` without version,
    `version`), with `day`, the UTC day of its first version. A range backfill is one
    run; arXiv is asked for the whole window page by page (split in sub-ranges where it
    counts more than one query can page), outside the writer pool; the write alone takes
    its slot. Entries that cannot be parsed go to raw.quarantine with the raw text and
    the reason, and the stored version of their paper stays (see `arxiv_entries_write`).
    A page set that fails writes nothing.
    """
    result, received_every_entry = write_arxiv_window.alias("write")(fetch_arxiv_window.alias("fetch")())
    return {"result": result, ALL_RESULTS_RECEIVED.get_python_identifier(): received_every_entry}


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


FRAMEWORK_SPECS = [
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
]
#: The output name of each framework asset in the refresh's graph.
FRAMEWORK_OUTPUTS = {spec.key: spec.key.to_python_identifier() for spec in FRAMEWORK_SPECS}


@dataclass
class FrameworkFetch:
    """What one refresh fetched for the selected assets; a GitHub failure travels to the
    write, which stores the commits first and then fails with it."""

    commits: CommitsFetch | None = None
    threads: ThreadsFetch | None = None
    threads_error: Exception | None = None


@dg.op(description="Read the framework's watermarks and ETags (in the writer pool: DuckDB takes one process).", pool=WRITER_POOL)
def read_framework_state(context: dg.OpExecutionContext, warehouse: Warehouse) -> StoredState:
    with warehouse.connect() as conn:
        return stored_state(conn, context.partition_key)


@dg.op(description="Fetch the framework's new commits and documents (git), then its threads (GitHub); no writer slot.")
def fetch_framework_sources(
    context: dg.OpExecutionContext, framework_sources: FrameworkSources, state: StoredState
) -> FrameworkFetch:
    slug, selected = context.partition_key, context.selected_asset_keys
    fetched = FrameworkFetch()
    if selected & {FRAMEWORK_COMMITS, FRAMEWORK_DOCS}:
        fetched.commits = fetch_commits(framework_sources, slug, state, context.log)
    if selected & {FRAMEWORK_THREADS, FRAMEWORK_COMMENTS}:
        try:
            fetched.threads = fetch_threads(framework_sources, slug, state, context.log)
        except Exception as error:  # raised by the write, once the commits are stored
            if fetched.commits is None:
                raise
            fetched.threads_error = error
    return fetched


@dg.op(
    description="Store what the fetch received, in one transaction per source (in the writer pool).",
    pool=WRITER_POOL,
    out={name: dg.Out(dg.Nothing, is_required=False) for name in FRAMEWORK_OUTPUTS.values()},
)
def write_framework_sources(
    context: dg.OpExecutionContext, warehouse: Warehouse, state: StoredState, fetched: FrameworkFetch
) -> Iterator[dg.Output]:
    # One connection for both writes: attaching a DuckLake catalog costs about half a second.
    with warehouse.session():
        yield from _framework_source_outputs(context, warehouse, state, fetched)


def _framework_source_outputs(
    context: dg.OpExecutionContext, warehouse: Warehouse, state: StoredState, fetched: FrameworkFetch
) -> Iterator[dg.Output]:
    slug, selected = context.partition_key, context.selected_asset_keys
    if fetched.commits is not None:
        commits = write_commits(warehouse, slug, state, fetched.commits, context.log)
        batch = commits.batch
        if FRAMEWORK_COMMITS in selected:
            yield dg.Output(
                None,
                FRAMEWORK_OUTPUTS[FRAMEWORK_COMMITS],
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
            yield dg.Output(
                None,
                FRAMEWORK_OUTPUTS[FRAMEWORK_DOCS],
                metadata=table_metadata(commits.docs, ["path", "blob_sha", "fetched_at"]),
            )
    if fetched.threads_error is not None:
        raise fetched.threads_error
    if fetched.threads is not None:
        threads = write_threads(warehouse, slug, state, fetched.threads, context.log)
        requests = {
            "requests": threads.batch.requests,
            "retries": threads.batch.retries,
            "not_modified": threads.batch.not_modified,
            # received = updated threads + updated comments + older copies + quarantined
            "items_received": threads.batch.received,
            "items_quarantined": threads.batch.quarantine.height,
        }
        if FRAMEWORK_THREADS in selected:
            yield dg.Output(
                None,
                FRAMEWORK_OUTPUTS[FRAMEWORK_THREADS],
                metadata=table_metadata(
                    threads.batch.threads,
                    ["number", "kind", "state", "title"],
                    **{"dagster/row_count": threads.threads_stored},
                    updated_threads=threads.batch.threads.height,
                    **requests,
                ),
            )
        if FRAMEWORK_COMMENTS in selected:
            yield dg.Output(
                None,
                FRAMEWORK_OUTPUTS[FRAMEWORK_COMMENTS],
                metadata=table_metadata(
                    threads.batch.comments,
                    ["thread_number", "author", "created_at"],
                    **{"dagster/row_count": threads.comments_stored},
                    updated_comments=threads.batch.comments.height,
                    **requests,
                ),
            )


@dg.graph_multi_asset(
    outs={FRAMEWORK_OUTPUTS[spec.key]: dg.AssetOut.from_spec(spec) for spec in FRAMEWORK_SPECS},
    group_name="sources",
    partitions_def=framework_partitions,
    can_subset=True,
)
def framework_sources_refresh():
    """Everything one framework publishes, refreshed in one run: the commits and the
    contribution rules from git, then the issues, pull requests and comments from GitHub.

    Three ops: the watermarks are read (in the writer pool), the sources fetched (outside
    it: a slow git remote or GitHub never holds the slot), and what changed written (in
    the pool). Commits are stored (and reported) even when GitHub fails, so a GitHub
    outage does not lose the commits.
    """
    state = read_framework_state.alias("state")()
    return write_framework_sources.alias("write")(state, fetch_framework_sources.alias("fetch")(state))


@dataclass
class OpenAlexAsk:
    """The papers OpenAlex is to be asked about, and how many answers are cached."""

    missing: list[str]
    cached: int


@dataclass
class OpenAlexFetch:
    """What one lookup received (None when no API key is set), and how many requests it took."""

    works: pl.DataFrame | None
    requests: int
    skipped: int


@dg.op(
    description="Find the papers without any affiliation that OpenAlex was never asked about (in the writer pool).",
    ins={"papers": dg.In(dg.Nothing)},
    pool=WRITER_POOL,
)
def openalex_papers_to_ask(
    context: dg.OpExecutionContext, curation: Curation, warehouse: Warehouse, openalex: OpenAlexSource
) -> OpenAlexAsk:
    with warehouse.session():
        papers = warehouse.read_table(CORE_PAPERS, ["arxiv_id", "author_affiliations"])
        cached = warehouse.read_table(RAW_OPENALEX_WORKS, ["arxiv_id"])
    curated = override_affiliations(read_affiliation_overrides(curation.path("affiliations.csv")))
    wanted = papers_without_affiliations(
        papers, curated, arxiv_affiliations(papers), openalex.recorded_affiliations(context.log)
    )
    return OpenAlexAsk(sorted(set(wanted) - set(cached["arxiv_id"])), cached.height)


@dg.op(description="Ask OpenAlex about those papers (no warehouse, no writer slot).")
def fetch_openalex_works(context: dg.OpExecutionContext, openalex: OpenAlexSource, ask: OpenAlexAsk) -> OpenAlexFetch:
    lookup = openalex.lookup()
    if lookup is None:
        if ask.missing:
            context.log.info(
                f"openalex_works: OPENALEX_API_KEY is not set, so OpenAlex was skipped for {len(ask.missing)} papers "
                "without affiliations (their maintainer_company stays unknown)"
            )
        return OpenAlexFetch(None, 0, len(ask.missing))
    if not ask.missing:
        return OpenAlexFetch(None, 0, 0)
    try:
        works = lookup.works(ask.missing, context.log)
    finally:
        close = getattr(lookup, "close", None)
        if close:
            close()
    return OpenAlexFetch(works, getattr(lookup, "requests", works.height), 0)


@dg.op(description="Store the answers received, in one transaction (in the writer pool).", pool=WRITER_POOL)
def write_openalex_works(warehouse: Warehouse, ask: OpenAlexAsk, fetch: OpenAlexFetch) -> dg.Output:
    figures: dict[str, object] = {"openalex_cached": ask.cached, "openalex_requests": fetch.requests}
    with warehouse.session() as conn:
        if fetch.works is not None and fetch.works.height:
            upsert_rows(conn, RAW_OPENALEX_WORKS.name, fetch.works, ["arxiv_id"])
        cached = warehouse.read_table(RAW_OPENALEX_WORKS)
    if fetch.works is None:
        figures["openalex_skipped"] = fetch.skipped
    else:
        figures["openalex_fetched"] = fetch.works.height
    return dg.Output(None, metadata=table_metadata(cached, ["arxiv_id", "status", "fetched_at"], **figures))


@dg.graph_asset(
    group_name="sources",
    **catalog(RAW_OPENALEX_WORKS),
    kinds={"openalex", "duckdb"},
    ins={"papers": dg.AssetIn(dg.AssetKey("papers"), dagster_type=dg.Nothing)},
    automation_condition=derived_automation,
)
def openalex_works(papers):
    """One cached OpenAlex answer per arXiv id asked (HTTP status and the authorships as
    JSON), for the papers that overrides, arXiv and (in snapshot mode) the recorded
    affiliations leave without any affiliation. Each paper is asked once; without
    OPENALEX_API_KEY nothing is asked and the papers' maintainer company stays unknown.
    The lookup runs outside the writer pool; reading what to ask and writing the answers
    take its slot."""
    ask = openalex_papers_to_ask.alias("ask")(papers)
    return write_openalex_works.alias("write")(ask, fetch_openalex_works.alias("fetch")(ask))
