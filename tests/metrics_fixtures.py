"""Small invented core tables for the metrics tests: build rows with a few fields, the
rest default."""

from __future__ import annotations

from datetime import UTC, datetime

import polars as pl

from assets.links.evidence import UTC_TIME
from assets.papers.papers import cohort_of
from orchestration.tables import CORE_INCLUSIONS, CORE_PAPER_SCREENING

FRAMEWORKS = ["a", "b"]


def t(text: str) -> datetime:
    """`2025-01-10` or `2025-01-10T12:00` as a UTC datetime."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def papers(rows: list[tuple[str, str]]) -> pl.DataFrame:
    """core.papers from (arxiv_id, v1 date)."""
    frame = pl.DataFrame(
        {"arxiv_id": [r[0] for r in rows], "published_at": [t(r[1]) for r in rows]},
        schema={"arxiv_id": pl.Utf8, "published_at": UTC_TIME},
    )
    return frame.with_columns(cohort=cohort_of(pl.col("published_at")), title=pl.format("Paper {}", pl.col("arxiv_id")))


def screening(paper_frame: pl.DataFrame, **columns: dict[str, object]) -> pl.DataFrame:
    """core.paper_screening of every paper: general methods unless `is_general_rl_method`
    says otherwise; each keyword maps arxiv_id -> value of that column."""
    frame = paper_frame.select("arxiv_id", "cohort")
    for column, dtype in CORE_PAPER_SCREENING.schema.items():
        if column in frame.columns:
            continue
        values = columns.get(column, {})
        default = True if column == "is_general_rl_method" else None
        frame = frame.with_columns(
            pl.col("arxiv_id").replace_strict(values, default=default, return_dtype=dtype).alias(column)
            if values or default is not None
            else pl.lit(None, dtype).alias(column)
        )
    return frame.select(list(CORE_PAPER_SCREENING.schema)).cast(CORE_PAPER_SCREENING.schema)


def inclusions(rows: list[tuple[str, str, str]], paper_frame: pl.DataFrame) -> pl.DataFrame:
    """core.inclusions from (arxiv_id, framework, included_at)."""
    frame = pl.DataFrame(
        {
            "arxiv_id": [r[0] for r in rows],
            "framework": [r[1] for r in rows],
            "included_at": [t(r[2]) for r in rows],
        },
        schema={"arxiv_id": pl.Utf8, "framework": pl.Utf8, "included_at": UTC_TIME},
    )
    return (
        frame.join(paper_frame.select("arxiv_id", "published_at"), on="arxiv_id", how="left")
        .with_columns(
            commit_sha=pl.format("sha-{}-{}", "arxiv_id", "framework"),
            lag_days=((pl.col("included_at") - pl.col("published_at")).dt.total_seconds() / 86_400).round(2),
            source=pl.lit("rules"),
        )
        .with_columns([pl.lit(None, dtype).alias(c) for c, dtype in CORE_INCLUSIONS.schema.items() if c not in frame.columns and c not in ("commit_sha", "lag_days", "source")])
        .select(list(CORE_INCLUSIONS.schema))
        .cast(CORE_INCLUSIONS.schema)
    )


def observed(through: dict[str, str]) -> pl.DataFrame:
    return pl.DataFrame(
        {"framework": list(through), "observed_through": [t(v) for v in through.values()]},
        schema={"framework": pl.Utf8, "observed_through": UTC_TIME},
    )
