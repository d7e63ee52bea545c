"""The warehouse rewrites a slice in one transaction: idempotent, and whole after a
failure; on both backends, the DuckDB file and a DuckLake catalog in a real PostgreSQL."""

from datetime import UTC, date, datetime

import duckdb
import polars as pl
import pytest

from orchestration.tables import Table
from orchestration.warehouse import (
    SliceWrite,
    Warehouse,
    ensure_schemas,
    in_transaction,
    publish_staged,
    read_table,
    replace_rows,
    replace_table,
    stage,
    upsert_rows,
    write_slices,
)


def lake(postgres_database: str, data_path) -> Warehouse:
    """A DuckLake warehouse whose catalog is the (empty) database `postgres_database`."""
    return Warehouse(database=":memory:", backend=f"ducklake:postgres:{postgres_database}", data_path=str(data_path))


@pytest.fixture(params=["duckdb", "ducklake"])
def conn(request, tmp_path):
    """A warehouse connection with the schemas: an in-memory DuckDB, or a DuckLake in PostgreSQL."""
    if request.param == "duckdb":
        connection = duckdb.connect(":memory:")
        ensure_schemas(connection)
        yield connection
        connection.close()
        return
    with lake(request.getfixturevalue("postgres_database"), tmp_path / "lake").connect() as connection:
        yield connection


def day_rows(day: date, ids: list[str]) -> pl.DataFrame:
    return pl.DataFrame({"arxiv_id": ids, "day": [day] * len(ids), "title": [f"t {i}" for i in ids]})


def table(conn, name="raw.entries") -> pl.DataFrame:
    return conn.execute(f"SELECT * FROM {name} ORDER BY day, arxiv_id").pl()


def test_rewriting_a_partition_gives_identical_rows_and_no_duplicates(conn):
    first, second = date(2025, 1, 1), date(2025, 1, 2)
    replace_rows(conn, "raw.entries", day_rows(first, ["a", "b"]), "day = ?", [first])
    replace_rows(conn, "raw.entries", day_rows(second, ["c"]), "day = ?", [second])
    before = table(conn)
    replace_rows(conn, "raw.entries", day_rows(first, ["a", "b"]), "day = ?", [first])
    assert table(conn).equals(before)
    assert before.height == 3


def test_rewriting_replaces_exactly_that_partition(conn):
    first, second = date(2025, 1, 1), date(2025, 1, 2)
    replace_rows(conn, "raw.entries", day_rows(first, ["a", "b"]), "day = ?", [first])
    replace_rows(conn, "raw.entries", day_rows(second, ["c"]), "day = ?", [second])
    replace_rows(conn, "raw.entries", day_rows(first, ["z"]), "day = ?", [first])
    assert table(conn)["arxiv_id"].to_list() == ["z", "c"]


def test_a_failure_after_the_delete_leaves_the_previous_rows_intact(conn):
    first = date(2025, 1, 1)
    replace_rows(conn, "raw.entries", day_rows(first, ["a", "b"]), "day = ?", [first])
    before = table(conn)
    # The DELETE succeeds, then the INSERT fails: a date column receiving text that is no date.
    broken = pl.DataFrame({"arxiv_id": ["x"], "day": ["not a date"], "title": ["t"]})
    with pytest.raises(duckdb.Error):
        replace_rows(conn, "raw.entries", broken, "day = ?", [first])
    assert table(conn).equals(before)


def test_several_slices_land_together_or_not_at_all(conn):
    first = date(2025, 1, 1)
    replace_rows(conn, "raw.entries", day_rows(first, ["a"]), "day = ?", [first])
    replace_rows(conn, "raw.other", day_rows(first, ["q"]), "day = ?", [first])
    with pytest.raises(duckdb.Error):
        write_slices(
            conn,
            [
                SliceWrite("raw.entries", day_rows(first, ["new"]), "day = ?", [first]),
                SliceWrite("raw.other", pl.DataFrame({"day": ["bad"]}), "day = ?", [first]),
            ],
        )
    assert table(conn)["arxiv_id"].to_list() == ["a"]
    assert table(conn, "raw.other")["arxiv_id"].to_list() == ["q"]


