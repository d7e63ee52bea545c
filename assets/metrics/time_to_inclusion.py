"""metrics.time_to_inclusion: Kaplan-Meier estimate of the days from a general method's
first arXiv version to its first inclusion in any framework, per cohort and `pooled`
(all cohorts), and the lags of the inclusions per framework.

Follow-up of a method ends at the horizon: the as-of date or the earliest observation end
of the configured frameworks (their newest commit), whichever is earlier; a framework
never observed has no end and is left out of the minimum. Before the horizon every
framework was watched, so:

- an event is a first inclusion at or before the horizon, at `day` = its lag; a negative
  lag (included before v1: authors upstreaming first) is an event at day 0;
- a method not included by then is censored at the horizon (an inclusion seen after it,
  in a framework observed longer, is censored too: an earlier one in the framework that
  stopped being observed cannot be ruled out);
- a method first posted after the horizon has no follow-up and is left out.

`day` is in days (two decimals, like `lag_days`); at tied days events come before
censorings. The confidence band is pointwise, from Greenwood's variance with the log-log
transform: S^exp(+-z*se), se = sqrt(sum d/(n(n-d))) / |ln S|; at S = 1 or S = 0 the band
is S itself. A cohort with no method has no rows.

| column | meaning |
|---|---|
| `cohort` | `2025-Q2`, or `pooled` |
| `day` | days since v1 at which methods were included or censored |
| `at_risk` | methods neither included nor censored before `day` |
| `events`, `censored` | first inclusions / censorings at `day` |
| `survival` | estimated share still not included after `day` |
| `lower`, `upper` | the 95% (by default) confidence band of `survival` |
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from statistics import NormalDist

import polars as pl

from assets.links.evidence import UTC_TIME
from assets.metrics.cohort_inclusion import (
    earliest_inclusions,
    general_methods,
    inclusions_as_of,
    within_window,
)
from assets.metrics.windows import ANY_FRAMEWORK, POOLED, days_between, observation_ends, utc_as_of
from orchestration.tables import METRICS_INCLUSION_LAGS, METRICS_TIME_TO_INCLUSION

SURVIVAL_SCHEMA = METRICS_TIME_TO_INCLUSION.schema

LAG_SCHEMA = METRICS_INCLUSION_LAGS.schema


def follow_up(
    papers: pl.DataFrame,
    screening: pl.DataFrame,
    inclusions: pl.DataFrame,
    observed: pl.DataFrame,
    as_of: datetime,
    frameworks: Sequence[str],
) -> pl.DataFrame:
    """One row per general method with follow-up: `arxiv_id`, `cohort`, `day`, `event`
    (true: first inclusion at `day`; false: censored at `day`)."""
    as_of = utc_as_of(as_of)
    ends = observation_ends(observed, as_of, frameworks)["observed_until"].drop_nulls()
    horizon = min([as_of, *ends.to_list()])
    first = earliest_inclusions(inclusions_as_of(inclusions, as_of, frameworks))
    end = pl.lit(horizon, UTC_TIME)
    return (
        general_methods(papers, screening, as_of).select("arxiv_id", "cohort", "published_at")
        .join(first, on="arxiv_id", how="left")
        .with_columns(event=pl.col("included_at").is_not_null() & (pl.col("included_at") <= end))
        .with_columns(
            day=pl.when("event")
            .then(pl.max_horizontal(days_between(pl.col("included_at"), pl.col("published_at")), 0.0))
            .otherwise(days_between(end, pl.col("published_at")))
        )
        .filter(pl.col("event") | (pl.col("day") >= 0))
        .select("arxiv_id", "cohort", "day", "event")
    )


def kaplan_meier(subjects: pl.DataFrame, by: str, confidence: float = 0.95) -> pl.DataFrame:
    """Kaplan-Meier table per group `by` of `subjects` (`day`, `event`): one row per
    group and day with an event or censoring (SURVIVAL_SCHEMA's columns after `by`)."""
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    per_day = (
        subjects.group_by(by, "day")
        .agg(events=pl.col("event").sum(), censored=(~pl.col("event")).sum())
        .sort(by, "day")
        .with_columns(gone=pl.col("events") + pl.col("censored"))
        .with_columns(
            at_risk=pl.col("gone").sum().over(by) - pl.col("gone").cum_sum().over(by) + pl.col("gone")
        )
    )
    n, d = pl.col("at_risk").cast(pl.Float64), pl.col("events").cast(pl.Float64)
    survival, greenwood = pl.col("survival"), pl.col("greenwood")
    spread = z * greenwood.sqrt() / survival.log().abs()
    inside = (survival > 0) & (survival < 1)
    return (
        per_day.with_columns(
            survival=(1 - d / n).cum_prod().over(by),
            greenwood=pl.when(n > d).then(d / (n * (n - d))).otherwise(float("inf")).cum_sum().over(by),
        )
        .with_columns(
            lower=pl.when(inside).then(survival.pow(spread.exp())).otherwise(survival),
            upper=pl.when(inside).then(survival.pow((-spread).exp())).otherwise(survival),
        )
        .select(by, "day", "at_risk", "events", "censored", "survival", "lower", "upper")
    )


def time_to_inclusion(
    papers: pl.DataFrame,
    screening: pl.DataFrame,
    inclusions: pl.DataFrame,
    observed: pl.DataFrame,
    as_of: datetime,
    frameworks: Sequence[str],
    confidence: float = 0.95,
) -> pl.DataFrame:
    """metrics.time_to_inclusion (SURVIVAL_SCHEMA; see the module docstring)."""
    subjects = follow_up(papers, screening, inclusions, observed, as_of, frameworks)
    scoped = pl.concat([subjects, subjects.with_columns(cohort=pl.lit(POOLED))])
    return (
        kaplan_meier(scoped, "cohort", confidence)
        .sort(pl.col("cohort") == POOLED, "cohort", "day")
        .cast(SURVIVAL_SCHEMA)
    )


def inclusion_lags(
    papers: pl.DataFrame,
    screening: pl.DataFrame,
    inclusions: pl.DataFrame,
    as_of: datetime,
    frameworks: Sequence[str],
) -> pl.DataFrame:
    """Per framework and `any` (first inclusions): the distribution of the days from v1
    to inclusion of the general methods included by the as-of date (LAG_SCHEMA)."""
    as_of = utc_as_of(as_of)
    included = inclusions_as_of(inclusions, as_of, frameworks)
    methods = general_methods(papers, screening, as_of).select("arxiv_id", "cohort", "published_at")
    anywhere = earliest_inclusions(included).with_columns(framework=pl.lit(ANY_FRAMEWORK))
    lags = pl.concat([included, anywhere.select(included.columns)]).join(methods, on="arxiv_id").with_columns(
        lag=days_between(pl.col("included_at"), pl.col("published_at"))
    )
    lag = pl.col("lag")
    table = lags.group_by("framework").agg(
        included=pl.len(),
        before_v1=(lag < 0).sum(),
        within_180d=within_window(pl.col("included_at"), pl.col("published_at")).sum(),
        min_days=lag.min(),
        p25_days=lag.quantile(0.25, "linear"),
        median_days=lag.median(),
        p75_days=lag.quantile(0.75, "linear"),
        max_days=lag.max(),
    )
    configured = pl.DataFrame({"framework": [ANY_FRAMEWORK, *frameworks]}, schema={"framework": pl.Utf8})
    counts = ["included", "before_v1", "within_180d"]
    return (
        configured.join(table, on="framework", how="left", maintain_order="left")
        .with_columns(pl.col(counts).fill_null(0))
        .select(list(LAG_SCHEMA))
        .cast(LAG_SCHEMA)
    )
