"""The warehouse: schemas raw/core/metrics, all-or-nothing writes, on one of two backends.

`TRACKER_WAREHOUSE` chooses the backend: `duckdb` (the default: one DuckDB file, one
writer process at a time) or `ducklake:postgres:<conninfo>` (a DuckLake catalog in
PostgreSQL with Parquet data files under `TRACKER_DATA_PATH`, a folder or an `s3://`
URL, in AWS or at `AWS_ENDPOINT_URL` (MinIO, R2, Ceph); writers in several processes at
once). The write helpers below are the same SQL on both: in DuckLake mode the lake is
attached as `lake` and made the default catalog.

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

import importlib.util
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import dagster as dg
import duckdb
import polars as pl
from dagster_duckdb import DuckDBResource
from pydantic import Field, PrivateAttr
from tenacity import Retrying, retry_if_exception, stop_after_delay, wait_random_exponential

from orchestration.settings import ConfigError
from orchestration.tables import Table

SCHEMAS = ("raw", "core", "metrics", "staging")

T = TypeVar("T")

#: Name of the Dagster pool every warehouse writer runs in. Its limit is the number of
#: writers the backend admits: 1 for the DuckDB file (one writer process at a time, so a
#: backfill must never run two writers at once), TRACKER_WRITERS for DuckLake.
WRITER_POOL = "duckdb_writer"

DUCKDB = "duckdb"
DUCKLAKE_POSTGRES = "ducklake:postgres:"
#: Writers at once in DuckLake mode when TRACKER_WRITERS is unset.
DEFAULT_LAKE_WRITERS = 4
#: The catalog name the lake is attached under (and made the default, `USE lake`).
LAKE_CATALOG = "lake"
#: A DuckLake commit that conflicts with one committed meanwhile fails whole (DuckLake
#: 1.5: one transaction inserted into a table the other deleted from, as two frameworks'
#: slice replaces of one table do); the transaction is run again, after a random backoff,
#: for up to this many seconds. Every conflict means another writer's commit landed, so
#: under contention the writers take turns rather than fail after a fixed count.
COMMIT_RETRY_SECONDS = 600
#: DuckDB must never fetch an extension at run time: DuckLake mode loads the extension
#: files shipped in the PyPI packages (EXTENSION_PACKAGES) and nothing else.
NO_EXTENSION_DOWNLOADS = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
#: extension -> the PyPI package (import name) that ships its binary, built for the pinned duckdb.
EXTENSION_PACKAGES = {
    "ducklake": "duckdb_extension_ducklake",
    "postgres_scanner": "duckdb_extension_postgres_scanner",
    "httpfs": "duckdb_extension_httpfs",
    "aws": "duckdb_extension_aws",
}
#: Extensions needed for Parquet files in S3 (the optional `s3` extra of the project).
S3_EXTENSIONS = ("httpfs", "aws")


class WarehouseUnavailable(RuntimeError):
    """The DuckLake catalog cannot be attached (the message says why, without the password)."""


@dataclass(frozen=True)
class WarehouseSetting:
    """TRACKER_WAREHOUSE (with TRACKER_DATA_PATH and TRACKER_WRITERS), parsed."""

    backend: str  # DUCKDB or DUCKLAKE_POSTGRES
    catalog: str | None = None  # the PostgreSQL conninfo or URL of the DuckLake catalog
    data_path: str | None = None  # absolute folder ending in "/", or an s3:// URL
    writers: int = 1
    s3_endpoint: str | None = None  # an S3-compatible service's http(s)://host[:port], for s3:// data

    @property
    def is_lake(self) -> bool:
        return self.backend == DUCKLAKE_POSTGRES

    @property
    def in_s3(self) -> bool:
        return bool(self.data_path and self.data_path.startswith("s3://"))


def parse_warehouse_setting(
    warehouse: str | None,
    data_path: str | None = None,
    writers: str | int | None = None,
    s3_endpoint: str | None = None,
) -> WarehouseSetting:
    """The backend the settings name, or a ConfigError in one line naming the fix.
    The catalog's conninfo may hold a password: no message repeats it. `s3_endpoint`
    (AWS_ENDPOINT_URL) counts only for s3:// data: other tools read that variable too."""
    warehouse = (warehouse or DUCKDB).strip()
    if warehouse != DUCKDB and not warehouse.startswith(DUCKLAKE_POSTGRES):
        shown = ":".join(warehouse.split(":")[:2])
        raise ConfigError(
            f"TRACKER_WAREHOUSE: expected 'duckdb' or 'ducklake:postgres:<libpq conninfo or postgres:// URL>', "
            f"got a value starting {shown!r}; fix the setting"
        )
    try:
        count = int(writers) if writers not in (None, "") else None
    except ValueError:
        count = 0
    if count is not None and count < 1:
        raise ConfigError(f"TRACKER_WRITERS: expected a whole number of writers from 1, got {writers!r}; fix the setting")
    if warehouse == DUCKDB:
        if count not in (None, 1):
            raise ConfigError(
                f"TRACKER_WRITERS={count}: the duckdb warehouse file takes one writer at a time; unset "
                "TRACKER_WRITERS, or set TRACKER_WAREHOUSE=ducklake:postgres:<conninfo> for parallel writers"
            )
        return WarehouseSetting(DUCKDB)
    catalog = warehouse.removeprefix(DUCKLAKE_POSTGRES).strip()
    if not catalog:
        raise ConfigError(
            "TRACKER_WAREHOUSE=ducklake:postgres: names no database; add its conninfo "
            "(ducklake:postgres:dbname=tracker host=db user=tracker) or URL (ducklake:postgres:postgresql://db/tracker)"
        )
    if not data_path:
        raise ConfigError(
            "TRACKER_WAREHOUSE=ducklake:… needs TRACKER_DATA_PATH: the folder (shared by every writer) "
            "or s3:// URL that holds the lake's Parquet files"
        )
    endpoint = None
    if data_path.startswith("s3://"):
        location = data_path.rstrip("/") + "/"
        endpoint = parse_s3_endpoint(s3_endpoint) if s3_endpoint else None
    elif "://" in data_path:
        raise ConfigError(f"TRACKER_DATA_PATH={data_path}: expected a folder or an s3:// URL; fix the setting")
    else:  # the catalog records the path: never relative to one writer's working directory
        location = str(Path(data_path).expanduser().resolve()) + "/"
    return WarehouseSetting(DUCKLAKE_POSTGRES, catalog, location, count or DEFAULT_LAKE_WRITERS, endpoint)


