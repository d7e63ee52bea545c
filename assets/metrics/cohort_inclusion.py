"""metrics.cohort_inclusion: per cohort and framework, how many general RL methods were
included, and how many within 180 days of their first arXiv version.

One row per cohort (2025-Q1 up to the as-of date's quarter, an empty cohort as zeros) x
(`any`, then each configured framework):

| column | meaning |
|---|---|
| `cohort` | quarter of the papers' v1, `2025-Q2` |
| `framework` | a framework slug, or `any` (included in at least one framework) |
| `papers` | screened papers of the cohort (rows of core.paper_screening) |
| `general_methods` | of those, papers that propose a general RL training method |
| `included` | general methods included (in that framework / anywhere) by the as-of date |
| `included_within_180d` | general methods whose earliest inclusion (there / anywhere) minus v1 is at most 180 days; a negative lag (authors upstreaming first) counts |
| `share_within_180d` | `included_within_180d / general_methods`; null when there is no general method |
| `window_closed` | the 180-day window is over and the framework (for `any`: every framework) is observed past it; false: the figures are provisional |
| `provisional_until` | the window's last day: quarter's last day + 180 days |
| `as_of` | the date the figures describe |
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import polars as pl

from assets.links.evidence import UTC_TIME
from assets.metrics.windows import (
    ANY_FRAMEWORK,
    WINDOW_DAYS,
    cohort_windows,
    cohorts_through,
    in_utc,
    utc_as_of,
)
from orchestration.tables import METRICS_COHORT_INCLUSION

COHORT_INCLUSION_SCHEMA = METRICS_COHORT_INCLUSION.schema


def screened_papers(papers: pl.DataFrame, screening: pl.DataFrame, cohorts: Sequence[str]) -> pl.DataFrame:
    """The screened papers of the given cohorts: core.paper_screening's columns with the
    paper's `published_at` (v1) and `cohort` from core.papers."""
    return (
        in_utc(papers, "published_at")
        .select("arxiv_id", "published_at", "cohort")
        .filter(pl.col("cohort").is_in(list(cohorts)))
        .join(screening.drop("cohort", strict=False), on="arxiv_id")
    )


#: A screened paper that proposes a general RL training method (an unknown verdict is not one).
IS_GENERAL_METHOD = pl.col("is_general_rl_method").fill_null(False)


def general_methods(papers: pl.DataFrame, screening: pl.DataFrame, as_of: datetime) -> pl.DataFrame:
    """The screened papers of the cohorts through the as-of date that propose a general
    RL training method: the methods every metric counts."""
    return screened_papers(papers, screening, cohorts_through(utc_as_of(as_of))).filter(IS_GENERAL_METHOD)


def inclusions_as_of(inclusions: pl.DataFrame, as_of: datetime, frameworks: Sequence[str]) -> pl.DataFrame:
    """`arxiv_id`, `framework`, `included_at` of the inclusions in the configured
    frameworks made by the as-of date (a later commit is not known yet at that date)."""
    return in_utc(inclusions, "included_at").filter(
        pl.col("framework").is_in(list(frameworks)) & (pl.col("included_at") <= pl.lit(utc_as_of(as_of), UTC_TIME))
    ).select("arxiv_id", "framework", "included_at")


def earliest_inclusions(inclusions: pl.DataFrame) -> pl.DataFrame:
    """`arxiv_id`, `included_at`: each paper's first inclusion in any framework."""
    return inclusions.group_by("arxiv_id").agg(pl.col("included_at").min())


def within_window(included_at: pl.Expr, published_at: pl.Expr) -> pl.Expr:
    """Included at most 180 days after v1; before v1 counts too."""
    return (included_at - published_at) <= pl.duration(days=WINDOW_DAYS)


def cohort_inclusion(
    papers: pl.DataFrame,
    screening: pl.DataFrame,
    inclusions: pl.DataFrame,
    observed: pl.DataFrame,
    as_of: datetime,
    frameworks: Sequence[str],
) -> pl.DataFrame:
    """metrics.cohort_inclusion (COHORT_INCLUSION_SCHEMA; see the module docstring).

    `observed`: one row per framework with `observed_through` (its newest commit)."""
    as_of = utc_as_of(as_of)
    cohorts = cohorts_through(as_of)
    screened = screened_papers(papers, screening, cohorts)
    methods = screened.filter(IS_GENERAL_METHOD).select("arxiv_id", "cohort", "published_at")
    included = inclusions_as_of(inclusions, as_of, frameworks)
    per_framework = included.join(methods, on="arxiv_id")
    anywhere = earliest_inclusions(included).join(methods, on="arxiv_id").with_columns(framework=pl.lit(ANY_FRAMEWORK))
    counts = (
        pl.concat([per_framework, anywhere.select(per_framework.columns)])
        .group_by("cohort", "framework")
        .agg(
            included=pl.len(),
            included_within_180d=within_window(pl.col("included_at"), pl.col("published_at")).sum(),
        )
    )
    sizes = screened.group_by("cohort").agg(
        papers=pl.len(), general_methods=IS_GENERAL_METHOD.sum()
    )
    count_columns = ["papers", "general_methods", "included", "included_within_180d"]
    return (
        cohort_windows(cohorts, observed, as_of, frameworks)
        .join(sizes, on="cohort", how="left")
        .join(counts, on=["cohort", "framework"], how="left")
        .with_columns(pl.col(count_columns).fill_null(0))
        .with_columns(
            share_within_180d=pl.when(pl.col("general_methods") > 0).then(
                pl.col("included_within_180d") / pl.col("general_methods")
            ),
            as_of=pl.lit(as_of, UTC_TIME),
        )
        .select(list(COHORT_INCLUSION_SCHEMA))
        .cast(COHORT_INCLUSION_SCHEMA)
    )
