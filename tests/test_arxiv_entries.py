"""The arxiv_entries asset against the fake arXiv server and a real DuckDB file."""

from datetime import UTC, date, datetime, timedelta

import dagster as dg
import duckdb
import polars as pl
import pytest

from assets.papers.assets import papers
from assets.sources.assets import ALL_RESULTS_RECEIVED_CHECK, all_results_received_check, arxiv_entries
from orchestration.resources import ArxivSource
from orchestration.warehouse import Warehouse
from fakes.arxiv_server import Fault, arxiv_entry
from tests.helpers import recorded_counts, shared_snapshots

RANGE_TAGS = {
    "dagster/asset_partition_range_start": "2025-01-01",
    "dagster/asset_partition_range_end": "2025-01-10",
}


@pytest.fixture
def database(tmp_path) -> str:
    return str(tmp_path / "tracker.duckdb")


def materialize(database: str, arxiv: ArxivSource, *, tags=RANGE_TAGS, partition_key=None):
    return dg.materialize(
        [arxiv_entries, papers],
        resources={"arxiv": arxiv, "warehouse": Warehouse(database=database)},
        tags=tags,
        partition_key=partition_key,
        selection=[arxiv_entries.key],
        raise_on_error=False,
    )


def read(database: str, sql: str) -> pl.DataFrame:
    with duckdb.connect(database, read_only=True) as conn:
        return conn.sql(sql).pl()


def fill(fake_arxiv, days: int = 10, per_day: int = 3) -> None:
    for day in range(days):
        for n in range(per_day):
            published = datetime(2025, 1, 1 + day, 9 + n, tzinfo=UTC)
            fake_arxiv.fixtures.add(published, arxiv_entry(f"2501.{day:03d}{n:02d}", published))


def live(fake_arxiv) -> ArxivSource:
    return ArxivSource(api_url=fake_arxiv.url, page_size=7, min_interval_s=0, backoff_s=0.01, timeout_s=5)


def test_a_range_backfill_is_one_run_and_one_paged_query(fake_arxiv, database):
    fill(fake_arxiv)
    result = materialize(database, live(fake_arxiv))
    assert result.success
    searches = {request.query["search_query"] for request in fake_arxiv.fixtures.requests}
    assert len(searches) == 1 and "submittedDate:[202501010000 TO 202501102359]" in searches.pop()
    assert len(fake_arxiv.fixtures.requests) == 5  # 30 entries, 7 per page
    stored = read(database, "SELECT day, count(*) AS n FROM raw.arxiv_entries GROUP BY day ORDER BY day")
    assert stored["n"].to_list() == [3] * 10
    metadata = result.asset_materializations_for_node("arxiv_entries")[0].metadata
    assert metadata["fetched"].value == 30 and metadata["stored"].value == 30
    assert metadata["dagster/row_count"].value == 30


def test_rematerializing_gives_identical_rows_and_no_duplicates(fake_arxiv, database):
    fill(fake_arxiv)
    materialize(database, live(fake_arxiv))
    first = read(database, "SELECT * FROM raw.arxiv_entries ORDER BY arxiv_id, version")
    assert materialize(database, live(fake_arxiv)).success
    assert read(database, "SELECT * FROM raw.arxiv_entries ORDER BY arxiv_id, version").equals(first)


def test_one_day_replaces_only_that_day(fake_arxiv, database):
    fill(fake_arxiv)
    materialize(database, live(fake_arxiv))
    fake_arxiv.fixtures.entries = [pair for pair in fake_arxiv.fixtures.entries if pair[0].day != 5]
    assert materialize(database, live(fake_arxiv), tags={}, partition_key="2025-01-05").success
    per_day = read(database, "SELECT day, count(*) AS n FROM raw.arxiv_entries GROUP BY day ORDER BY day")
    assert date(2025, 1, 5) not in per_day["day"].to_list() and per_day["n"].sum() == 27


def test_quarantined_entries_are_accounted_for(fake_arxiv, database):
    fill(fake_arxiv, days=2)
    fake_arxiv.fixtures.add(
        datetime(2025, 1, 2, tzinfo=UTC), arxiv_entry("2501.99999", datetime(2025, 1, 2, tzinfo=UTC), title="")
    )
    fake_arxiv.fixtures.add(
        datetime(2025, 1, 2, tzinfo=UTC),
        arxiv_entry("2501.99998", datetime(2025, 1, 2, tzinfo=UTC), published_text="soon"),
    )
    result = materialize(database, live(fake_arxiv))
    assert result.success
    quarantine = read(database, "SELECT * FROM raw.quarantine ORDER BY reason")
    assert quarantine["reason"].to_list() == ["bad published date 'soon'", "no title"]
    assert quarantine["partition_day"].to_list() == [date(2025, 1, 1), date(2025, 1, 2)]
    assert all("2501.9999" in text for text in quarantine["raw_text"])
    metadata = result.asset_materializations_for_node("arxiv_entries")[0].metadata
    assert (metadata["fetched"].value, metadata["stored"].value, metadata["quarantined"].value) == (8, 6, 2)
    assert (metadata["received"].value, metadata["total_results"].value) == (8, 8)
    (check,) = result.get_asset_check_evaluations()
    assert check.check_name == ALL_RESULTS_RECEIVED_CHECK and check.passed
    # and a rerun neither loses nor doubles the quarantine
    assert materialize(database, live(fake_arxiv)).success
    assert read(database, "SELECT count(*) AS n FROM raw.quarantine")["n"][0] == 2


