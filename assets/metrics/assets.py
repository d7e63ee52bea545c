"""The metrics stage: the study's tables, recomputed as of a date from the links.

The cohort tables (`cohort_inclusion`, `included_vs_peers`, `time_to_inclusion`) are
partitioned by quarterly cohort: a run writes the rows of its quarters (and the `pooled`
rows, which it recomputes from the same inputs) in one transaction. The other tables
describe all cohorts at once. Every figure is measured to the run's as-of date
(orchestration/as_of.py) and counts a framework only as far as its newest commit.
"""


from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

import dagster as dg
import duckdb
import polars as pl

from assets.audits import Audit, ProblemFinder, check_specs, write_audit_publish

from assets.metrics.charts import cohort_chart, peers_chart, png_markdown, survival_chart
from assets.metrics.cohort_inclusion import IS_GENERAL_METHOD
from assets.metrics.cohort_inclusion import cohort_inclusion as cohort_inclusion_of
from assets.metrics.failure_reports import failure_report_coverage as failure_report_coverage_of
from assets.metrics.failure_reports import implementation_failure_reports
from assets.metrics.invariants import (
    cohort_inclusion_problems,
    coverage_problems,
    failure_coverage_problems,
    first_inclusion_problems,
    peers_problems,
    reopened_windows,
    survival_problems,
    tech_report_problems,
)
from assets.metrics.first_inclusions import first_inclusions as first_inclusions_of
from assets.metrics.peers import included_vs_peers as included_vs_peers_of
from assets.metrics.tech_reports import tech_report_coverage as tech_report_coverage_of
from assets.metrics.thread_coverage import thread_coverage as thread_coverage_of
from assets.metrics.time_to_inclusion import inclusion_lags as inclusion_lags_of
from assets.metrics.time_to_inclusion import time_to_inclusion as time_to_inclusion_of
from assets.metrics.windows import POOLED
from assets.preview import table_metadata
from orchestration.as_of import read_as_of
from orchestration.clients.reports import REPORT_TEXT_SCHEMA, cached_report_texts, tech_report_config
from orchestration.jobs import derived_automation
from orchestration.partitions import cohort_label, cohort_partitions
from orchestration.resources import ArxivSource, FrameworkSources
from orchestration.settings import frameworks
from orchestration.tables import (
    CORE_EVIDENCE,
    CORE_INCLUSIONS,
    CORE_PAPER_ALIASES,
    CORE_PAPER_SCREENING,
    CORE_PAPERS,
    CORE_PROPOSALS,
    CORE_TRAINING_FAILURES,
    METRICS_COHORT_INCLUSION,
    METRICS_FAILURE_REPORT_COVERAGE,
    METRICS_FAILURE_REPORTS,
    METRICS_FIRST_INCLUSIONS,
    METRICS_INCLUDED_VS_PEERS,
    METRICS_INCLUSION_LAGS,
    METRICS_TECH_REPORT_COVERAGE,
    METRICS_THREAD_COVERAGE,
    METRICS_TIME_TO_INCLUSION,
    RAW_GIT_COMMITS,
    RAW_GITHUB_COMMENTS,
    Table,
    catalog,
)
from orchestration.warehouse import WRITER_POOL, Warehouse, read_frame, read_table, table_exists

PAPERS = dg.AssetKey("papers")
PAPER_SCREENING = dg.AssetKey("paper_screening")
PAPER_ALIASES = dg.AssetKey("paper_aliases")
FRAMEWORK_COMMITS = dg.AssetKey("framework_commits")
FRAMEWORK_COMMENTS = dg.AssetKey("framework_comments")
EVIDENCE = dg.AssetKey("evidence")
INCLUSIONS = dg.AssetKey("inclusions")
PROPOSALS = dg.AssetKey("proposals")
TRAINING_FAILURES = dg.AssetKey("training_failures")

MaterializeEvents = Iterator[dg.AssetCheckResult | dg.MaterializeResult]

