"""Blocking checks of the metrics tables: the invariants of assets/metrics/invariants.py
on what is stored. A failing check stops whatever reads the table downstream."""

from collections.abc import Callable

import dagster as dg
import polars as pl

from assets.metrics.assets import (
    cohort_inclusion,
    failure_report_coverage,
    first_inclusions,
    included_vs_peers,
    tech_report_coverage,
    thread_coverage,
    time_to_inclusion,
)
from assets.metrics.invariants import (
    cohort_inclusion_problems,
    coverage_problems,
    failure_coverage_problems,
    first_inclusion_problems,
    peers_problems,
    survival_problems,
    tech_report_problems,
)
from orchestration.settings import frameworks
from orchestration.tables import (
    METRICS_COHORT_INCLUSION,
    METRICS_FAILURE_REPORT_COVERAGE,
    METRICS_FIRST_INCLUSIONS,
    METRICS_INCLUDED_VS_PEERS,
    METRICS_TECH_REPORT_COVERAGE,
    METRICS_THREAD_COVERAGE,
    METRICS_TIME_TO_INCLUSION,
    Table,
)
from orchestration.warehouse import Warehouse

_SHOWN = 10


def _result(problems: list[str], rows: int) -> dg.AssetCheckResult:
    return dg.AssetCheckResult(
        passed=not problems,
        severity=dg.AssetCheckSeverity.ERROR,
        description="; ".join(problems[:_SHOWN]) if problems else None,
        metadata={"rows": rows, "problems": len(problems)},
    )


def invariant_check(
    asset: dg.AssetsDefinition, table: Table, problems: Callable[[pl.DataFrame], list[str]], description: str
) -> dg.AssetChecksDefinition:
    """A blocking check that `problems` finds nothing in the stored `table`."""

    @dg.asset_check(asset=asset, name=f"{asset.key.path[-1]}_consistent", blocking=True, description=description)
    def consistent(warehouse: Warehouse) -> dg.AssetCheckResult:
        rows = warehouse.read_table(table)
        return _result(problems(rows), rows.height)

    return consistent


cohort_inclusion_consistent = invariant_check(
    cohort_inclusion,
    METRICS_COHORT_INCLUSION,
    lambda rows: cohort_inclusion_problems(rows, [f.slug for f in frameworks()]),
    "Shares in [0, 1] and equal to their counts; counts add up (within 180 days <= included <= general methods "
    "<= papers, a framework <= any); every stored cohort has one row for any and each framework; a window is "
    "closed only once the as-of date is past it, and any only when every framework is.",
)
included_vs_peers_consistent = invariant_check(
    included_vs_peers,
    METRICS_INCLUDED_VS_PEERS,
    peers_problems,
    "Counts add up (0 <= with <= n, unknowns >= 0), p-values in [0, 1], both scopes (all, maintainers excluded) "
    "for every cohort and feature.",
)
time_to_inclusion_consistent = invariant_check(
    time_to_inclusion,
    METRICS_TIME_TO_INCLUSION,
    survival_problems,
    "Survival in [0, 1], never rising, inside its confidence band; no more events and censorings than methods at risk.",
)
thread_coverage_consistent = invariant_check(
    thread_coverage, METRICS_THREAD_COVERAGE, coverage_problems, "Shares in [0, 1]; no count above its total."
)
failure_report_coverage_consistent = invariant_check(
    failure_report_coverage,
    METRICS_FAILURE_REPORT_COVERAGE,
    failure_coverage_problems,
    "Shares in [0, 1]; no more implementations with a report than implementations.",
)
first_inclusions_consistent = invariant_check(
    first_inclusions,
    METRICS_FIRST_INCLUSIONS,
    first_inclusion_problems,
    "Ranks from 1 to the number of frameworks that included the method; nothing before the first inclusion.",
)
tech_report_coverage_consistent = invariant_check(
    tech_report_coverage,
    METRICS_TECH_REPORT_COVERAGE,
    tech_report_problems,
    "`stated` is named, parts, no or no_text; a named or partly stated method comes with its sentence.",
)
