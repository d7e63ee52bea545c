"""Content hashes of every warehouse table: equal hashes mean equal tables.

    .venv/bin/python bench/table_hashes.py [DUCKDB_FILE] [--json OUT] [--compare EARLIER.json]
    .venv/bin/python bench/table_hashes.py ducklake:postgres:<conninfo> [...]   (TRACKER_DATA_PATH set)

Each table's rows are read in a total order (ORDER BY ALL) and hashed with their column
names and types, so two runs that wrote the same rows, in any storage order, print the
same hash. Columns that record when a refresh ran (WALL_CLOCK_COLUMNS) are left out. Used to show that a refactoring changed no table, that a rerun after a crash
converges to the clean run's tables, and that a backend gives the embedded default's rows.

`slice_hashes` hashes each partition of a table apart (SLICE_COLUMNS: the slice one write
replaces), and `foreign_slices` lists the slices of one warehouse that another does not
hold as they are: after a crash, a slice present must be the clean run's, never half of it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from orchestration.warehouse import Warehouse

DEFAULT_DATABASE = "data/tracker.duckdb"
#: Bookkeeping columns that hold the wall-clock time of a refresh or, for live sources,
#: of a fetch: left out of the hash, since two runs of the same input differ there by design.
WALL_CLOCK_COLUMNS = {
    "raw.source_state": ("updated_at",),
    "raw.framework_docs": ("fetched_at",),
    "raw.openalex_works": ("fetched_at",),
    "raw.report_texts": ("fetched_at",),
}
#: The columns that name the slice one write replaces (a partition: a day, a framework, a
#: cohort); a table not named here is replaced whole, so it is one slice.
SLICE_COLUMNS = {
    "raw.arxiv_entries": ("day",),
    "raw.quarantine": ("source", "partition_day"),
    **{
        table: ("framework",)
        for table in (
            "raw.git_commits",
            "raw.git_commit_files",
            "raw.github_threads",
            "raw.github_comments",
            "raw.framework_docs",
            "raw.source_state",
            "raw.http_cache",
        )
    },
    **{table: ("cohort",) for table in ("metrics.cohort_inclusion", "metrics.included_vs_peers", "metrics.time_to_inclusion")},
}
WHOLE_TABLE = "*"
#: Where write-audit-publish stages rows before its checks (see foreign_slices).
STAGING_SCHEMA = "staging"


def _base_tables(conn: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
    """The warehouse's tables (of the default catalog: a DuckLake's metadata catalog is
    attached beside it)."""
    return conn.execute(
        "SELECT table_schema, table_name FROM information_schema.tables "
        "WHERE table_type = 'BASE TABLE' AND table_catalog = current_database() ORDER BY 1, 2"
    ).fetchall()


@contextmanager
def _reading(database: str | Path | Warehouse) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection to a DuckDB file (read-only) or to a `Warehouse` (a DuckLake)."""
    if isinstance(database, Warehouse):
        with database.connect() as conn:
            yield conn
    else:
        with duckdb.connect(str(database), read_only=True) as conn:
            yield conn


def _hashed_columns(conn: duckdb.DuckDBPyConnection, schema: str, name: str) -> list[tuple[str, str]]:
    """(column, type) of a table, its wall-clock columns left out."""
    skipped = WALL_CLOCK_COLUMNS.get(f"{schema}.{name}", ())
    described = conn.execute(f'DESCRIBE "{schema}"."{name}"').fetchall()
    return [(column, kind) for column, kind, *_ in described if column not in skipped]


def table_hashes(database: str | Path | Warehouse) -> dict[str, dict[str, object]]:
    """{schema.table: {"rows": n, "sha256": hex}} of every table of the file or warehouse."""
    with _reading(database) as conn:
        hashes = {}
        for schema, name in _base_tables(conn):
            qualified = f'"{schema}"."{name}"'
            described = _hashed_columns(conn, schema, name)
            digest = hashlib.sha256(repr(described).encode())
            columns = ", ".join(f'"{column}"' for column, _ in described)
            cursor = conn.execute(f"SELECT {columns} FROM {qualified} ORDER BY ALL")
            rows = 0
            while batch := cursor.fetchmany(10_000):
                rows += len(batch)
                digest.update(repr(batch).encode())
            hashes[f"{schema}.{name}"] = {"rows": rows, "sha256": digest.hexdigest()}
    return hashes


def slice_hashes(database: str | Path) -> dict[str, dict[str, str]]:
    """{schema.table: {slice: hash}}: one hash per slice (SLICE_COLUMNS values joined by
    '/', or WHOLE_TABLE) of every table, over the rows in a total order. Equal hashes,
    equal slices; a table without rows has no slices."""
    with duckdb.connect(str(database), read_only=True) as conn:
        hashes: dict[str, dict[str, str]] = {}
        for schema, name in _base_tables(conn):
            table = f"{schema}.{name}"
            columns = ", ".join(f'"{column}"' for column, _ in _hashed_columns(conn, schema, name))
            keys = SLICE_COLUMNS.get(table)
            key = " || '/' || ".join(f'coalesce(CAST("{k}" AS VARCHAR), \'null\')' for k in keys) if keys else f"'{WHOLE_TABLE}'"
            rows = conn.execute(
                f"SELECT {key} AS slice, md5(string_agg(md5(CAST(t AS VARCHAR)), '' ORDER BY md5(CAST(t AS VARCHAR)))) "
                f'FROM (SELECT {columns} FROM "{schema}"."{name}") t GROUP BY slice'
            ).fetchall()
            hashes[table] = dict(rows)
    return hashes


def foreign_slices(found: dict[str, dict[str, str]], reference: dict[str, dict[str, str]]) -> list[str]:
    """`table[slice]` of every slice in `found` that `reference` does not hold with the same
    rows: after a crash of a first run, every slice written must be the clean run's whole.
    The `staging` schema is left out: staged rows are never read as published, and the next
    materialization of their asset stages its own (write-audit-publish)."""
    return [
        f"{table}[{key}]"
        for table, slices in sorted(found.items())
        if not table.startswith(f"{STAGING_SCHEMA}.")
        for key, digest in sorted(slices.items())
        if reference.get(table, {}).get(key) != digest
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("database", nargs="?", default=DEFAULT_DATABASE)
    parser.add_argument("--json", metavar="OUT", help="also write the hashes to this file")
    parser.add_argument("--compare", metavar="EARLIER", help="a file written by --json: print what differs")
    args = parser.parse_args(argv)
    database = args.database
    if database.startswith("ducklake:"):
        database = Warehouse(database=":memory:", backend=database, data_path=os.environ.get("TRACKER_DATA_PATH"))
    hashes = table_hashes(database)
    for table, figures in hashes.items():
        print(f"{table:36} {figures['rows']:>8} rows  {figures['sha256'][:16]}")
    if args.json:
        Path(args.json).write_text(json.dumps(hashes, indent=2, sort_keys=True))
    if args.compare:
        earlier = json.loads(Path(args.compare).read_text())
        differing = sorted(t for t in set(hashes) | set(earlier) if hashes.get(t) != earlier.get(t))
        print(f"\n{len(hashes) - len(differing)} tables equal, {len(differing)} differ: {', '.join(differing) or 'none'}")
        return 1 if differing else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
