"""Blocking checks of the metrics tables: the invariants of assets/metrics/invariants.py
on what is stored. A failing check stops whatever reads the table downstream."""

import dagster as dg

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


@dg.asset_check(asset=cohort_inclusion, blocking=True, description="Shares in [0, 1] and equal to their counts; counts add up (within 180 days <= included <= general methods <= papers, a framework <= any); every stored cohort has one row for any and each framework; a window is closed only once the as-of date is past it, and any only when every framework is.")
def cohort_inclusion_consistent(warehouse: Warehouse) -> dg.AssetCheckResult:
    rows = warehouse.read_table(METRICS_COHORT_INCLUSION)
    return _result(cohort_inclusion_problems(rows, [f.slug for f in frameworks()]), rows.height)


@dg.asset_check(asset=included_vs_peers, blocking=True, description="Counts add up (0 <= with <= n, unknowns >= 0), p-values in [0, 1], both scopes (all, maintainers excluded) for every cohort and feature.")
def included_vs_peers_consistent(warehouse: Warehouse) -> dg.AssetCheckResult:
    rows = warehouse.read_table(METRICS_INCLUDED_VS_PEERS)
    return _result(peers_problems(rows), rows.height)


@dg.asset_check(asset=time_to_inclusion, blocking=True, description="Survival in [0, 1], never rising, inside its confidence band; no more events and censorings than methods at risk.")
def time_to_inclusion_consistent(warehouse: Warehouse) -> dg.AssetCheckResult:
    rows = warehouse.read_table(METRICS_TIME_TO_INCLUSION)
    return _result(survival_problems(rows), rows.height)


@dg.asset_check(asset=thread_coverage, blocking=True, description="Shares in [0, 1]; no count above its total.")
def thread_coverage_consistent(warehouse: Warehouse) -> dg.AssetCheckResult:
    rows = warehouse.read_table(METRICS_THREAD_COVERAGE)
    return _result(coverage_problems(rows), rows.height)


@dg.asset_check(asset=failure_report_coverage, blocking=True, description="Shares in [0, 1]; no more implementations with a report than implementations.")
def failure_report_coverage_consistent(warehouse: Warehouse) -> dg.AssetCheckResult:
    rows = warehouse.read_table(METRICS_FAILURE_REPORT_COVERAGE)
    return _result(failure_coverage_problems(rows), rows.height)


@dg.asset_check(asset=first_inclusions, blocking=True, description="Ranks from 1 to the number of frameworks that included the method; nothing before the first inclusion.")
def first_inclusions_consistent(warehouse: Warehouse) -> dg.AssetCheckResult:
    rows = warehouse.read_table(METRICS_FIRST_INCLUSIONS)
    return _result(first_inclusion_problems(rows), rows.height)


@dg.asset_check(asset=tech_report_coverage, blocking=True, description="`stated` is named, parts, no or no_text; a named or partly stated method comes with its sentence.")
def tech_report_coverage_consistent(warehouse: Warehouse) -> dg.AssetCheckResult:
    rows = warehouse.read_table(METRICS_TECH_REPORT_COVERAGE)
    return _result(tech_report_problems(rows), rows.height)
