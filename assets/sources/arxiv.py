"""The rows of arXiv's answer as the warehouse stores them, and which stored rows a harvest replaces."""

from datetime import date

import polars as pl

from orchestration.tables import RAW_ARXIV_ENTRIES, RAW_QUARANTINE
from orchestration.warehouse import SliceWrite


def arxiv_entry_rows(entries: pl.DataFrame) -> pl.DataFrame:
    """Entries as stored in raw.arxiv_entries: one row per entry version, with its partition day."""
    return entries.with_columns(day=pl.col("published_at").dt.date()).select(
        list(RAW_ARXIV_ENTRIES.schema)
    )


def quarantine_rows(quarantine: pl.DataFrame, window_first_day: date) -> pl.DataFrame:
    """Quarantined entries with the partition they belong to (the window's first day when undated)."""
    return quarantine.with_columns(
        partition_day=pl.coalesce(pl.col("published_day"), pl.lit(window_first_day, dtype=pl.Date))
    ).select(list(RAW_QUARANTINE.schema))


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
    return SliceWrite(RAW_ARXIV_ENTRIES.name, rows, where, [first_day, last_day, ids.sort().to_list()])
