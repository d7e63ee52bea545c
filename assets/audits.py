"""Write, audit, publish for the derived tables.

An asset writes its new rows to a staging table, runs its checks on the staged rows, and
only then swaps them in, in one transaction (`orchestration/warehouse.py`). A blocking
check that finds a problem leaves the published table exactly as it was: the run fails,
the UI shows the failed check with what it found, and the rejected rows stay in
`staging.*` for inspection until the next materialization stages new ones.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass

import dagster as dg
import duckdb
import polars as pl

from orchestration.tables import Table
from orchestration.warehouse import publish_staged, read_frame, stage

#: How many problems a check's description lists (the metadata counts them all).
SHOWN_PROBLEMS = 10

#: What an audit reads: the staged rows; what it returns: one line per problem found.
ProblemFinder = Callable[[pl.DataFrame], list[str]]


@dataclass(frozen=True)
class Audit:
    """A check of a derived table's staged rows: blocking ones keep bad rows from being
    published; the others warn and publish."""

    name: str
    description: str
    blocking: bool = True

    def spec(self, asset: str) -> dg.AssetCheckSpec:
        return dg.AssetCheckSpec(self.name, asset=asset, blocking=self.blocking, description=self.description)


def check_specs(asset: str, audits: Sequence[Audit]) -> list[dg.AssetCheckSpec]:
    return [audit.spec(asset) for audit in audits]


def _check_result(audit: Audit, problems: list[str], staged_rows: int, staging: str) -> dg.AssetCheckResult:
    return dg.AssetCheckResult(
        check_name=audit.name,
        passed=not problems,
        severity=dg.AssetCheckSeverity.ERROR if audit.blocking else dg.AssetCheckSeverity.WARN,
        description="; ".join(problems[:SHOWN_PROBLEMS]) if problems else f"{staged_rows} staged row(s) pass",
        metadata={"problems": len(problems), "staged_rows": staged_rows, "staging_table": staging},
    )


def write_audit_publish(
    conn: duckdb.DuckDBPyConnection,
    table: Table,
    rows: pl.DataFrame,
    audits: Mapping[Audit, ProblemFinder],
    *,
    where: str | None = None,
    params: Sequence[object] = (),
) -> Generator[dg.AssetCheckResult, None, list[dg.AssetCheckResult]]:
    """Stage `rows` for `table`, run `audits` on what was staged, and publish it (the
    whole table, or the slice `where` selects) when no blocking audit finds a problem.

    Use with `yield from` in a generator asset: it returns the check results to attach to
    the materialization; when a blocking audit fails it yields them instead and raises
    `dg.Failure`, so nothing downstream runs on the old rows as if they were new."""
    staging = stage(conn, table.name, rows)
    staged = read_frame(conn, f"SELECT * FROM {staging}")
    staged = staged.cast({column: dtype for column, dtype in table.schema.items() if column in staged.columns})
    found = {audit: finder(staged) for audit, finder in audits.items()}
    results = [_check_result(audit, problems, staged.height, staging) for audit, problems in found.items()]
    rejected = [audit.name for audit, problems in found.items() if audit.blocking and problems]
    if rejected:
        yield from results
        raise dg.Failure(
            description=f"{table.name} not published: {', '.join(rejected)} failed on the staged rows "
            f"({staging}); the published rows are unchanged",
            metadata={"staging_table": staging, "staged_rows": staged.height, "failed_checks": ", ".join(rejected)},
        )
    publish_staged(conn, table.name, where, params)
    return results
