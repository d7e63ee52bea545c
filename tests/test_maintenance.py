"""The weekly warehouse compaction: small lake files merged, old ones deleted, rows kept."""

from __future__ import annotations

from datetime import date

import dagster as dg
import polars as pl
import pytest

from orchestration.definitions import defs
from orchestration.warehouse import Warehouse, compact_lake, lake_files, replace_rows


def entries(day: date, ids: list[str]) -> pl.DataFrame:
    return pl.DataFrame({"arxiv_id": ids, "day": [day] * len(ids), "title": [f"t {i}" for i in ids]})


def rows(conn) -> pl.DataFrame:
    return conn.execute("SELECT * FROM raw.entries ORDER BY day, arxiv_id").pl()


def lake(postgres_database: str, data_path) -> Warehouse:
    return Warehouse(database=":memory:", backend=f"ducklake:postgres:{postgres_database}", data_path=str(data_path))


def write_small_slices(conn, count: int) -> None:
    """`count` writes of two new rows each (as a day's new commits of one framework are),
    then one day's slice replaced: what daily writers leave."""
    for n in range(count):
        ids = [f"{n}a", f"{n}b"]
        replace_rows(conn, "raw.entries", entries(date(2025, 1, 1 + n % 4), ids), "arxiv_id IN (?, ?)", ids)
    replace_rows(conn, "raw.entries", entries(date(2025, 1, 1), ["0a"]), "day = ?", [date(2025, 1, 1)])


def test_small_lake_writes_are_files_and_compaction_merges_them_keeping_every_row(postgres_database, tmp_path):
    data_path = tmp_path / "lake"
    with lake(postgres_database, data_path).connect() as conn:
        write_small_slices(conn, 12)
        before = rows(conn)
        files_before, _ = lake_files(conn)
        compaction = compact_lake(conn, keep_days=0)  # every snapshot but the last expires
        assert rows(conn).equals(before)
        assert lake_files(conn)[0] == compaction.files_after
    # Not inlined into the catalog: each write is a file of its own (12; the replace of
    # day 1 drops the 3 files it empties and adds 1).
    assert compaction.files_before == files_before == 10
    assert compaction.files_after < compaction.files_before
    assert compaction.files_deleted > 0
    assert len(list(data_path.rglob("*.parquet"))) == compaction.files_after  # the rest deleted from disk
    with lake(postgres_database, data_path).connect() as conn:  # a new connection reads the same rows
        assert rows(conn).equals(before)


def test_compaction_keeps_the_files_of_recent_snapshots(postgres_database, tmp_path):
    data_path = tmp_path / "lake"
    with lake(postgres_database, data_path).connect() as conn:
        write_small_slices(conn, 8)
        on_disk = len(list(data_path.rglob("*.parquet")))
        compaction = compact_lake(conn)  # the default keeps a week of snapshots
    assert compaction.files_deleted == 0
    assert len(list(data_path.rglob("*.parquet"))) >= on_disk  # merged files added, none deleted yet


def compaction_output(result: dg.ExecuteInProcessResult) -> dict:
    [output] = [event for event in result.all_events if event.event_type_value == "STEP_OUTPUT"]
    return {key: value.value for key, value in output.event_specific_data.metadata.items()}


def test_the_maintenance_job_compacts_a_lake(postgres_database, tmp_path):
    warehouse = lake(postgres_database, tmp_path / "lake")
    with warehouse.connect() as conn:
        write_small_slices(conn, 6)
    result = defs.get_job_def("warehouse_maintenance").execute_in_process(
        resources={"warehouse": warehouse}, run_config={"ops": {"compact_warehouse": {"config": {"keep_days": 1}}}}
    )
    assert result.success
    metadata = compaction_output(result)
    assert metadata["backend"] == "ducklake:postgres"
    assert metadata["files_after"] < metadata["files_before"]


def test_the_maintenance_job_checkpoints_the_duckdb_file_and_runs_weekly(tmp_path):
    database = tmp_path / "tracker.duckdb"
    with Warehouse(database=str(database)).connect() as conn:
        write_small_slices(conn, 3)
    result = defs.get_job_def("warehouse_maintenance").execute_in_process(resources={"warehouse": Warehouse(database=str(database))})
    assert result.success
    metadata = compaction_output(result)
    assert metadata["backend"] == "duckdb"
    assert metadata["bytes_after"] == database.stat().st_size
    assert not database.with_name("tracker.duckdb.wal").exists()
    [schedule] = [schedule for schedule in defs.schedules if schedule.name == "weekly_compaction"]
    assert (schedule.cron_schedule, schedule.job_name) == ("0 4 * * 0", "warehouse_maintenance")


def test_the_maintenance_job_refuses_to_expire_every_snapshot(tmp_path):
    job = defs.get_job_def("warehouse_maintenance")
    with pytest.raises(dg.Failure, match="keep at least 1 day"):
        job.execute_in_process(
            resources={"warehouse": Warehouse(database=str(tmp_path / "t.duckdb"))},
            run_config={"ops": {"compact_warehouse": {"config": {"keep_days": 0}}}},
        )


def test_a_lake_in_an_s3_compatible_bucket_writes_compacts_and_reads_there(postgres_database, s3_server, tmp_path, monkeypatch):
    # Credentials from the AWS chain, the endpoint from AWS_ENDPOINT_URL, as a team sets them for MinIO or R2.
    for name, value in s3_server.environment().items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    bucket = f"lake-{tmp_path.name.lower().replace('_', '-')}"[:63]
    s3_server.create_bucket(bucket)
    warehouse = Warehouse(
        database=":memory:",
        backend=f"ducklake:postgres:{postgres_database}",
        data_path=f"s3://{bucket}/tracker",
        s3_endpoint=s3_server.endpoint,
    )
    with warehouse.connect() as conn:
        write_small_slices(conn, 6)
        before = rows(conn)
        written = lake_files(conn)[0]
    # One object per write (6) and the replace's (1); the 2 files it emptied stay until compaction.
    assert (len(s3_server.keys(bucket)), written) == (7, 5)
    compaction = warehouse.compact(keep_days=0)
    assert compaction.files_after < compaction.files_before and compaction.files_deleted > 0
    keys = s3_server.keys(bucket)
    assert len(keys) == compaction.files_after  # the files nothing uses were deleted from the bucket
    assert all(key.startswith("tracker/") and key.endswith(".parquet") for key in keys)
    with warehouse.connect() as conn:  # a new connection reads the same rows from the bucket
        assert rows(conn).equals(before)
    assert list(tmp_path.iterdir()) == []  # nothing was written beside the process
