"""The DuckDB warehouse: one file, schemas raw/core/metrics, all-or-nothing writes.

Every write goes through one transaction (delete the slice, insert the new rows), so a
failure or a killed process leaves the previous rows whole, and writing the same slice
twice gives the same rows. Tables are created from the first frame written to them and
gain columns when a later frame brings new ones.

Derived tables are written, audited, then published: `stage` puts the new rows in
`staging.<schema>__<table>`, the blocking checks read them there, and `publish_staged`
swaps them in and drops the staging table in one transaction. Rows that fail a check stay
staged for inspection, and the published table keeps its rows.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb
import polars as pl
from dagster_duckdb import DuckDBResource
from pydantic import PrivateAttr

from orchestration.tables import Table

SCHEMAS = ("raw", "core", "metrics", "staging")

#: Name of the Dagster pool every warehouse writer runs in (limit 1: DuckDB takes one
#: writer process at a time, so a backfill must never run two writers at once).
WRITER_POOL = "duckdb_writer"


def _quote(identifier: str) -> str:
    return ".".join('"' + part.replace('"', '""') + '"' for part in identifier.split("."))


def ensure_schemas(conn: duckdb.DuckDBPyConnection) -> None:
    for schema in SCHEMAS:
        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")


def table_exists(conn: duckdb.DuckDBPyConnection, table: str) -> bool:
    schema, name = table.split(".")
    return bool(
        conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = ?",
            [schema, name],
        ).fetchone()[0]
    )


def _ensure_table(conn: duckdb.DuckDBPyConnection, table: str, frame_view: str) -> None:
    """Create `table` shaped like the registered view, or add the view's new columns."""
    if not table_exists(conn, table):
        conn.execute(f"CREATE TABLE {_quote(table)} AS SELECT * FROM {frame_view} LIMIT 0")
        return
    schema, name = table.split(".")
    existing = {
        row[0]
        for row in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = ? AND table_name = ?",
            [schema, name],
        ).fetchall()
    }
    for column, column_type, *_ in conn.execute(f"DESCRIBE SELECT * FROM {frame_view}").fetchall():
        if column not in existing:
            conn.execute(f"ALTER TABLE {_quote(table)} ADD COLUMN {_quote(column)} {column_type}")


@contextmanager
def _transaction(conn: duckdb.DuckDBPyConnection) -> Iterator[None]:
    conn.execute("BEGIN TRANSACTION")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


@dataclass(frozen=True)
class SliceWrite:
    """Rows to put in place of the slice of `table` that `where` selects."""

    table: str
    frame: pl.DataFrame
    where: str
    params: Sequence[object] = ()


def write_slices(conn: duckdb.DuckDBPyConnection, writes: Sequence[SliceWrite]) -> None:
    """Replace several slices in one transaction: all of them land, or none does.

    Every row of a write's frame must belong to the slice its `where` selects, or a
    rerun would not give the same table.
    """
    views = [f"incoming_rows_{index}" for index in range(len(writes))]
    for view, write in zip(views, writes, strict=True):
        conn.register(view, write.frame.to_arrow())
    try:
        with _transaction(conn):
            for view, write in zip(views, writes, strict=True):
                _ensure_table(conn, write.table, view)
                conn.execute(f"DELETE FROM {_quote(write.table)} WHERE {write.where}", list(write.params))
                conn.execute(f"INSERT INTO {_quote(write.table)} BY NAME SELECT * FROM {view}")
    finally:
        for view in views:
            conn.unregister(view)


def replace_rows(
    conn: duckdb.DuckDBPyConnection,
    table: str,
    frame: pl.DataFrame,
    where: str,
    params: Sequence[object] = (),
) -> int:
    """Replace the rows of `table` matching `where` by `frame`, in one transaction."""
    write_slices(conn, [SliceWrite(table, frame, where, params)])
    return frame.height


def replace_table(conn: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame) -> int:
    """Replace the whole content of `table` by `frame` (for derived tables)."""
    conn.register("incoming_rows", frame.to_arrow())
    try:
        with _transaction(conn):
            conn.execute(f"CREATE OR REPLACE TABLE {_quote(table)} AS SELECT * FROM incoming_rows")
    finally:
        conn.unregister("incoming_rows")
    return frame.height