def parse_s3_endpoint(url: str) -> str:
    """AWS_ENDPOINT_URL as `http(s)://host[:port]`, or a ConfigError naming the fix."""
    match = re.fullmatch(r"(https?)://([A-Za-z0-9.\-]+(?::\d{1,5})?)/?", url.strip())
    if not match:
        raise ConfigError(
            f"AWS_ENDPOINT_URL={re.sub(r'//[^/@]*@', '//***@', url)}: expected the S3-compatible service as http(s)://host[:port] "
            "(for example http://minio:9000); fix the setting or unset it for AWS S3"
        )
    return f"{match[1]}://{match[2]}"


def extension_file(name: str) -> Path:
    """The binary of DuckDB extension `name` shipped in its PyPI package (for the pinned
    duckdb version), or a ConfigError naming the package to install."""
    package = EXTENSION_PACKAGES[name]
    spec = importlib.util.find_spec(package)
    folder = Path(spec.origin).parent if spec and spec.origin else None
    files = sorted(folder.glob(f"extensions/v{duckdb.__version__}/*.duckdb_extension")) if folder else []
    if not files:
        pip_name = package.replace("_", "-")
        raise ConfigError(
            f"DuckDB extension {name} for duckdb {duckdb.__version__} not installed; "
            f"pip install {pip_name}=={duckdb.__version__} (the project pins it: pip install -e .)"
        )
    return files[0]


def load_extensions(conn: duckdb.DuckDBPyConnection, names: Sequence[str]) -> None:
    """LOAD each extension from its package's file (never INSTALL: nothing is fetched)."""
    for name in names:
        conn.execute(f"LOAD '{_literal(str(extension_file(name)))}'")