def test_the_check_compares_what_arrived_with_what_arxiv_counted():
    assert all_results_received_check(10, 10).passed
    failed = all_results_received_check(9, 10)
    assert not failed.passed and "received 9 of the 10 entries arXiv counted" in failed.description


def test_a_failed_fetch_leaves_the_stored_rows(fake_arxiv, database):
    fill(fake_arxiv)
    materialize(database, live(fake_arxiv))
    before = read(database, "SELECT * FROM raw.arxiv_entries ORDER BY arxiv_id")
    fake_arxiv.fixtures.queue(*[Fault.unavailable()] * 20)
    arxiv = ArxivSource(api_url=fake_arxiv.url, min_interval_s=0, backoff_s=0.01, max_retries=2)
    assert not materialize(database, arxiv).success
    assert read(database, "SELECT * FROM raw.arxiv_entries ORDER BY arxiv_id").equals(before)


def test_a_malformed_entry_in_a_reharvest_keeps_the_stored_paper_unchanged(fake_arxiv, database):
    fill(fake_arxiv)
    materialize(database, live(fake_arxiv))
    before = read(database, "SELECT * FROM raw.arxiv_entries ORDER BY arxiv_id")
    published = datetime(2025, 1, 4, 10, tzinfo=UTC)
    fake_arxiv.fixtures.replace("2501.00301", arxiv_entry("2501.00301", published, version=2, title=""))
    result = materialize(database, live(fake_arxiv))
    assert result.success
    assert read(database, "SELECT * FROM raw.arxiv_entries ORDER BY arxiv_id").equals(before)
    quarantine = read(database, "SELECT arxiv_id, reason, raw_text FROM raw.quarantine")
    assert quarantine.rows()[0][:2] == ("2501.00301", "no title") and "2501.00301v2" in quarantine["raw_text"][0]
    metadata = result.asset_materializations_for_node("arxiv_entries")[0].metadata
    assert (metadata["stored"].value, metadata["kept"].value, metadata["quarantined"].value) == (30, 1, 1)
    # once arXiv serves it readable again, the new version replaces the kept one
    fake_arxiv.fixtures.replace("2501.00301", arxiv_entry("2501.00301", published, version=2))
    assert materialize(database, live(fake_arxiv)).success
    versions = read(database, "SELECT version FROM raw.arxiv_entries WHERE arxiv_id = '2501.00301'")
    assert versions["version"].to_list() == [2]


def test_an_entry_whose_id_cannot_be_read_deletes_no_stored_paper(fake_arxiv, database):
    fill(fake_arxiv)
    materialize(database, live(fake_arxiv))
    before = read(database, "SELECT * FROM raw.arxiv_entries ORDER BY arxiv_id")
    published = datetime(2025, 1, 5, 9, tzinfo=UTC)
    unreadable = arxiv_entry("2501.00400", published).replace("http://arxiv.org/abs/2501.00400v1</id>", "</id>")
    fake_arxiv.fixtures.replace("2501.00400", unreadable)  # which paper is it? it may be any
    fake_arxiv.fixtures.entries = [e for e in fake_arxiv.fixtures.entries if "2501.00401v" not in e.xml]
    result = materialize(database, live(fake_arxiv))
    assert result.success
    assert read(database, "SELECT * FROM raw.arxiv_entries ORDER BY arxiv_id").equals(before)
    assert read(database, "SELECT arxiv_id, reason FROM raw.quarantine").rows() == [(None, "no arXiv id")]
    # a readable, complete harvest then drops the paper arXiv no longer lists
    fake_arxiv.fixtures.replace("2501.00400", arxiv_entry("2501.00400", published))
    assert materialize(database, live(fake_arxiv)).success
    assert read(database, "SELECT count(*) AS n FROM raw.arxiv_entries WHERE arxiv_id = '2501.00401'")["n"][0] == 0


