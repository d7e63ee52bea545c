"""metrics.failure_reports: do users report training failures of the implementations
frameworks took in? Two tables, over the inclusions made by the as-of date (as given:
pass core.inclusions filtered to general methods for the study's scope) and the issues
of core.training_failures opened by then.

`implementation_failure_reports`, one row per included implementation (paper x
framework) x failure issue concerning it; an implementation with no such issue has one
row with null issue columns:

| column | meaning |
|---|---|
| `arxiv_id`, `framework` | the implementation |
| `included_at`, `commit_sha` | its including commit |
| `number`, `title`, `url`, `state`, `created_at` | the issue reporting a training failure |
| `failure_kinds` | what failed (nan_or_inf, divergence, collapse, ...) |
| `linked_by` | how the issue concerns the implementation: named (its paper's id, title or alias) or identifier (a config key, loss or file of it) |

`failure_report_coverage`, one row per framework and `any`:

| column | meaning |
|---|---|
| `framework` | a framework slug, or `any` (all implementations together) |
| `implementations` | included implementations |
| `with_failure_report` | of those, with at least one failure issue concerning them |
| `share_without_report` | implementations with no public failure report / implementations; null when none |
| `failure_reports` | failure issues concerning an implementation |
| `unlinked_failure_reports` | failure issues that concern no known implementation |

In snapshot mode the threads are a sample (286 recorded threads), so "no report" there
means none among the recorded threads.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import polars as pl

from assets.links.evidence import UTC_TIME
from assets.metrics.cohort_inclusion import inclusions_as_of
from assets.metrics.windows import ANY_FRAMEWORK, in_utc, utc_as_of, with_any_framework
from orchestration.tables import METRICS_FAILURE_REPORTS, METRICS_FAILURE_REPORT_COVERAGE

IMPLEMENTATION_FAILURE_SCHEMA = METRICS_FAILURE_REPORTS.schema

FAILURE_COVERAGE_SCHEMA = METRICS_FAILURE_REPORT_COVERAGE.schema


def _reports_by_as_of(training_failures: pl.DataFrame, as_of: datetime, frameworks: Sequence[str]) -> pl.DataFrame:
    return in_utc(training_failures, "created_at").filter(
        pl.col("framework").is_in(list(frameworks))
        # A recorded thread may lack its creation date: it was open by the time it was recorded.
        & (pl.col("created_at").is_null() | (pl.col("created_at") <= pl.lit(utc_as_of(as_of), UTC_TIME)))
    )


def implementation_failure_reports(
    inclusions: pl.DataFrame, training_failures: pl.DataFrame, as_of: datetime, frameworks: Sequence[str]
) -> pl.DataFrame:
    """One row per implementation x failure issue concerning it (IMPLEMENTATION_FAILURE_SCHEMA)."""
    implementations = inclusions_as_of(inclusions, as_of, frameworks).join(
        inclusions.select("arxiv_id", "framework", "commit_sha"), on=["arxiv_id", "framework"]
    )
    reports = _reports_by_as_of(training_failures, as_of, frameworks).filter(pl.col("arxiv_id").is_not_null())
    issue_columns = [column for column in IMPLEMENTATION_FAILURE_SCHEMA if column not in implementations.columns]
    return (
        implementations.join(
            reports.select("arxiv_id", "framework", *issue_columns), on=["arxiv_id", "framework"], how="left"
        )
        .select(list(IMPLEMENTATION_FAILURE_SCHEMA))
        .cast(IMPLEMENTATION_FAILURE_SCHEMA)
        .sort("framework", "arxiv_id", "number", nulls_last=True)
    )


def failure_report_coverage(
    inclusions: pl.DataFrame, training_failures: pl.DataFrame, as_of: datetime, frameworks: Sequence[str]
) -> pl.DataFrame:
    """Per framework and `any`: the share of implementations with no public failure report
    (FAILURE_COVERAGE_SCHEMA)."""
    linked = implementation_failure_reports(inclusions, training_failures, as_of, frameworks).with_columns(
        implementation=pl.struct("framework", "arxiv_id"),
        issue=pl.when(pl.col("number").is_not_null()).then(pl.struct("framework", "number")),
    )
    unlinked = (
        _reports_by_as_of(training_failures, as_of, frameworks)
        .filter(pl.col("arxiv_id").is_null())
        .join(linked.drop_nulls("number"), on=["framework", "number"], how="anti")
        .select("framework", issue=pl.struct("framework", "number"))
    )
    implementations = (
        with_any_framework(linked)
        .group_by("framework", "implementation")
        .agg(reported=pl.col("issue").is_not_null().any())
        .group_by("framework")
        .agg(implementations=pl.len(), with_failure_report=pl.col("reported").sum())
    )
    # An issue concerning two implementations is one report.
    reports = with_any_framework(linked.drop_nulls("issue")).group_by("framework").agg(failure_reports=pl.col("issue").n_unique())
    unlinked_counts = with_any_framework(unlinked).group_by("framework").agg(unlinked_failure_reports=pl.col("issue").n_unique())
    counts = ["implementations", "with_failure_report", "failure_reports", "unlinked_failure_reports"]
    table = pl.DataFrame({"framework": [ANY_FRAMEWORK, *frameworks]})
    for part in (implementations, reports, unlinked_counts):
        table = table.join(part, on="framework", how="left", maintain_order="left")
    return (
        table
        .with_columns(pl.col(counts).fill_null(0))
        .with_columns(
            share_without_report=pl.when(pl.col("implementations") > 0).then(
                1 - pl.col("with_failure_report") / pl.col("implementations")
            )
        )
        .select(list(FAILURE_COVERAGE_SCHEMA))
        .cast(FAILURE_COVERAGE_SCHEMA)
    )
