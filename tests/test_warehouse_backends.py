"""Choosing the warehouse's backend: one setting, checked once, and DuckDB's extensions
loaded from their PyPI packages with no network at all."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import dagster as dg
import pytest

from orchestration.cli import prepare_instance_home
from orchestration.resources import WAREHOUSE_VARIABLES, warehouse_setting
from orchestration.settings import ConfigError
from orchestration.warehouse import DEFAULT_LAKE_WRITERS, Warehouse, WarehouseUnavailable, parse_warehouse_setting
from tests.helpers import REPO_ROOT

SECRET = "hunter2"


def test_the_default_is_the_duckdb_file_with_one_writer():
    for value in (None, "", "duckdb"):
        setting = parse_warehouse_setting(value)
        assert (setting.is_lake, setting.writers) == (False, 1)
    assert parse_warehouse_setting("duckdb", None, "1").writers == 1


def test_ducklake_takes_a_conninfo_or_url_an_absolute_data_folder_and_writers(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    setting = parse_warehouse_setting("ducklake:postgres:dbname=tracker host=db", "lake")
    assert setting.is_lake and setting.catalog == "dbname=tracker host=db"
    assert setting.data_path == f"{tmp_path}/lake/"  # the catalog records it: never relative
    assert setting.writers == DEFAULT_LAKE_WRITERS
    url = parse_warehouse_setting("ducklake:postgres:postgresql://u@db:5432/tracker", "s3://bucket/lake", "7")
    assert (url.catalog, url.data_path, url.writers) == ("postgresql://u@db:5432/tracker", "s3://bucket/lake/", 7)


def test_an_s3_endpoint_counts_for_s3_data_only():
    catalog = "ducklake:postgres:dbname=x"
    assert parse_warehouse_setting(catalog, "s3://b/lake", None, "http://minio:9000/").s3_endpoint == "http://minio:9000"
    assert parse_warehouse_setting(catalog, "s3://b/lake").s3_endpoint is None  # AWS itself
    # Other tools read AWS_ENDPOINT_URL too: with data in a folder it is ignored, malformed or not.
    assert parse_warehouse_setting(catalog, "/srv/lake", None, "not a url").s3_endpoint is None


MALFORMED = {
    "unknown backend": (("sqlite:tracker.db",), r"^TRACKER_WAREHOUSE: expected 'duckdb' or 'ducklake:postgres:<libpq conninfo or postgres:// URL>', got a value starting 'sqlite:tracker.db'; fix the setting$"),
    "a bare URL": ((f"postgresql://u:{SECRET}@db/x",), r"got a value starting 'postgresql://u"),
    "another catalog": ((f"ducklake:sqlite:{SECRET}",), r"got a value starting 'ducklake:sqlite'"),
    "no database": (("ducklake:postgres:", "lake"), r"names no database; add its conninfo"),
    "no data path": ((f"ducklake:postgres:password={SECRET}",), r"needs TRACKER_DATA_PATH: the folder \(shared by every writer\) or s3:// URL"),
    "another URL scheme": (("ducklake:postgres:dbname=x", "gs://bucket/lake"), r"TRACKER_DATA_PATH=gs://bucket/lake: expected a folder or an s3:// URL"),
    "writers not a number": (("ducklake:postgres:dbname=x", "lake", "four"), r"TRACKER_WRITERS: expected a whole number of writers from 1, got 'four'"),
    "no writers": (("ducklake:postgres:dbname=x", "lake", "0"), r"TRACKER_WRITERS: expected a whole number"),
    "an endpoint with a path": (("ducklake:postgres:dbname=x", "s3://b/lake", None, "http://minio:9000/bucket"), r"^AWS_ENDPOINT_URL=http://minio:9000/bucket: expected the S3-compatible service as http\(s\)://host\[:port\] \(for example http://minio:9000\); fix the setting or unset it for AWS S3$"),
    "writers on the file": (("duckdb", None, "4"), r"^TRACKER_WRITERS=4: the duckdb warehouse file takes one writer at a time; unset TRACKER_WRITERS, or set TRACKER_WAREHOUSE=ducklake:postgres:<conninfo> for parallel writers$"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_malformed_setting_is_one_line_naming_the_fix_and_never_the_password(case):
    args, message = MALFORMED[case]
    with pytest.raises(ConfigError, match=message) as raised:
        parse_warehouse_setting(*args)
    assert "\n" not in str(raised.value) and SECRET not in str(raised.value)


def test_an_unreachable_catalog_is_one_line_without_the_password(tmp_path, unused_port):
    warehouse = Warehouse(
        database=":memory:",
        backend=f"ducklake:postgres:postgresql://tracker:{SECRET}@127.0.0.1:{unused_port}/tracker",
        data_path=str(tmp_path / "lake"),
    )
    with pytest.raises(WarehouseUnavailable, match="cannot attach the DuckLake catalog of TRACKER_WAREHOUSE") as raised:
        with warehouse.connect():
            pass
    assert SECRET not in str(raised.value) and "\n" not in str(raised.value)


#: Run in a network namespace with no interface but loopback, and a HOME without any
#: cached extension: the extensions come from the installed packages or not at all.
NO_NETWORK_SCRIPT = textwrap.dedent(
    """
    import duckdb, polars as pl
    from orchestration.warehouse import NO_EXTENSION_DOWNLOADS, ensure_schemas, load_extensions, read_frame, replace_table
    conn = duckdb.connect(config=NO_EXTENSION_DOWNLOADS)
    load_extensions(conn, ["ducklake", "postgres_scanner"])
    conn.execute("ATTACH 'ducklake:{root}/catalog.ducklake' AS lake (DATA_PATH '{root}/files/')")
    conn.execute("USE lake")
    ensure_schemas(conn)
    replace_table(conn, "core.t", pl.DataFrame({{"a": [1, 2]}}))
    print(read_frame(conn, "SELECT sum(a) AS s FROM core.t")["s"][0])
    print(sorted(read_frame(conn, "SELECT extension_name FROM duckdb_extensions() WHERE loaded AND NOT installed")["extension_name"]))
    """
)


def test_the_extensions_load_from_their_packages_with_no_network(tmp_path):
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode:
        pytest.skip("cannot make a network namespace here (unshare -n needs root or user namespaces)")
    home = tmp_path / "home"
    home.mkdir()
    environ = {**os.environ, "HOME": str(home), "PYTHONPATH": str(REPO_ROOT)}
    result = subprocess.run(
        ["unshare", "-n", sys.executable, "-c", NO_NETWORK_SCRIPT.format(root=tmp_path)],
        cwd=REPO_ROOT, env=environ, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split("\n")[:2] == ["3", "['ducklake', 'postgres_scanner']"]
    assert not (home / ".duckdb").exists()  # nothing was installed into DuckDB's extension folder


def test_a_lake_connection_never_loads_or_installs_an_extension_by_itself(postgres_database, tmp_path):
    warehouse = Warehouse(database=":memory:", backend=f"ducklake:postgres:{postgres_database}", data_path=str(tmp_path))
    with warehouse.connect() as conn:
        settings = conn.execute(
            "SELECT current_setting('autoinstall_known_extensions'), current_setting('autoload_known_extensions'), current_database()"
        ).fetchone()
    assert settings == (False, False, "lake")


def test_the_writer_pool_limit_follows_the_backend(tmp_path, monkeypatch):
    home = tmp_path / "home"

    def pool_limit() -> int:
        with dg.DagsterInstance.from_config(str(home)) as instance:
            return instance.get_concurrency_config().pool_config.default_pool_limit

    for name in WAREHOUSE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    prepare_instance_home(home, warehouse_setting().writers)
    assert pool_limit() == 1
    monkeypatch.setenv("TRACKER_WAREHOUSE", "ducklake:postgres:dbname=tracker")
    monkeypatch.setenv("TRACKER_DATA_PATH", str(tmp_path / "lake"))
    prepare_instance_home(home, warehouse_setting().writers)
    assert pool_limit() == DEFAULT_LAKE_WRITERS  # the setting wins over the limit the file had
    monkeypatch.setenv("TRACKER_WRITERS", "6")
    prepare_instance_home(home, warehouse_setting().writers)
    assert pool_limit() == 6
    assert "run_monitoring" in (home / "dagster.yaml").read_text()  # the other settings stay
