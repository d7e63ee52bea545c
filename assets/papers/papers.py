"""Papers: one row per arXiv paper, the unit every later stage counts."""

import polars as pl

from orchestration.tables import CORE_PAPERS


def cohort_of(timestamp: pl.Expr) -> pl.Expr:
    """Calendar quarter (UTC) of a timestamp, as text like `2025-Q1`."""
    utc = timestamp.dt.convert_time_zone("UTC")
    return pl.format("{}-Q{}", utc.dt.year(), utc.dt.quarter())


def papers_from_entries(entries: pl.DataFrame) -> pl.DataFrame:
    """One row per arXiv id: the latest version's metadata, the first version's date, the cohort."""
    first_posted = entries.group_by("arxiv_id").agg(pl.col("published_at").min().alias("first_published_at"))
    latest = entries.sort(["arxiv_id", "version"]).unique("arxiv_id", keep="last", maintain_order=True)
    return (
        latest.join(first_posted, on="arxiv_id")
        .with_columns(published_at=pl.col("first_published_at"))
        .with_columns(cohort=cohort_of(pl.col("published_at")))
        .select(list(CORE_PAPERS.schema))
        .sort("published_at", "arxiv_id")
    )
