"""Any window, any paper set, runs to the end: the papers and links stages with their
blocking checks, on paper sets the curation files do and do not mention."""

from pathlib import Path

import dagster as dg
import polars as pl
import pytest

from assets.links import assets as links
from orchestration.curation import OVERRIDES_DIR
from assets.papers.assets import paper_aliases, paper_screening
from orchestration.resources import ArxivSource, Curation, FrameworkSources, OpenAlexSource
from orchestration.warehouse import Warehouse, replace_table
from tests.link_fixtures import DAPO, GSPO, at, comments, commits, files, threads
from tests.test_paper_assets import QUIET, fixture_papers
from orchestration.tables import CORE_EVIDENCE, CORE_INCLUSIONS, CORE_PAPERS, CORE_PAPER_ALIASES, RAW_GITHUB_COMMENTS, RAW_GITHUB_THREADS, RAW_GIT_COMMITS, RAW_GIT_COMMIT_FILES

ASSETS = [paper_aliases, paper_screening, links.evidence, links.inclusions, links.proposals, links.training_failures]

# Papers of one quarter (2025-Q1: DAPO, with the MiniMax report), of another (2025-Q3: GSPO).
QUARTER_Q1 = fixture_papers().filter(pl.col("arxiv_id") != GSPO)
QUARTER_Q3 = fixture_papers().filter(pl.col("arxiv_id") == GSPO).with_columns(
    published_at=pl.lit(at("2025-07-24")), cohort=pl.lit("2025-Q3")
)


def run(tmp_path: Path, paper_rows: pl.DataFrame, curation: Path) -> tuple[dg.ExecuteInProcessResult, Warehouse]:
    warehouse = Warehouse(database=str(tmp_path / "tracker.duckdb"))
    with warehouse.connect() as conn:
        replace_table(conn, RAW_GIT_COMMITS.name, commits(("verl", "c1", "2025-04-03", "[recipe] feat: add DAPO")))
        replace_table(conn, RAW_GIT_COMMIT_FILES.name, files(("verl", "c1", "recipe/dapo/main_dapo.py", "", ["dapo"])))
        replace_table(conn, RAW_GITHUB_THREADS.name, threads({"number": 5, "title": "Support GSPO?"}))
        replace_table(conn, RAW_GITHUB_COMMENTS.name, comments({"thread_number": 5, "author": "maintainer"}))
        replace_table(conn, CORE_PAPERS.name, paper_rows)
    result = dg.materialize(
        ASSETS,
        run_config=QUIET,
        resources={
            "warehouse": warehouse,
            "curation": Curation(overrides_dir=str(curation)),
            "openalex": OpenAlexSource(api_key=None),
            "arxiv": ArxivSource(snapshot_dir=str(tmp_path)),
            "framework_sources": FrameworkSources(snapshot_dir=str(tmp_path)),
        },
        raise_on_error=False,
    )
    return result, warehouse


def empty_curation(tmp_path: Path) -> Path:
    folder = tmp_path / "no_overrides"
    folder.mkdir()
    return folder


def figures(result: dg.ExecuteInProcessResult, key: str) -> dict[str, object]:
    (event,) = [e for e in result.get_asset_materialization_events() if e.asset_key == dg.AssetKey(key)]
    return {name: value.value for name, value in event.materialization.metadata.items()}


def assert_ran_to_the_end(result: dg.ExecuteInProcessResult) -> None:
    failed = [e.check_name for e in result.get_asset_check_evaluations() if not e.passed]
    assert result.success, failed
    assert not failed
    materialized = {event.asset_key.path[-1] for event in result.get_asset_materialization_events()}
    assert materialized == {asset.key.path[-1] for asset in ASSETS}


@pytest.mark.parametrize(
    ("window", "included"),
    [(QUARTER_Q1, [DAPO]), (QUARTER_Q3, []), (fixture_papers().head(0), [])],
    ids=["one quarter", "another quarter", "no papers"],
)
def test_the_repository_curation_files_never_stop_a_window(tmp_path, window, included):
    # overrides/ names papers of every quarter; the ones outside this window wait.
    result, warehouse = run(tmp_path, window, OVERRIDES_DIR)
    assert_ran_to_the_end(result)
    known = set(window["arxiv_id"])
    for table in (CORE_EVIDENCE.name, CORE_PAPER_ALIASES.name, "core.paper_screening", CORE_INCLUSIONS.name):
        assert set(warehouse.read(f"SELECT DISTINCT arxiv_id FROM {table}")["arxiv_id"]) <= known, table
    assert warehouse.read(f"SELECT arxiv_id FROM {CORE_INCLUSIONS.name}")["arxiv_id"].to_list() == included
    waiting = figures(result, "paper_aliases")["overrides_waiting_for_paper"]
    assert waiting == sum(1 for line in (OVERRIDES_DIR / "aliases.csv").read_text().splitlines()[1:] if line.strip())


def test_a_paper_set_no_curation_file_mentions(tmp_path):
    result, warehouse = run(tmp_path, fixture_papers(), empty_curation(tmp_path))
    assert_ran_to_the_end(result)
    assert warehouse.read(f"SELECT arxiv_id FROM {CORE_INCLUSIONS.name}")["arxiv_id"].to_list() == [DAPO]
    assert figures(result, "inclusions")["overrides_waiting_for_paper"] == 0


def test_a_curation_row_outside_the_window_waits_and_applies_once_its_paper_arrives(tmp_path):
    curation = empty_curation(tmp_path)
    (curation / "aliases.csv").write_text(f"arxiv_id,alias,action,reason\n{GSPO},Sequence-GSPO,add,named so in the paper\n")
    early, _ = run(tmp_path / "early", QUARTER_Q1, curation)
    assert_ran_to_the_end(early)
    assert figures(early, "paper_aliases")["overrides_waiting_for_paper"] == 1

    later, warehouse = run(tmp_path / "later", fixture_papers(), curation)
    assert_ran_to_the_end(later)
    assert figures(later, "paper_aliases")["overrides_waiting_for_paper"] == 0
    sources = warehouse.read(f"SELECT source FROM {CORE_PAPER_ALIASES.name} WHERE alias = 'Sequence-GSPO'")
    assert sources["source"].to_list() == ["override"]