def attach_lake(conn: duckdb.DuckDBPyConnection, setting: WarehouseSetting) -> None:
    """Load the extensions from their packages (nothing is downloaded), attach the DuckLake
    catalog as `lake` and make it the default, so the helpers' SQL is the DuckDB file's."""
    load_extensions(conn, ["ducklake", "postgres_scanner", *(S3_EXTENSIONS if setting.in_s3 else ())])
    if setting.in_s3:
        # The usual AWS variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
        # AWS_REGION) or ~/.aws; never the instance metadata service.
        conn.execute(
            "CREATE OR REPLACE SECRET tracker_lake_s3 (TYPE s3, PROVIDER credential_chain, CHAIN 'env;config'"
            f"{_s3_endpoint_options(setting.s3_endpoint)})"
        )
    else:
        Path(setting.data_path).mkdir(parents=True, exist_ok=True)
    try:
        # DATA_INLINING_ROW_LIMIT 0: small writes go to Parquet files of their own, not
        # into the catalog. DuckLake 1.5 fails the commit of two writers that both delete
        # a table's inlined rows, while deletes from different files pass (an insert and a
        # delete on one table conflict either way: COMMIT_RETRY_SECONDS). The weekly
        # `compact_warehouse` merges the small files.
        conn.execute(
            f"ATTACH '{_literal(DUCKLAKE_POSTGRES + setting.catalog)}' AS {LAKE_CATALOG} "
            f"(DATA_PATH '{_literal(setting.data_path)}', DATA_INLINING_ROW_LIMIT 0)"
        )
    except duckdb.Error as error:  # its message may quote the conninfo, password and all
        reason = " ".join(str(error).replace(setting.catalog, "<catalog>").split())
        reason = re.sub(r"(password\s*=\s*)\S+", r"\1***", reason)
        reason = re.sub(r"(://[^:/@\s]+:)[^@\s]+@", r"\1***@", reason)
        raise WarehouseUnavailable(
            f"cannot attach the DuckLake catalog of TRACKER_WAREHOUSE ({reason}); check that its PostgreSQL "
            "server is reachable and the database exists"
        ) from None
    conn.execute(f"USE {LAKE_CATALOG}")


def _s3_endpoint_options(endpoint: str | None) -> str:
    """The secret's options for an S3-compatible service (DuckDB's credential chain does not
    read AWS_ENDPOINT_URL): its host, TLS or not, and path-style URLs (bucket in the path),
    which MinIO and the like serve without wildcard DNS."""
    if endpoint is None:
        return ""
    scheme, host = endpoint.split("://")
    return f", ENDPOINT '{_literal(host)}', USE_SSL {str(scheme == 'https').lower()}, URL_STYLE 'path'"


def _literal(text: str) -> str:
    return text.replace("'", "''")


def _is_commit_conflict(error: BaseException) -> bool:
    return isinstance(error, duckdb.TransactionException) and "conflict" in str(error).lower()


def _log_conflict(retry_state) -> None:
    error = retry_state.outcome.exception()
    dg.get_dagster_logger().warning(
        f"warehouse commit conflicted with a concurrent writer (attempt {retry_state.attempt_number}, "
        f"{retry_state.seconds_since_start:.1f} s of up to {COMMIT_RETRY_SECONDS} s); running the whole "
        f"transaction again: {str(error).splitlines()[-1]}"
    )


def _quote(identifier: str) -> str:
    return ".".join('"' + part.replace('"', '""') + '"' for part in identifier.split("."))


def ensure_schemas(conn: duckdb.DuckDBPyConnection) -> None:
    def create() -> None:
        for schema in SCHEMAS:
            conn.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")

    in_transaction(conn, create)


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


def _retried(body: Callable[[], T]) -> T:
    """`body`, run again after a random backoff where its commit conflicted with a
    concurrent writer's, for up to COMMIT_RETRY_SECONDS, each retry logged."""
    for attempt in Retrying(
        retry=retry_if_exception(_is_commit_conflict),
        stop=stop_after_delay(COMMIT_RETRY_SECONDS),
        wait=wait_random_exponential(multiplier=0.1, max=2),
        before_sleep=_log_conflict,
        reraise=True,
    ):
        with attempt:
            return body()
    raise AssertionError("unreachable: tenacity reraises the last error")


def in_transaction(conn: duckdb.DuckDBPyConnection, body: Callable[[], None]) -> None:
    """`body` in one transaction. Where its commit conflicts with a concurrent writer's
    (DuckLake: one inserted into a table the other deleted from, or both deleted rows
    of one file), nothing of it landed: the whole transaction runs again (`_retried`)."""

    def transaction() -> None:
        with _transaction(conn):
            body()

    _retried(transaction)


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

    def replace() -> None:
        for view, write in zip(views, writes, strict=True):
            _ensure_table(conn, write.table, view)
            conn.execute(f"DELETE FROM {_quote(write.table)} WHERE {write.where}", list(write.params))
            conn.execute(f"INSERT INTO {_quote(write.table)} BY NAME SELECT * FROM {view}")

    try:
        in_transaction(conn, replace)
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
        in_transaction(conn, lambda: conn.execute(f"CREATE OR REPLACE TABLE {_quote(table)} AS SELECT * FROM incoming_rows"))
    finally:
        conn.unregister("incoming_rows")
    return frame.height