def test_a_new_column_is_added_to_an_existing_table(conn):
    first = date(2025, 1, 1)
    replace_rows(conn, "raw.entries", day_rows(first, ["a"]), "day = ?", [first])
    wider = day_rows(first, ["a"]).with_columns(version=pl.lit(2))
    replace_rows(conn, "raw.entries", wider, "day = ?", [first])
    assert table(conn)["version"].to_list() == [2]


def test_upsert_replaces_rows_with_the_same_key(conn):
    rows = pl.DataFrame({"framework": ["verl", "verl"], "number": [1, 2], "title": ["a", "b"]})
    upsert_rows(conn, "raw.threads", rows, ["framework", "number"])
    upsert_rows(conn, "raw.threads", rows.slice(1).with_columns(title=pl.lit("b2")), ["framework", "number"])
    result = conn.execute("SELECT number, title FROM raw.threads ORDER BY number").fetchall()
    assert result == [(1, "a"), (2, "b2")]


def test_the_resource_creates_the_file_and_the_schemas(tmp_path):
    warehouse = Warehouse(database=str(tmp_path / "nested" / "tracker.duckdb"))
    with warehouse.connect() as connection:
        schemas = {row[0] for row in connection.execute("SELECT schema_name FROM information_schema.schemata").fetchall()}
    assert {"raw", "core", "metrics"} <= schemas
    assert (tmp_path / "nested" / "tracker.duckdb").exists()


PAPERS = Table(
    "core.papers_test",
    {"arxiv_id": pl.Utf8, "published_at": pl.Datetime("us", "UTC"), "authors": pl.List(pl.Utf8), "cohort": pl.Utf8},
    "an invented table of papers",
)


def papers(cohort: str, ids: list[str]) -> pl.DataFrame:
    at = datetime(2025, 2, 1, 12, tzinfo=UTC)
    return pl.DataFrame(
        {"arxiv_id": ids, "published_at": [at] * len(ids), "authors": [["Ada", "Alan"]] * len(ids), "cohort": [cohort] * len(ids)},
        schema=PAPERS.schema,
    )


def test_replace_stage_publish_and_read_back_with_the_contract_types(conn):
    assert read_table(conn, PAPERS).equals(PAPERS.empty())  # before it exists
    replace_table(conn, PAPERS.name, papers("2025-Q1", ["a", "b"]))
    replace_table(conn, PAPERS.name, papers("2025-Q1", ["a", "b", "c"]))  # CREATE OR REPLACE
    assert read_table(conn, PAPERS).sort("arxiv_id").equals(papers("2025-Q1", ["a", "b", "c"]))

    staged = stage(conn, PAPERS.name, papers("2025-Q1", ["z"]))
    assert staged == "staging.core__papers_test"
    assert read_table(conn, PAPERS)["arxiv_id"].sort().to_list() == ["a", "b", "c"]  # not published yet
    publish_staged(conn, PAPERS.name, "cohort = ?", ["2025-Q1"])
    assert read_table(conn, PAPERS).equals(papers("2025-Q1", ["z"]))
    assert conn.execute("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'staging'").fetchone()[0] == 0

    stage(conn, PAPERS.name, papers("2025-Q2", ["q"]))
    publish_staged(conn, PAPERS.name)  # the whole table
    assert read_table(conn, PAPERS, ["arxiv_id", "cohort"]).rows() == [("q", "2025-Q2")]


def test_a_ducklake_commit_that_conflicts_runs_the_whole_transaction_again(postgres_database, tmp_path, caplog):
    warehouse = lake(postgres_database, tmp_path / "lake")
    first = date(2025, 1, 1)
    with warehouse.connect() as writer, warehouse._lake_connection(warehouse.setting()) as other:
        replace_rows(writer, "raw.entries", day_rows(first, ["a", "b"]), "day = ?", [first])
        attempts = []

        def delete_a() -> None:
            attempts.append(len(attempts) + 1)
            writer.execute("DELETE FROM raw.entries WHERE arxiv_id = 'a'")
            if len(attempts) == 1:  # another writer commits a delete from the same table meanwhile
                other.execute("DELETE FROM raw.entries WHERE arxiv_id = 'b'")

        in_transaction(writer, delete_a)
        assert attempts == [1, 2]
        assert table(writer).height == 0
    assert "conflicted with a concurrent writer (attempt 1, " in caplog.text
