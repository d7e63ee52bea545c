"""The warehouse rewrites a slice in one transaction: idempotent, and whole after a failure."""

from datetime import date

import duckdb
import polars as pl
import pytest

from orchestration.warehouse import SliceWrite, Warehouse, ensure_schemas, replace_rows, upsert_rows, write_slices


@pytest.fixture
def conn():
    connection = duckdb.connect(":memory:")
    ensure_schemas(connection)
    yield connection
    connection.close()


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