def upsert_rows(
    conn: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame, key_columns: Sequence[str]
) -> int:
    """Insert `frame`, replacing the rows of `table` that share its key, in one transaction."""
    keys = ", ".join(_quote(column) for column in key_columns)
    conn.register("incoming_rows", frame.to_arrow())

    def upsert() -> None:
        _ensure_table(conn, table, "incoming_rows")
        conn.execute(
            f"DELETE FROM {_quote(table)} WHERE ({keys}) IN (SELECT ({keys}) FROM incoming_rows)"
            if len(key_columns) > 1
            else f"DELETE FROM {_quote(table)} WHERE {keys} IN (SELECT {keys} FROM incoming_rows)"
        )
        conn.execute(f"INSERT INTO {_quote(table)} BY NAME SELECT * FROM incoming_rows")

    try:
        in_transaction(conn, upsert)
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
        in_transaction(conn, lambda: conn.execute(f"CREATE OR REPLACE TABLE {_quote(staged)} AS SELECT * FROM staged_rows"))
    finally:
        conn.unregister("staged_rows")
    return staged


def publish_staged(
    conn: duckdb.DuckDBPyConnection, table: str, where: str | None = None, params: Sequence[object] = ()
) -> None:
    """Swap the staged rows of `table` in, in one transaction with dropping them: the
    whole table, or (with `where`) the slice it selects."""
    staged = _quote(staging_table(table))

    def publish() -> None:
        if where is None:
            conn.execute(f"CREATE OR REPLACE TABLE {_quote(table)} AS SELECT * FROM {staged}")
        else:
            _ensure_table(conn, table, staged)
            conn.execute(f"DELETE FROM {_quote(table)} WHERE {where}", list(params))
            conn.execute(f"INSERT INTO {_quote(table)} BY NAME SELECT * FROM {staged}")
        conn.execute(f"DROP TABLE {staged}")

    in_transaction(conn, publish)


#: Lake snapshots older than this are expired by `compact_lake`, and files they alone used are
#: deleted as long after: the tracker never reads an older snapshot, and no read lasts a week.
KEEP_SNAPSHOTS_DAYS = 7


@dataclass(frozen=True)
class Compaction:
    """What `Warehouse.compact` did: Parquet data and delete files the lake's tables use before and
    after, and the files it deleted from TRACKER_DATA_PATH (for the DuckDB file: its size)."""

    backend: str
    files_before: int = 0
    files_after: int = 0
    files_deleted: int = 0
    bytes_before: int = 0
    bytes_after: int = 0

    def describe(self) -> str:
        if self.backend == DUCKDB:
            return f"checkpointed the DuckDB file: {self.bytes_before:,} bytes before, {self.bytes_after:,} after"
        return (
            f"compacted the lake: {self.files_before:,} files in use before, {self.files_after:,} after "
            f"({self.bytes_before:,} -> {self.bytes_after:,} bytes); {self.files_deleted:,} unused file(s) deleted"
        )

    def metadata(self) -> dict[str, str | int]:
        """The figures of `describe` as run metadata (file counts only for the lake)."""
        files = {"files_before": self.files_before, "files_after": self.files_after, "files_deleted": self.files_deleted}
        return {
            "backend": self.backend.rstrip(":"),
            **(files if self.backend != DUCKDB else {}),
            "bytes_before": self.bytes_before,
            "bytes_after": self.bytes_after,
        }


def lake_files(conn: duckdb.DuckDBPyConnection) -> tuple[int, int]:
    """The data and delete files the lake's current tables use, and their bytes."""
    files, size = conn.execute(
        f"SELECT coalesce(sum(file_count + delete_file_count), 0), "
        f"coalesce(sum(file_size_bytes + delete_file_size_bytes), 0) FROM ducklake_table_info('{LAKE_CATALOG}')"
    ).fetchone()
    return int(files), int(size)


