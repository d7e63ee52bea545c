"""Content hashes of every warehouse table: equal hashes mean equal tables.

    .venv/bin/python bench/table_hashes.py [DUCKDB_FILE] [--json OUT] [--compare EARLIER.json]

Each table's rows are read in a total order (ORDER BY ALL) and hashed with their column
names and types, so two runs that wrote the same rows, in any storage order, print the
same hash. Columns that record when a refresh ran (WALL_CLOCK_COLUMNS) are left out. Used to show that a refactoring changed no table, that a rerun after a crash
converges to the clean run's tables, and that a backend gives the embedded default's rows.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import duckdb

DEFAULT_DATABASE = "data/tracker.duckdb"
#: Bookkeeping columns that hold the wall-clock time of a refresh or, for live sources,
#: of a fetch: left out of the hash, since two runs of the same input differ there by design.
WALL_CLOCK_COLUMNS = {
    "raw.source_state": ("updated_at",),
    "raw.framework_docs": ("fetched_at",),
    "raw.openalex_works": ("fetched_at",),
    "raw.report_texts": ("fetched_at",),
}


def table_hashes(database: str | Path) -> dict[str, dict[str, object]]:
    """{schema.table: {"rows": n, "sha256": hex}} of every table of the file."""
    with duckdb.connect(str(database), read_only=True) as conn:
        tables = conn.execute(
            "SELECT table_schema, table_name FROM information_schema.tables "
            "WHERE table_type = 'BASE TABLE' ORDER BY 1, 2"
        ).fetchall()
        hashes = {}
        for schema, name in tables:
            qualified = f'"{schema}"."{name}"'
            skipped = WALL_CLOCK_COLUMNS.get(f"{schema}.{name}", ())
            described = [
                (column, kind)
                for column, kind, *_ in conn.execute(f"DESCRIBE {qualified}").fetchall()
                if column not in skipped
            ]
            digest = hashlib.sha256(repr(described).encode())
            columns = ", ".join(f'"{column}"' for column, _ in described)
            cursor = conn.execute(f"SELECT {columns} FROM {qualified} ORDER BY ALL")
            rows = 0
            while batch := cursor.fetchmany(10_000):
                rows += len(batch)
                digest.update(repr(batch).encode())
            hashes[f"{schema}.{name}"] = {"rows": rows, "sha256": digest.hexdigest()}
    return hashes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("database", nargs="?", default=DEFAULT_DATABASE)
    parser.add_argument("--json", metavar="OUT", help="also write the hashes to this file")
    parser.add_argument("--compare", metavar="EARLIER", help="a file written by --json: print what differs")
    args = parser.parse_args(argv)
    hashes = table_hashes(args.database)
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