def test_a_page_set_that_fails_midway_writes_nothing(fake_arxiv, database):
    fill(fake_arxiv)
    fake_arxiv.fixtures.add(datetime(2025, 1, 2, tzinfo=UTC), arxiv_entry("2501.99999", datetime(2025, 1, 2, tzinfo=UTC), title=""))
    materialize(database, live(fake_arxiv))
    entries_before = read(database, "SELECT * FROM raw.arxiv_entries ORDER BY arxiv_id")
    quarantine_before = read(database, "SELECT * FROM raw.quarantine")
    fake_arxiv.fixtures.entries = [e for e in fake_arxiv.fixtures.entries if e.published.day != 1]
    fake_arxiv.fixtures.queue(Fault.normal(), *[Fault.unavailable()] * 20)
    arxiv = ArxivSource(api_url=fake_arxiv.url, page_size=7, min_interval_s=0, backoff_s=0.01, max_retries=2)
    assert not materialize(database, arxiv).success
    assert len(fake_arxiv.fixtures.requests) == 5 + 1 + 3  # the first run; one page; three failed tries
    assert read(database, "SELECT * FROM raw.arxiv_entries ORDER BY arxiv_id").equals(entries_before)
    assert read(database, "SELECT * FROM raw.quarantine").equals(quarantine_before)


def test_papers_announced_during_the_harvest_fail_the_check_and_delete_nothing(fake_arxiv, database):
    fill(fake_arxiv)
    early = datetime(2025, 1, 1, 8, tzinfo=UTC)  # sorts first: announcing it shifts every later page
    fake_arxiv.fixtures.add(early, arxiv_entry("2501.88888", early), announced=date(2025, 1, 12))
    fake_arxiv.fixtures.today = date(2025, 1, 11)
    materialize(database, live(fake_arxiv))
    fake_arxiv.fixtures.entries = [e for e in fake_arxiv.fixtures.entries if "2501.00901v" not in e.xml]
    fake_arxiv.fixtures.queue(Fault.normal(), Fault.announce(date(2025, 1, 12)))
    result = materialize(database, live(fake_arxiv))
    assert not result.success  # the blocking check fails the run
    (check,) = result.get_asset_check_evaluations()
    assert check.check_name == ALL_RESULTS_RECEIVED_CHECK and not check.passed
    assert (check.metadata["received"].value, check.metadata["total_results"].value) == (29, 30)
    metadata = result.asset_materializations_for_node("arxiv_entries")[0].metadata
    assert metadata["duplicates"].value == 1
    ids = read(database, "SELECT arxiv_id FROM raw.arxiv_entries")["arxiv_id"].to_list()
    assert "2501.00901" in ids and "2501.88888" not in ids and len(ids) == 30  # incomplete: nothing deleted
    # the next run (tomorrow's re-harvest of the window) completes it
    assert materialize(database, live(fake_arxiv)).success
    ids = read(database, "SELECT arxiv_id FROM raw.arxiv_entries")["arxiv_id"].to_list()
    assert "2501.00901" not in ids and "2501.88888" in ids and len(ids) == 30


@pytest.mark.snapshots
def test_the_recorded_snapshot_loads_every_entry_with_its_fields(database):
    snapshots = shared_snapshots()
    tags = {"dagster/asset_partition_range_start": "2025-01-01", "dagster/asset_partition_range_end": "2026-06-30"}
    result = materialize(database, ArxivSource(snapshot_dir=str(snapshots)), tags=tags)
    assert result.success
    entries = read(database, "SELECT * FROM raw.arxiv_entries")
    recorded = recorded_counts(snapshots).arxiv_entries
    assert entries.height == recorded and entries["arxiv_id"].n_unique() == recorded
    assert read(database, "SELECT count(*) AS n FROM raw.quarantine")["n"][0] == 0
    assert entries["title"].null_count() == 0 and entries["primary_category"].null_count() == 0
    assert (entries["categories"].list.len() > 0).all()
    # two recorded entries have no author list (see the snapshot's README); stored, not lost
    assert (entries["authors"].list.len() == 0).sum() == 2
    assert entries["published_at"].min() >= datetime(2025, 1, 1, tzinfo=UTC)
    assert entries["published_at"].max() < datetime(2026, 7, 1, tzinfo=UTC)
    assert entries["comment"].null_count() < recorded and entries["pdf_url"].str.contains("/pdf/").all()
    per_month = entries.group_by(pl.col("day").dt.strftime("%Y-%m")).len()
    assert per_month.height == 18
    reinforce = entries.filter(pl.col("arxiv_id") == "2501.03262").row(0, named=True)
    assert reinforce["title"].startswith("REINFORCE++") and reinforce["authors"][0] == "Jason Klein Liu"
    assert reinforce["day"] == date(2025, 1, 4) and reinforce["version"] == 1