def upsert_rows(
    conn: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame, key_columns: Sequence[str]
) -> int:
    """Insert `frame`, replacing the rows of `table` that share its key, in one transaction."""
    keys = ", ".join(_quote(column) for column in key_columns)
    conn.register("incoming_rows", frame.to_arrow())
    try:
        with _transaction(conn):
            _ensure_table(conn, table, "incoming_rows")
            conn.execute(
                f"DELETE FROM {_quote(table)} WHERE ({keys}) IN (SELECT ({keys}) FROM incoming_rows)"
                if len(key_columns) > 1
                else f"DELETE FROM {_quote(table)} WHERE {keys} IN (SELECT {keys} FROM incoming_rows)"
            )
            conn.execute(f"INSERT INTO {_quote(table)} BY NAME SELECT * FROM incoming_rows")
    finally:
        conn.unregister("incoming_rows")
    return frame.height


def staging_table(table: str) -> str:
    """Where the new rows of `table` wait for their checks: `staging.core__evidence`."""
    return f"staging.{table.replace('.', '__')}"


def stage(conn: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame) -> str:
    """Write `frame` as the staged rows of `table` (replacing rows staged before); return
    the staging table's name."""
    staged = staging_table(table)
    conn.register("staged_rows", frame.to_arrow())
    try:
        conn.execute(f"CREATE OR REPLACE TABLE {_quote(staged)} AS SELECT * FROM staged_rows")
    finally:
        conn.unregister("staged_rows")
    return staged


def publish_staged(
    conn: duckdb.DuckDBPyConnection, table: str, where: str | None = None, params: Sequence[object] = ()
) -> None:
    """Swap the staged rows of `table` in, in one transaction with dropping them: the
    whole table, or (with `where`) the slice it selects."""
    staged = _quote(staging_table(table))
    with _transaction(conn):
        if where is None:
            conn.execute(f"CREATE OR REPLACE TABLE {_quote(table)} AS SELECT * FROM {staged}")
        else:
            _ensure_table(conn, table, staged)
            conn.execute(f"DELETE FROM {_quote(table)} WHERE {where}", list(params))
            conn.execute(f"INSERT INTO {_quote(table)} BY NAME SELECT * FROM {staged}")
        conn.execute(f"DROP TABLE {staged}")


def read_frame(conn: duckdb.DuckDBPyConnection, sql: str, params: Sequence[object] = ()) -> pl.DataFrame:
    return conn.execute(sql, list(params)).pl()


def read_table(conn: duckdb.DuckDBPyConnection, table: Table, columns: Sequence[str] | None = None) -> pl.DataFrame:
    """All rows of `table` (none before it exists) with the contract's types, or only
    `columns`: DuckDB gives UTC times back as `Etc/UTC`, which polars will not mix with `UTC`."""
    frame = read_frame(conn, f"SELECT * FROM {_quote(table.name)}") if table_exists(conn, table.name) else table.empty()
    frame = frame.cast({column: dtype for column, dtype in table.schema.items() if column in frame.columns})
    return frame.select(columns) if columns is not None else frame


class Warehouse(DuckDBResource):
    """The tracker's DuckDB file (TRACKER_DUCKDB_PATH, default data/tracker.duckdb)."""

    #: The connection of the open `session`, which every `connect` inside it reuses.
    _session: duckdb.DuckDBPyConnection | None = PrivateAttr(default=None)

    @classmethod
    def _is_dagster_maintained(cls) -> bool:
        return False

    @contextmanager
    def connect(self) -> Iterator[duckdb.DuckDBPyConnection]:
        if self._session is not None:
            yield self._session
            return
        if self.database != ":memory:":
            Path(self.database).parent.mkdir(parents=True, exist_ok=True)
        with self.get_connection() as conn:
            # DuckDBResource closes only after a clean exit: a failed write must not leave
            # the file open for the next connection in this process.
            try:
                ensure_schemas(conn)
                yield conn
            finally:
                conn.close()

    @contextmanager
    def session(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """One connection for a whole materialization: the warehouse is opened once, and
        every read and write inside reuses it."""
        if self._session is not None:
            yield self._session
            return
        with self.connect() as conn:
            self._session = conn
            try:
                yield conn
            finally:
                self._session = None

    def read(self, sql: str, params: Sequence[object] = ()) -> pl.DataFrame:
        with self.connect() as conn:
            return read_frame(conn, sql, params)

    def table_or_empty(self, table: str, empty: pl.DataFrame) -> pl.DataFrame:
        """All rows of `table`, or `empty` (with its schema) when nothing was written yet."""
        with self.connect() as conn:
            if not table_exists(conn, table):
                return empty
            return read_frame(conn, f"SELECT * FROM {_quote(table)}")

    def read_table(self, table: Table, columns: Sequence[str] | None = None) -> pl.DataFrame:
        """`read_table` on this warehouse."""
        with self.connect() as conn:
            return read_table(conn, table, columns)