def compact_lake(conn: duckdb.DuckDBPyConnection, keep_days: int = KEEP_SNAPSHOTS_DAYS) -> Compaction:
    """Merge the small files the writers leave (one per table a transaction writes), rewrite
    files that are mostly deleted rows, expire the snapshots older than `keep_days` and
    delete the files nothing uses any more. Each step is its own lake transaction; one that
    conflicts with a writer's commit is run again, like a write."""
    before = lake_files(conn)
    age = f"now() - INTERVAL {int(keep_days)} DAY"
    for statement in (
        f"CALL ducklake_merge_adjacent_files('{LAKE_CATALOG}')",
        f"CALL ducklake_rewrite_data_files('{LAKE_CATALOG}')",
        f"CALL ducklake_expire_snapshots('{LAKE_CATALOG}', older_than => {age})",
    ):
        _retried(lambda statement=statement: conn.execute(statement).fetchall())
    deleted = _retried(lambda: conn.execute(f"CALL ducklake_cleanup_old_files('{LAKE_CATALOG}', older_than => {age})").fetchall())
    after = lake_files(conn)
    return Compaction(
        DUCKLAKE_POSTGRES,
        files_before=before[0],
        files_after=after[0],
        files_deleted=len(deleted),
        bytes_before=before[1],
        bytes_after=after[1],
    )


def read_frame(conn: duckdb.DuckDBPyConnection, sql: str, params: Sequence[object] = ()) -> pl.DataFrame:
    return conn.execute(sql, list(params)).pl()


def read_table(conn: duckdb.DuckDBPyConnection, table: Table, columns: Sequence[str] | None = None) -> pl.DataFrame:
    """All rows of `table` (none before it exists) with the contract's types, or only
    `columns`: DuckDB gives UTC times back as `Etc/UTC`, which polars will not mix with `UTC`."""
    frame = read_frame(conn, f"SELECT * FROM {_quote(table.name)}") if table_exists(conn, table.name) else table.empty()
    frame = frame.cast({column: dtype for column, dtype in table.schema.items() if column in frame.columns})
    return frame.select(columns) if columns is not None else frame


class Warehouse(DuckDBResource):
    """The tracker's warehouse: the DuckDB file (TRACKER_DUCKDB_PATH, default
    data/tracker.duckdb), or a DuckLake catalog in PostgreSQL (TRACKER_WAREHOUSE,
    TRACKER_DATA_PATH)."""

    backend: str = Field(
        default=DUCKDB,
        description="TRACKER_WAREHOUSE: 'duckdb' (the file at `database`) or 'ducklake:postgres:<conninfo or URL>' "
        "(a DuckLake catalog in PostgreSQL; several writers at once).",
    )
    data_path: str | None = Field(
        default=None,
        description="TRACKER_DATA_PATH: the folder or s3:// URL of the DuckLake's Parquet files (ducklake only).",
    )
    s3_endpoint: str | None = Field(
        default=None,
        description="AWS_ENDPOINT_URL: the S3-compatible service (http(s)://host[:port]) of s3:// data; unset for AWS.",
    )

    #: The connection of the open `session`, which every `connect` inside it reuses.
    _session: duckdb.DuckDBPyConnection | None = PrivateAttr(default=None)

    @classmethod
    def _is_dagster_maintained(cls) -> bool:
        return False

    def setting(self) -> WarehouseSetting:
        return parse_warehouse_setting(self.backend, self.data_path, None, self.s3_endpoint)

    @contextmanager
    def connect(self) -> Iterator[duckdb.DuckDBPyConnection]:
        if self._session is not None:
            yield self._session
            return
        setting = self.setting()
        if setting.is_lake:
            with self._lake_connection(setting) as conn:
                ensure_schemas(conn)
                yield conn
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
    def _lake_connection(self, setting: WarehouseSetting) -> Iterator[duckdb.DuckDBPyConnection]:
        """An in-memory DuckDB with the lake attached as its default catalog."""
        conn = duckdb.connect(":memory:", config={"custom_user_agent": "dagster", **NO_EXTENSION_DOWNLOADS})
        try:
            attach_lake(conn, setting)
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

    def compact(self, keep_days: int = KEEP_SNAPSHOTS_DAYS) -> Compaction:
        """`compact_lake` on the lake; on the DuckDB file, a CHECKPOINT (the write-ahead
        log moved into the file, freed blocks reused)."""
        with self.connect() as conn:
            if self.setting().is_lake:
                return compact_lake(conn, keep_days)
            before = self._file_bytes()
            conn.execute("CHECKPOINT")
            return Compaction(DUCKDB, bytes_before=before, bytes_after=self._file_bytes())

    def _file_bytes(self) -> int:
        files = [Path(self.database), Path(f"{self.database}.wal")] if self.database != ":memory:" else []
        return sum(path.stat().st_size for path in files if path.exists())

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
