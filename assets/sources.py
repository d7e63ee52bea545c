"""Source assets: what arXiv published, stored as received."""

import warnings
from datetime import date, timedelta

import dagster as dg
import polars as pl

from assets.arxiv_feed import ENTRY_SCHEMA, QUARANTINE_SCHEMA
from assets.preview import table_metadata
from orchestration.partitions import daily_partitions
from orchestration.resources import ArxivSource
from orchestration.warehouse import WRITER_POOL, SliceWrite, Warehouse, write_slices

# A range backfill must be one run (one paged query to arXiv); Dagster still labels the
# parameter beta, and that notice would otherwise print on every load of the code location.
warnings.filterwarnings("ignore", message=r"Parameter `backfill_policy`", category=dg.BetaWarning)

ARXIV_ENTRIES_TABLE = "raw.arxiv_entries"
QUARANTINE_TABLE = "raw.quarantine"
ALL_RESULTS_RECEIVED_CHECK = "received_every_entry_arxiv_counted"

ARXIV_ENTRY_ROW_SCHEMA = {**ENTRY_SCHEMA, "day": pl.Date}
QUARANTINE_ROW_SCHEMA = {**QUARANTINE_SCHEMA, "partition_day": pl.Date}


def arxiv_entry_rows(entries: pl.DataFrame) -> pl.DataFrame:
    """Entries as stored in raw.arxiv_entries: one row per entry version, with its partition day."""
    return entries.with_columns(day=pl.col("published_at").dt.date()).select(
        list(ARXIV_ENTRY_ROW_SCHEMA)
    )


def quarantine_rows(quarantine: pl.DataFrame, window_first_day: date) -> pl.DataFrame:
    """Quarantined entries with the partition they belong to (the window's first day when undated)."""
    return quarantine.with_columns(
        partition_day=pl.coalesce(pl.col("published_day"), pl.lit(window_first_day, dtype=pl.Date))
    ).select(list(QUARANTINE_ROW_SCHEMA))


def arxiv_entries_write(
    rows: pl.DataFrame, quarantined: pl.DataFrame, first_day: date, last_day: date, *, complete: bool
) -> SliceWrite:
    """The write of a window's rows into raw.arxiv_entries: which stored rows they replace.

    A harvest never deletes a stored paper because of a record it could not read:
    - the page set is complete (every entry arXiv counted arrived) and every quarantined
      entry's id can be read: the window's stored rows are replaced, except those of the
      papers whose new entry was quarantined (and arrived in no readable form): their
      stored version is kept as it was;
    - otherwise (an entry whose id cannot be read, or fewer entries than totalResults):
      only the stored rows of the papers that arrived are replaced, and every other stored
      row of the window is kept, since any of them may be the unreadable or missing entry.
      A paper arXiv really dropped goes at the next complete, readable harvest.
    """
    window = "day BETWEEN ? AND ?"
    unidentified = quarantined["arxiv_id"].null_count() > 0
    if complete and not unidentified:
        kept = quarantined.filter(~pl.col("arxiv_id").is_in(rows["arxiv_id"].implode()))["arxiv_id"].unique()
        where, ids = f"{window} AND arxiv_id NOT IN (SELECT unnest(?::VARCHAR[]))", kept
    else:
        where, ids = f"{window} AND arxiv_id IN (SELECT unnest(?::VARCHAR[]))", rows["arxiv_id"].unique()
    return SliceWrite(ARXIV_ENTRIES_TABLE, rows, where, [first_day, last_day, ids.sort().to_list()])


@dg.asset(
    group_name="sources",
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
                    QUARANTINE_TABLE,
                    quarantined,
                    "source = 'arxiv' AND partition_day BETWEEN ? AND ?",
                    [first_day, last_day],
                ),
            ],
        )
        stored = conn.execute(f"SELECT count(*) FROM {ARXIV_ENTRIES_TABLE} WHERE {in_window}", [first_day, last_day]).fetchone()[0]
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
