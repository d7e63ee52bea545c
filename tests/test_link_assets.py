"""The links assets in Dagster: they write their tables, and a failing blocking check
stops what comes after it."""

from datetime import UTC, datetime

import dagster as dg
import duckdb
import polars as pl
import pytest

from assets.links import assets as links
from orchestration.as_of import run_date
from orchestration.resources import Curation, FrameworkSources
from orchestration.warehouse import Warehouse, replace_table
from tests.link_fixtures import DAPO, aliases, at, comments, commits, files, papers, threads
from orchestration.tables import CORE_EVIDENCE, CORE_INCLUSIONS, CORE_PAPERS, CORE_PAPER_ALIASES, CORE_PROPOSALS, CORE_TRAINING_FAILURES, RAW_GITHUB_COMMENTS, RAW_GITHUB_THREADS, RAW_GIT_COMMITS, RAW_GIT_COMMIT_FILES

LINK_ASSETS = [links.evidence, links.inclusions, links.proposals, links.training_failures]


def seeded_warehouse(tmp_path, paper_rows: pl.DataFrame, alias_rows: pl.DataFrame) -> Warehouse:
    warehouse = Warehouse(database=str(tmp_path / "tracker.duckdb"))
    with warehouse.connect() as conn:
        replace_table(conn, RAW_GIT_COMMITS.name, commits(("verl", "c1", "2025-04-03", "[recipe] feat: add DAPO")))
        replace_table(conn, RAW_GIT_COMMIT_FILES.name, files(("verl", "c1", "recipe/dapo/main_dapo.py", "", ["dapo"])))
        replace_table(
            conn,
            RAW_GITHUB_THREADS.name,
            threads({"number": 5, "title": "Support DAPO?"}, {"number": 6, "title": "DAPO: loss becomes nan"}),
        )
        replace_table(conn, RAW_GITHUB_COMMENTS.name, comments({"thread_number": 5, "author": "maintainer"}))
        replace_table(conn, CORE_PAPERS.name, paper_rows)
        replace_table(conn, CORE_PAPER_ALIASES.name, alias_rows)
    return warehouse


def materialize(warehouse: Warehouse, snapshot_dir: str | None = "snapshots") -> dg.ExecuteInProcessResult:
    resources = {"warehouse": warehouse, "curation": Curation(), "framework_sources": FrameworkSources(snapshot_dir=snapshot_dir)}
    return dg.materialize(LINK_ASSETS, resources=resources, raise_on_error=False)


def count(warehouse: Warehouse, table: str) -> int:
    with duckdb.connect(warehouse.database, read_only=True) as conn:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_links_tables_are_written_and_checks_pass(tmp_path):
    warehouse = seeded_warehouse(tmp_path, papers(), aliases())
    result = materialize(warehouse)
    assert result.success
    assert all(evaluation.passed for evaluation in result.get_asset_check_evaluations())
    assert count(warehouse, CORE_EVIDENCE.name) == 4  # the file, the message and the two threads
    inclusion = warehouse.read(f"SELECT * FROM {CORE_INCLUSIONS.name}").row(0, named=True)
    assert (inclusion["arxiv_id"], inclusion["commit_sha"], inclusion["source"]) == (DAPO, "c1", "rules")
    assert count(warehouse, CORE_PROPOSALS.name) == 2  # both threads were opened before 2025-04-03
    failure = warehouse.read(f"SELECT * FROM {CORE_TRAINING_FAILURES.name}").row(0, named=True)
    assert (failure["number"], failure["arxiv_id"]) == (6, DAPO)
    materialized = {event.asset_key.path[-1] for event in result.get_asset_materialization_events()}
    assert materialized == {"evidence", "inclusions", "proposals", "training_failures"}


def bad_id_inputs() -> tuple[pl.DataFrame, pl.DataFrame]:
    """A paper row with a malformed id whose alias matches: evidence links to a bad id."""
    bad_papers = pl.concat([papers(), papers().head(1).with_columns(arxiv_id=pl.lit("2503.1447x"))])
    bad_aliases = aliases().with_columns(
        arxiv_id=pl.when(pl.col("arxiv_id") == DAPO).then(pl.lit("2503.1447x")).otherwise("arxiv_id")
    )
    return bad_papers, bad_aliases


