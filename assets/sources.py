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
ACCOUNTING_CHECK = "fetched_equals_stored_plus_quarantined"

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


@dg.asset(
    group_name="sources",
    kinds={"python", "duckdb"},
    partitions_def=daily_partitions,
    backfill_policy=dg.BackfillPolicy.single_run(),
    pool=WRITER_POOL,
    check_specs=[
        dg.AssetCheckSpec(
            ACCOUNTING_CHECK,
            asset="arxiv_entries",
            description="Every entry arXiv returned for the window is stored or quarantined: none is lost.",
            blocking=True,
        )
    ],
)
def arxiv_entries(context: dg.AssetExecutionContext, arxiv: ArxivSource, warehouse: Warehouse):
    """arXiv submissions of the partition's days matching the screening query.

    A row is one version of one arXiv entry as fetched (`arxiv_id` without version,
    `version`), with `day`, the UTC day of its first version. A range backfill asks
    arXiv once for the whole window, page by page. Entries that cannot be parsed go to
    raw.quarantine with the raw text and the reason.
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
                SliceWrite(ARXIV_ENTRIES_TABLE, rows, in_window, [first_day, last_day]),
                SliceWrite(
                    QUARANTINE_TABLE,
                    quarantined,
                    "source = 'arxiv' AND partition_day BETWEEN ? AND ?",
                    [first_day, last_day],
                ),
            ],
        )
        stored = conn.execute(f"SELECT count(*) FROM {ARXIV_ENTRIES_TABLE} WHERE {in_window}", [first_day, last_day]).fetchone()[0]
        kept_aside = conn.execute(
            f"SELECT count(*) FROM {QUARANTINE_TABLE} WHERE source = 'arxiv' AND partition_day BETWEEN ? AND ?",
            [first_day, last_day],
        ).fetchone()[0]
    context.log.info(
        f"arxiv_entries: {fetch.fetched} fetched in {fetch.pages} page(s), {stored} stored, "
        f"{kept_aside} quarantined, {fetch.outside_window} outside the window, {fetch.duplicates} duplicate(s)"
    )
    return dg.MaterializeResult(
        metadata=table_metadata(
            rows,
            ["arxiv_id", "version", "day", "title", "primary_category"],
            fetched=fetch.fetched,
            stored=stored,
            quarantined=kept_aside,
            outside_window=fetch.outside_window,
            duplicates=fetch.duplicates,
            pages=fetch.pages,
            requests=fetch.requests,
            window=f"{first_day} .. {last_day}",
        ),
        check_results=[accounting_check(fetch.fetched, stored, kept_aside)],
    )


def accounting_check(fetched: int, stored: int, quarantined: int) -> dg.AssetCheckResult:
    """Passes when every fetched entry of the window is stored or quarantined, once."""
    accounted = fetched == stored + quarantined
    return dg.AssetCheckResult(
        check_name=ACCOUNTING_CHECK,
        passed=accounted,
        severity=dg.AssetCheckSeverity.ERROR,
        metadata={"fetched": fetched, "stored": stored, "quarantined": quarantined},
        description=None
        if accounted
        else f"fetched {fetched} != stored {stored} + quarantined {quarantined}: entries were lost or duplicated",
    )