CLOSED_WINDOWS = Audit(
    "closed_windows_stay_closed",
    "A cohort's window, once closed in a framework, stays closed: new rows that would reopen one are not written "
    "(the data went backwards: a history rewritten or a source lost).",
)
COHORT_INCLUSION_CONSISTENT = Audit(
    "cohort_inclusion_consistent",
    "Shares in [0, 1] and equal to their counts; counts add up (within 180 days <= included <= general methods "
    "<= papers, a framework <= any); every cohort written has one row for any and each framework; a window is "
    "closed only once the as-of date is past it, and any only when every framework is.",
)
INCLUDED_VS_PEERS_CONSISTENT = Audit(
    "included_vs_peers_consistent",
    "Counts add up (0 <= with <= n, unknowns >= 0), p-values in [0, 1], both scopes (all, maintainers excluded) "
    "for every cohort and feature.",
)
TIME_TO_INCLUSION_CONSISTENT = Audit(
    "time_to_inclusion_consistent",
    "Survival in [0, 1], never rising, inside its confidence band; no more events and censorings than methods at risk.",
)
THREAD_COVERAGE_CONSISTENT = Audit("thread_coverage_consistent", "Shares in [0, 1]; no count above its total.")
FAILURE_REPORT_COVERAGE_CONSISTENT = Audit(
    "failure_report_coverage_consistent",
    "Shares in [0, 1]; no more implementations with a report than implementations.",
)
FIRST_INCLUSIONS_CONSISTENT = Audit(
    "first_inclusions_consistent",
    "Ranks from 1 to the number of frameworks that included the method; nothing before the first inclusion.",
)
TECH_REPORT_COVERAGE_CONSISTENT = Audit(
    "tech_report_coverage_consistent",
    "`stated` is named, parts, no or no_text; a named or partly stated method comes with its sentence.",
)

#: The cohort tables follow their inputs in every quarter, not only the newest one: a
#: provisional quarter's figures change as frameworks include its methods.
cohort_automation = derived_automation.without(dg.AutomationCondition.in_latest_time_window())


@dataclass(frozen=True)
class MetricInputs:
    """What every metric reads: the papers, their verdicts, the inclusions, how far each
    framework is observed (its newest commit), the as-of date and the frameworks."""

    papers: pl.DataFrame
    screening: pl.DataFrame
    inclusions: pl.DataFrame
    observed: pl.DataFrame
    as_of: datetime
    frameworks: list[str]

    def by_cohort(self, metric: Callable[..., pl.DataFrame]) -> pl.DataFrame:
        """A cohort metric of these inputs: `metric(papers, screening, inclusions, observed, as_of, frameworks)`."""
        return metric(self.papers, self.screening, self.inclusions, self.observed, self.as_of, self.frameworks)

    def general_inclusions(self) -> pl.DataFrame:
        """The inclusions of papers that propose a general RL method (the study's scope)."""
        general = self.screening.filter(IS_GENERAL_METHOD).select("arxiv_id")
        return self.inclusions.join(general, on="arxiv_id", how="semi")


