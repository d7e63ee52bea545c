"""As-of date and freshness: which cohorts the metrics cover, and whether a cohort's
180-day window is closed in each framework (../shared/DESIGN.md, "Definitions").

A cohort's window ends 180 days after its quarter ends: at `window_ends_at` = first
instant of the next quarter + 180 days, so `provisional_until` (the window's last day)
is the quarter's last day + 180 days (2025-Q1: 2025-03-31 + 180 days = 2025-09-27). It is
closed in a framework when both the as-of date and the framework's `observed_through`
(its newest commit) reach `window_ends_at`; in the `any` row when it is closed in every
configured framework. A framework with no observed commit never closes a window.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta

import polars as pl

from assets.links.evidence import UTC_TIME

FIRST_COHORT = "2025-Q1"
WINDOW_DAYS = 180
ANY_FRAMEWORK = "any"
POOLED = "pooled"

WINDOW_SCHEMA: dict[str, pl.DataType] = {
    "cohort": pl.Utf8(),
    "framework": pl.Utf8(),  # a configured framework, or `any`
    "window_ends_at": UTC_TIME,
    "provisional_until": pl.Date(),
    "window_closed": pl.Boolean(),
}


def utc_as_of(as_of: datetime) -> datetime:
    """`as_of` in UTC; a naive datetime is refused (it would silently mean local time)."""
    if as_of.tzinfo is None or as_of.utcoffset() is None:
        raise ValueError(f"as_of {as_of.isoformat()} has no time zone; pass a tz-aware UTC datetime")
    return as_of.astimezone(UTC)


def in_utc(frame: pl.DataFrame, *columns: str) -> pl.DataFrame:
    """The frame with its time columns in the zone `UTC` (DuckDB hands back `Etc/UTC`,
    which polars will not compare with `UTC`)."""
    return frame.with_columns(pl.col(column).dt.convert_time_zone("UTC") for column in columns)


def days_between(later: pl.Expr, earlier: pl.Expr) -> pl.Expr:
    """`later - earlier` in days, to two decimals (as core.inclusions' `lag_days`)."""
    return ((later - earlier).dt.total_seconds() / 86_400).round(2)


def with_any_framework(rows: pl.DataFrame) -> pl.DataFrame:
    """The rows once under their framework and once more under `any`."""
    return pl.concat([rows, rows.with_columns(framework=pl.lit(ANY_FRAMEWORK))])


def _quarter(cohort: str) -> tuple[int, int]:
    year, quarter = cohort.split("-Q")
    return int(year), int(quarter)


def quarter_start(cohort: str) -> datetime:
    """First instant (UTC) of a cohort's quarter."""
    year, quarter = _quarter(cohort)
    return datetime(year, 3 * quarter - 2, 1, tzinfo=UTC)


def next_quarter_start(cohort: str) -> datetime:
    year, quarter = _quarter(cohort)
    return datetime(year + quarter // 4, 3 * (quarter % 4) + 1, 1, tzinfo=UTC)


def cohorts_through(as_of: datetime, first: str = FIRST_COHORT) -> list[str]:
    """Every cohort from `first` up to the as-of date's quarter, none missing."""
    as_of = utc_as_of(as_of)
    last = (as_of.year, (as_of.month - 1) // 3 + 1)
    year, quarter = _quarter(first)
    cohorts = []
    while (year, quarter) <= last:
        cohorts.append(f"{year}-Q{quarter}")
        year, quarter = (year + 1, 1) if quarter == 4 else (year, quarter + 1)
    return cohorts


def window_ends_at(cohort: str) -> datetime:
    return next_quarter_start(cohort) + timedelta(days=WINDOW_DAYS)


def provisional_until(cohort: str) -> date:
    """The last day of the cohort's window: quarter's last day + 180 days."""
    return (window_ends_at(cohort) - timedelta(days=1)).date()


def observation_ends(observed: pl.DataFrame, as_of: datetime, frameworks: Sequence[str]) -> pl.DataFrame:
    """`framework`, `observed_until`: how far each configured framework is known, its
    `observed_through` capped at the as-of date (null: never observed)."""
    as_of = utc_as_of(as_of)
    configured = pl.DataFrame({"framework": list(frameworks)}, schema={"framework": pl.Utf8})
    through = pl.col("observed_through")
    return configured.join(
        in_utc(observed, "observed_through").select("framework", "observed_through"), on="framework", how="left"
    ).select(
        "framework",
        observed_until=pl.when(through.is_not_null()).then(pl.min_horizontal(through, pl.lit(as_of, UTC_TIME))),
    )


def cohort_windows(
    cohorts: Sequence[str], observed: pl.DataFrame, as_of: datetime, frameworks: Sequence[str]
) -> pl.DataFrame:
    """One row per cohort x (each framework and `any`): when the cohort's window ends and
    whether it is closed there (WINDOW_SCHEMA)."""
    if not frameworks:
        raise ValueError("no frameworks configured: a window closes only when every framework is observed")
    windows = pl.DataFrame(
        {
            "cohort": list(cohorts),
            "window_ends_at": [window_ends_at(cohort) for cohort in cohorts],
            "provisional_until": [provisional_until(cohort) for cohort in cohorts],
        },
        schema={"cohort": pl.Utf8, "window_ends_at": UTC_TIME, "provisional_until": pl.Date},
    )
    per_framework = windows.join(observation_ends(observed, as_of, frameworks), how="cross").with_columns(
        # observed_until is capped at the as-of date, so this also needs as_of >= the end.
        window_closed=(pl.col("observed_until") >= pl.col("window_ends_at")).fill_null(False)
    )
    any_framework = per_framework.group_by("cohort", "window_ends_at", "provisional_until").agg(
        framework=pl.lit(ANY_FRAMEWORK), window_closed=pl.col("window_closed").all()
    )
    return (
        pl.concat([per_framework.select(list(WINDOW_SCHEMA)), any_framework.select(list(WINDOW_SCHEMA))])
        .cast(WINDOW_SCHEMA)
        .sort(pl.col("cohort"), pl.col("framework") != ANY_FRAMEWORK, pl.col("framework"))
    )