def test_a_failing_blocking_check_publishes_nothing_and_stops_the_downstream_assets(tmp_path):
    warehouse = seeded_warehouse(tmp_path, *bad_id_inputs())
    result = materialize(warehouse)
    assert not result.success
    failed = [e for e in result.get_asset_check_evaluations() if not e.passed]
    assert [e.check_name for e in failed] == ["evidence_links_valid"]
    assert failed[0].severity == dg.AssetCheckSeverity.ERROR
    assert "2503.1447x" in failed[0].description
    assert not result.get_asset_materialization_events()  # evidence not published; nothing after it ran
    with duckdb.connect(warehouse.database, read_only=True) as conn:
        tables = {row[0] for row in conn.execute("SELECT table_schema || '.' || table_name FROM information_schema.tables").fetchall()}
        staged_ids = {row[0] for row in conn.execute("SELECT arxiv_id FROM staging.core__evidence").fetchall()}
    assert not {"core.evidence", "core.inclusions"} & tables
    assert "2503.1447x" in staged_ids  # the rejected rows wait in staging for inspection


def test_rows_that_fail_a_check_leave_the_published_table_exactly_as_it_was(tmp_path):
    warehouse = seeded_warehouse(tmp_path, papers(), aliases())
    assert materialize(warehouse).success
    published = warehouse.read(f"SELECT * FROM {CORE_EVIDENCE.name} ORDER BY ALL")
    with warehouse.connect() as conn:
        bad_papers, bad_aliases = bad_id_inputs()
        replace_table(conn, CORE_PAPERS.name, bad_papers)
        replace_table(conn, CORE_PAPER_ALIASES.name, bad_aliases)
    result = materialize(warehouse)
    assert not result.success
    assert warehouse.read(f"SELECT * FROM {CORE_EVIDENCE.name} ORDER BY ALL").equals(published)
    # Good rows again: published, and the staging table is gone.
    with warehouse.connect() as conn:
        replace_table(conn, CORE_PAPERS.name, papers())
        replace_table(conn, CORE_PAPER_ALIASES.name, aliases())
    assert materialize(warehouse).success
    with duckdb.connect(warehouse.database, read_only=True) as conn:
        staged = conn.execute("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'staging'").fetchone()[0]
    assert staged == 0


class CountingWarehouse(Warehouse):
    """A warehouse that counts how often it is opened."""

    def get_connection(self):
        OPENED.append(self.database)
        return super().get_connection()


OPENED: list[str] = []


def test_one_materialization_opens_the_warehouse_once(tmp_path):
    warehouse = seeded_warehouse(tmp_path, papers(), aliases())
    counting = CountingWarehouse(database=warehouse.database)
    for asset in LINK_ASSETS:
        OPENED.clear()
        result = dg.materialize(
            [asset],
            resources={"warehouse": counting, "curation": Curation(), "framework_sources": FrameworkSources(snapshot_dir="snapshots")},
        )
        assert result.success
        assert len(OPENED) == 1, asset.key


@pytest.mark.parametrize("snapshot_dir", ["snapshots", None])
def test_proposals_are_aged_to_the_runs_as_of_date(tmp_path, snapshot_dir):
    warehouse = seeded_warehouse(tmp_path, papers(), aliases())
    before = run_date(datetime.now(UTC))
    assert materialize(warehouse, snapshot_dir).success
    after = run_date(datetime.now(UTC))
    thread = warehouse.read(f"SELECT * FROM {CORE_PROPOSALS.name} WHERE number = 5").row(0, named=True)
    as_of = thread["as_of"]
    if snapshot_dir:  # the end of the recorded data: the DAPO commit of 2025-04-03
        assert as_of == at("2025-04-03")
    else:  # live: the run's date
        assert as_of in (before, after)
    assert thread["days_open"] == pytest.approx((as_of - at("2025-03-20")).total_seconds() / 86_400)
