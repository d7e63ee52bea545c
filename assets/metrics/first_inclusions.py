"""metrics.first_inclusions: for each included method, which framework included it first
and in what order the others followed.

One row per (paper, framework) included by the as-of date:

| column | meaning |
|---|---|
| `arxiv_id` | the paper |
| `framework` | a framework that included it |
| `rank` | 1 for the first framework; frameworks including it at the same instant share a rank (the next rank skips, as in a race) |
| `frameworks` | how many frameworks included the paper |
| `included_at` | the including commit's time, UTC |
| `lag_days` | `included_at` minus the paper's v1, in days (negative: before v1) |
| `days_after_first` | `included_at` minus the paper's first inclusion anywhere, in days |
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import polars as pl

from assets.links.evidence import UTC_TIME
from assets.metrics.windows import days_between, in_utc, utc_as_of
from orchestration.tables import METRICS_FIRST_INCLUSIONS

FIRST_INCLUSION_SCHEMA = METRICS_FIRST_INCLUSIONS.schema


def first_inclusions(inclusions: pl.DataFrame, as_of: datetime, frameworks: Sequence[str]) -> pl.DataFrame:
    """metrics.first_inclusions (FIRST_INCLUSION_SCHEMA; see the module docstring)."""
    by_paper = pl.col("arxiv_id")
    return (
        in_utc(inclusions, "included_at")
        .filter(
            pl.col("framework").is_in(list(frameworks))
            & (pl.col("included_at") <= pl.lit(utc_as_of(as_of), UTC_TIME))
        )
        .with_columns(
            rank=pl.col("included_at").rank("min").over(by_paper),
            frameworks=pl.len().over(by_paper),
            days_after_first=days_between(pl.col("included_at"), pl.col("included_at").min().over(by_paper)),
        )
        .select(list(FIRST_INCLUSION_SCHEMA))
        .cast(FIRST_INCLUSION_SCHEMA)
        .sort("arxiv_id", "rank", "framework")
    )