def observed_through(conn: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """`framework`, `observed_through`: each framework's newest known commit."""
    if not table_exists(conn, RAW_GIT_COMMITS.name):
        return pl.DataFrame(schema={"framework": pl.Utf8, "observed_through": RAW_GIT_COMMITS.schema["committed_at"]})
    frame = read_frame(
        conn, f"SELECT framework, max(committed_at) AS observed_through FROM {RAW_GIT_COMMITS.name} GROUP BY framework"
    )
    return frame.cast({"observed_through": RAW_GIT_COMMITS.schema["committed_at"]}).sort("framework")


def read_metric_inputs(
    conn: duckdb.DuckDBPyConnection, warehouse: Warehouse, framework_sources: FrameworkSources
) -> MetricInputs:
    """The inputs, read on the materialization's one connection (`warehouse.session()`)."""
    return MetricInputs(
        papers=read_table(conn, CORE_PAPERS),
        screening=read_table(conn, CORE_PAPER_SCREENING),
        inclusions=read_table(conn, CORE_INCLUSIONS),
        observed=observed_through(conn),
        # The one wall-clock read: live, the as-of date is the run's date.
        as_of=read_as_of(warehouse, framework_sources, now=datetime.now(UTC)),
        frameworks=[framework.slug for framework in frameworks()],
    )


def partition_cohorts(context: dg.AssetExecutionContext) -> list[str]:
    """The cohort labels of the run's partitions (one, or a range in a single-run backfill)."""
    return [cohort_label(key) for key in context.partition_keys]


def write_cohorts(
    conn: duckdb.DuckDBPyConnection, table: Table, rows: pl.DataFrame, cohorts: list[str], audits: dict[Audit, ProblemFinder]
) -> Generator[dg.AssetCheckResult, None, tuple[pl.DataFrame, list[dg.AssetCheckResult]]]:
    """Stage the rows of `cohorts` (and the `pooled` rows, recomputed from the same
    inputs), audit them, and publish them in place of those cohorts' rows in one
    transaction; return the rows written and the check results."""
    written = rows.filter(pl.col("cohort").is_in([*cohorts, POOLED])).cast(table.schema)
    placeholders = ", ".join("?" for _ in [*cohorts, POOLED])
    checks = yield from write_audit_publish(
        conn, table, written, audits, where=f"cohort IN ({placeholders})", params=[*cohorts, POOLED]
    )
    return written, checks


def as_of_metadata(inputs: MetricInputs, cohorts: list[str] | None = None) -> dict[str, object]:
    figures: dict[str, object] = {"as_of": inputs.as_of.isoformat()}
    if cohorts is not None:
        figures["cohorts"] = ", ".join(cohorts)
    return figures


def _by_cohort(table: Table) -> dict[str, object]:
    """The definition arguments of a table partitioned by quarterly cohort: a range of
    quarters backfills in one run."""
    return {
        "group_name": "metrics",
        **catalog(table),
        "kinds": {"polars", "duckdb"},
        "partitions_def": cohort_partitions,
        "backfill_policy": dg.BackfillPolicy.single_run(),
        # Every quarter reads every framework's history (how far it is observed).
        "deps": [PAPERS, PAPER_SCREENING, INCLUSIONS, dg.AssetDep(FRAMEWORK_COMMITS, partition_mapping=dg.AllPartitionMapping())],
        "pool": WRITER_POOL,
        "automation_condition": cohort_automation,
    }


def describe_cohorts(rows: pl.DataFrame) -> list[str]:
    """One line per cohort of the `any` rows: the figure people quote, and whether it may still change."""
    return [
        f"{row['cohort']}: {row['included_within_180d']} of {row['general_methods']} general methods included "
        f"within 180 days ({'closed' if row['window_closed'] else 'provisional until ' + str(row['provisional_until'])})"
        for row in rows.filter(pl.col("framework") == "any").sort("cohort").iter_rows(named=True)
    ]


@dg.asset(
    **_by_cohort(METRICS_COHORT_INCLUSION),
    check_specs=check_specs("cohort_inclusion", [CLOSED_WINDOWS, COHORT_INCLUSION_CONSISTENT]),
)
def cohort_inclusion(
    context: dg.AssetExecutionContext, warehouse: Warehouse, framework_sources: FrameworkSources
) -> MaterializeEvents:
    """One row per cohort (the quarter of the papers' v1, read as 2025-Q2) x framework
    (`any`: at least one): screened papers, general RL methods, how many were included by
    the as-of date and how many within 180 days of v1 (a negative lag counts), the share,
    and whether the cohort's 180-day window is closed there or the figures are provisional
    (until `provisional_until`)."""
    cohorts = partition_cohorts(context)
    with warehouse.session() as conn:
        inputs = read_metric_inputs(conn, warehouse, framework_sources)
        rows = inputs.by_cohort(cohort_inclusion_of)
        stored = read_table(conn, METRICS_COHORT_INCLUSION).filter(pl.col("cohort").is_in(cohorts))
        written, checks = yield from write_cohorts(
            conn,
            METRICS_COHORT_INCLUSION,
            rows,
            cohorts,
            {
                CLOSED_WINDOWS: lambda staged: reopened_windows(stored, staged.filter(pl.col("cohort").is_in(cohorts))),
                COHORT_INCLUSION_CONSISTENT: lambda staged: cohort_inclusion_problems(staged, inputs.frameworks),
            },
        )
        every_cohort = read_table(conn, METRICS_COHORT_INCLUSION)
    summary = describe_cohorts(written)
    context.log.info(f"cohort_inclusion as of {inputs.as_of:%Y-%m-%d}: {'; '.join(summary) or 'no cohort'}")
    yield dg.MaterializeResult(
        metadata=table_metadata(
            written.filter(pl.col("framework") == "any"),
            ["cohort", "papers", "general_methods", "included", "included_within_180d", "share_within_180d",
             "window_closed", "provisional_until"],
            summary=dg.MetadataValue.md("\n".join(f"- {line}" for line in summary) or "no cohort"),
            chart=dg.MetadataValue.md(
                png_markdown(cohort_chart(every_cohort), "General methods per cohort and those included within 180 days")
            ),
            **as_of_metadata(inputs, cohorts),
        ),
        check_results=checks,
    )


@dg.asset(
    **_by_cohort(METRICS_INCLUDED_VS_PEERS), check_specs=check_specs("included_vs_peers", [INCLUDED_VS_PEERS_CONSISTENT])
)
def included_vs_peers(
    context: dg.AssetExecutionContext, warehouse: Warehouse, framework_sources: FrameworkSources
) -> MaterializeEvents:
    """One row per cohort (or `pooled`: the cohorts whose window is closed) x feature
    (large_policy, loss_tweak, code_released) x scope (all general methods, or those with
    no maintainer-company author): included general methods against the other general
    methods of the same quarters, with counts, unknowns reported apart, and the two-sided
    Fisher's exact p-value."""
    cohorts = partition_cohorts(context)
    with warehouse.session() as conn:
        inputs = read_metric_inputs(conn, warehouse, framework_sources)
        rows = inputs.by_cohort(included_vs_peers_of)
        written, checks = yield from write_cohorts(
            conn, METRICS_INCLUDED_VS_PEERS, rows, cohorts, {INCLUDED_VS_PEERS_CONSISTENT: peers_problems}
        )
    yield dg.MaterializeResult(
        metadata=table_metadata(
            written.filter(pl.col("cohort") == POOLED),
            ["feature", "maintainers_excluded", "included_with", "included_n", "peers_with", "peers_n", "p_value"],
            chart=dg.MetadataValue.md(
                png_markdown(peers_chart(written), "Included general methods against their peers, pooled over closed cohorts")
            ),
            **as_of_metadata(inputs, cohorts),
        ),
        check_results=checks,
    )


@dg.asset(
    **_by_cohort(METRICS_TIME_TO_INCLUSION), check_specs=check_specs("time_to_inclusion", [TIME_TO_INCLUSION_CONSISTENT])
)
def time_to_inclusion(
    context: dg.AssetExecutionContext, warehouse: Warehouse, framework_sources: FrameworkSources
) -> MaterializeEvents:
    """One row per cohort (or `pooled`) x day of the Kaplan-Meier estimate of the days
    from a general method's v1 to its first inclusion anywhere: at risk, events,
    censorings (methods not included by the as-of date or the earliest framework's
    observation end), the survival estimate and its 95% band."""
    cohorts = partition_cohorts(context)
    with warehouse.session() as conn:
        inputs = read_metric_inputs(conn, warehouse, framework_sources)
        rows = inputs.by_cohort(time_to_inclusion_of)
        written, checks = yield from write_cohorts(
            conn, METRICS_TIME_TO_INCLUSION, rows, cohorts, {TIME_TO_INCLUSION_CONSISTENT: survival_problems}
        )
        every_cohort = read_table(conn, METRICS_TIME_TO_INCLUSION)
    final = written.group_by("cohort", maintain_order=True).last().sort("cohort")
    yield dg.MaterializeResult(
        metadata=table_metadata(
            final,
            ["cohort", "day", "at_risk", "events", "censored", "survival", "lower", "upper"],
            chart=dg.MetadataValue.md(
                png_markdown(survival_chart(every_cohort), "Share of general methods not yet included, by days since v1")
            ),
            **as_of_metadata(inputs, cohorts),
        ),
        check_results=checks,
    )


def _unpartitioned(table: Table, deps: list[dg.AssetKey], audits: list[Audit] | None = None) -> dict[str, object]:
    """The definition arguments shared by the metrics that describe all cohorts at once."""
    return {
        "group_name": "metrics",
        **catalog(table),
        "kinds": {"polars", "duckdb"},
        "deps": deps,
        "pool": WRITER_POOL,
        "automation_condition": derived_automation,
        "check_specs": check_specs(table.name.split(".")[-1], audits or []),
    }


def _replace(
    conn: duckdb.DuckDBPyConnection, table: Table, rows: pl.DataFrame, audits: dict[Audit, ProblemFinder]
) -> Generator[dg.AssetCheckResult, None, list[dg.AssetCheckResult]]:
    """Stage, audit and publish the whole table."""
    return (yield from write_audit_publish(conn, table, rows.cast(table.schema), audits))


@dg.asset(**_unpartitioned(METRICS_THREAD_COVERAGE, [PAPERS, PAPER_SCREENING, INCLUSIONS, EVIDENCE, PROPOSALS, FRAMEWORK_COMMENTS, FRAMEWORK_COMMITS], [THREAD_COVERAGE_CONSISTENT]))
def thread_coverage(
    context: dg.AssetExecutionContext, warehouse: Warehouse, framework_sources: FrameworkSources
) -> MaterializeEvents:
    """One row per framework (or `any`) x measure: the share of never-included general
    methods that no thread cites or names, the proposals by outcome (included later,
    turned away, merged without inclusion, open with and without a reply, with their
    ages), replies and maintainers' first replies, and how long proposals preceded
    inclusions."""
    with warehouse.session() as conn:
        inputs = read_metric_inputs(conn, warehouse, framework_sources)
        rows = thread_coverage_of(
            inputs.papers,
            inputs.screening,
            inputs.inclusions,
            read_table(conn, CORE_EVIDENCE),
            read_table(conn, CORE_PROPOSALS),
            read_table(conn, RAW_GITHUB_COMMENTS),
            inputs.observed,
            inputs.as_of,
            inputs.frameworks,
        )
        checks = yield from _replace(conn, METRICS_THREAD_COVERAGE, rows, {THREAD_COVERAGE_CONSISTENT: coverage_problems})
    yield dg.MaterializeResult(
        metadata=table_metadata(
            rows.filter(pl.col("framework") == "any"),
            ["measure", "count", "total", "share", "median_days", "max_days"],
            **as_of_metadata(inputs),
        ),
        check_results=checks,
    )


@dg.asset(**_unpartitioned(METRICS_FAILURE_REPORTS, [PAPER_SCREENING, INCLUSIONS, TRAINING_FAILURES, FRAMEWORK_COMMITS]))
def failure_reports(
    context: dg.AssetExecutionContext, warehouse: Warehouse, framework_sources: FrameworkSources
) -> MaterializeEvents:
    """One row per included implementation of a general method (paper x framework) x
    training-failure issue concerning it; an implementation nobody reported a failure of
    has one row with empty issue columns."""
    with warehouse.session() as conn:
        inputs = read_metric_inputs(conn, warehouse, framework_sources)
        rows = implementation_failure_reports(
            inputs.general_inclusions(), read_table(conn, CORE_TRAINING_FAILURES), inputs.as_of, inputs.frameworks
        )
        checks = yield from _replace(conn, METRICS_FAILURE_REPORTS, rows, {})
    yield dg.MaterializeResult(
        metadata=table_metadata(
            rows.filter(pl.col("number").is_not_null()),
            ["arxiv_id", "framework", "number", "failure_kinds", "linked_by", "title"],
            implementations=rows.select("arxiv_id", "framework").n_unique(),
            **as_of_metadata(inputs),
        ),
        check_results=checks,
    )


@dg.asset(**_unpartitioned(METRICS_FAILURE_REPORT_COVERAGE, [PAPER_SCREENING, INCLUSIONS, TRAINING_FAILURES, FRAMEWORK_COMMITS], [FAILURE_REPORT_COVERAGE_CONSISTENT]))
def failure_report_coverage(
    context: dg.AssetExecutionContext, warehouse: Warehouse, framework_sources: FrameworkSources
) -> MaterializeEvents:
    """One row per framework (or `any`): included implementations of general methods, how
    many have a public training-failure report, the share without one, and the failure
    issues that concern no known implementation."""
    with warehouse.session() as conn:
        inputs = read_metric_inputs(conn, warehouse, framework_sources)
        rows = failure_report_coverage_of(
            inputs.general_inclusions(), read_table(conn, CORE_TRAINING_FAILURES), inputs.as_of, inputs.frameworks
        )
        checks = yield from _replace(conn, METRICS_FAILURE_REPORT_COVERAGE, rows, {FAILURE_REPORT_COVERAGE_CONSISTENT: failure_coverage_problems})
    yield dg.MaterializeResult(metadata=table_metadata(rows, **as_of_metadata(inputs)), check_results=checks)


@dg.asset(**_unpartitioned(METRICS_INCLUSION_LAGS, [PAPERS, PAPER_SCREENING, INCLUSIONS, FRAMEWORK_COMMITS]))
def inclusion_lags(
    context: dg.AssetExecutionContext, warehouse: Warehouse, framework_sources: FrameworkSources
) -> MaterializeEvents:
    """One row per framework (or `any`: each method's first inclusion): how many general
    methods it included by the as-of date, how many before their v1 and within 180 days,
    and the quartiles of the days from v1 to inclusion."""
    with warehouse.session() as conn:
        inputs = read_metric_inputs(conn, warehouse, framework_sources)
        rows = inclusion_lags_of(inputs.papers, inputs.screening, inputs.inclusions, inputs.as_of, inputs.frameworks)
        checks = yield from _replace(conn, METRICS_INCLUSION_LAGS, rows, {})
    yield dg.MaterializeResult(metadata=table_metadata(rows, **as_of_metadata(inputs)), check_results=checks)


@dg.asset(**_unpartitioned(METRICS_FIRST_INCLUSIONS, [PAPER_SCREENING, INCLUSIONS, FRAMEWORK_COMMITS], [FIRST_INCLUSIONS_CONSISTENT]))
def first_inclusions(
    context: dg.AssetExecutionContext, warehouse: Warehouse, framework_sources: FrameworkSources
) -> MaterializeEvents:
    """One row per included general method x framework: the order in which the frameworks
    included it (`rank` 1: first), the lag after v1 and the days after the first inclusion."""
    with warehouse.session() as conn:
        inputs = read_metric_inputs(conn, warehouse, framework_sources)
        rows = first_inclusions_of(inputs.general_inclusions(), inputs.as_of, inputs.frameworks)
        checks = yield from _replace(conn, METRICS_FIRST_INCLUSIONS, rows, {FIRST_INCLUSIONS_CONSISTENT: first_inclusion_problems})
    first = rows.filter(pl.col("rank") == 1).group_by("framework").len().sort("len", descending=True)
    yield dg.MaterializeResult(
        metadata=table_metadata(
            rows,
            ["arxiv_id", "framework", "rank", "frameworks", "lag_days", "days_after_first"],
            first_to_include=dg.MetadataValue.md(
                "\n".join(f"- {framework}: {count}" for framework, count in first.iter_rows()) or "none"
            ),
            **as_of_metadata(inputs),
        ),
        check_results=checks,
    )


@dg.asset(**_unpartitioned(METRICS_TECH_REPORT_COVERAGE, [PAPERS, PAPER_SCREENING, PAPER_ALIASES, INCLUSIONS, FRAMEWORK_COMMITS], [TECH_REPORT_COVERAGE_CONSISTENT]))
def tech_report_coverage(
    context: dg.AssetExecutionContext,
    warehouse: Warehouse,
    framework_sources: FrameworkSources,
    arxiv: ArxivSource,
) -> MaterializeEvents:
    """One row per configured technical report (orchestration/config/tech_reports.toml) x
    widely included general method (in at least K frameworks): whether the report names
    the method (`named`), states only parts of it (`parts`), neither (`no`: in snapshot mode
    "not in the recorded excerpts"), or has no known text (`no_text`), with the sentence."""
    with warehouse.session() as conn:
        inputs = read_metric_inputs(conn, warehouse, framework_sources)
        config = tech_report_config()
        reports = config.report_frame()
        try:
            texts = cached_report_texts(warehouse, arxiv.report_texts(), reports["report_id"].to_list(), context.log)
        except FileNotFoundError as missing:
            # A snapshot without recorded reports: the figures say no_text rather than fail the run.
            context.log.warning(f"tech_report_coverage: {missing}; every report counts as no_text")
            texts = pl.DataFrame(schema=REPORT_TEXT_SCHEMA)
        rows = tech_report_coverage_of(
            reports,
            texts,
            inputs.papers,
            read_table(conn, CORE_PAPER_ALIASES),
            inputs.general_inclusions(),
            config.naming_frame(),
            config.part_frame(),
            inputs.as_of,
            inputs.frameworks,
            config.widely_included_frameworks,
        )
        checks = yield from _replace(conn, METRICS_TECH_REPORT_COVERAGE, rows, {TECH_REPORT_COVERAGE_CONSISTENT: tech_report_problems})
    stated = rows.group_by("stated").len().sort("stated")
    yield dg.MaterializeResult(
        metadata=table_metadata(
            rows.filter(pl.col("stated") != "no"),
            ["report_id", "model", "method", "stated", "evidence"],
            reports=reports.height,
            reports_with_text=texts["report_id"].n_unique(),
            widely_included_methods=rows["arxiv_id"].n_unique(),
            stated=dg.MetadataValue.md("\n".join(f"- {kind}: {count}" for kind, count in stated.iter_rows())),
            **as_of_metadata(inputs),
        ),
        check_results=checks,
    )
