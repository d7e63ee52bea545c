"""paper_aliases and paper_screening through dg.materialize on a small fixture warehouse:
tables, metadata, overrides from a curation folder, and OpenAlex skipped or used (fake)."""

import re
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import polars as pl
import pytest

from assets.papers.assets import paper_aliases, paper_screening, papers
from assets.sources.assets import arxiv_entries, openalex_works
from orchestration.cli import RANGE_END_TAG, RANGE_START_TAG
from orchestration.clients.snapshot_files import SnapshotFileError
from orchestration.resources import ArxivSource, Curation, OpenAlexSource
from orchestration.warehouse import WRITER_POOL, Warehouse, replace_table
from fakes.serving import silent_server
from fakes.openalex_server import OpenAlexFixtures, authorship, running_fake_openalex
from tests.helpers import recorded_counts, shared_snapshots
from tests.snapshot_fixtures import affiliation_record, write_affiliations
from orchestration.tables import CORE_PAPERS

QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
AFFILIATION = pl.List(pl.Struct({"author": pl.Utf8, "affiliation": pl.Utf8}))

PAPERS = [
    {
        "arxiv_id": "2503.14476",
        "title": "DAPO: An Open-Source LLM Reinforcement Learning System at Scale",
        "abstract": "We propose the Decoupled Clip and Dynamic sAmpling Policy Optimization (DAPO) algorithm, "
        "with clip-higher and dynamic sampling, trained on Qwen2.5-32B. Code: https://github.com/BytedTsinghua-SIA/DAPO.",
        "comment": None,
        "author_affiliations": [],
    },
    {
        "arxiv_id": "2506.13585",
        "title": "MiniMax-M1: Scaling Test-Time Compute Efficiently with Lightning Attention",
        "abstract": "We introduce MiniMax-M1, an open-weight reasoning model with 456 billion total parameters "
        "and 45.9 billion parameters activated per token, trained with reinforcement learning.",
        "comment": "A technical report from MiniMax.",
        "author_affiliations": [{"author": "A. Author", "affiliation": "MiniMax"}],
    },
    {
        "arxiv_id": "2507.18071",
        "title": "Group Sequence Policy Optimization",
        "abstract": "This paper introduces Group Sequence Policy Optimization (GSPO), our stable reinforcement "
        "learning algorithm for training large language models: GSPO defines the importance ratio on sequence likelihood and performs "
        "sequence-level clipping.",
        "comment": None,
        "author_affiliations": [],
    },
]


def fixture_papers() -> pl.DataFrame:
    frame = pl.DataFrame(
        PAPERS,
        schema={
            "arxiv_id": pl.Utf8,
            "title": pl.Utf8,
            "abstract": pl.Utf8,
            "comment": pl.Utf8,
            "author_affiliations": AFFILIATION,
        },
    )
    return frame.with_columns(
        version=pl.lit(1, pl.Int32),
        published_at=pl.lit(datetime(2025, 3, 18, tzinfo=UTC)),
        cohort=pl.lit("2025-Q1"),
    )


@pytest.fixture
def warehouse(tmp_path: Path) -> Warehouse:
    store = Warehouse(database=str(tmp_path / "tracker.duckdb"))
    with store.connect() as conn:
        replace_table(conn, CORE_PAPERS.name, fixture_papers())
    return store


@pytest.fixture
def curation(tmp_path: Path) -> Path:
    folder = tmp_path / "overrides"
    folder.mkdir()
    (folder / "aliases.csv").write_text(
        "arxiv_id,alias,action,reason\n2507.18071,GSPO-token,add,the token-level variant named in the paper\n"
    )
    (folder / "screening.csv").write_text(
        "arxiv_id,is_general_rl_method,policy_params_b,loss_change_kind,code_released,code_url,reason\n"
        "2506.13585,true,,clip,,,CISPO clips importance-sampling weights: reviewed by hand\n"
    )
    (folder / "affiliations.csv").write_text(
        "arxiv_id,author,affiliation,reason\n2507.18071,,\"Qwen Team, Alibaba Inc.\",author list of the paper\n"
    )
    return folder


def materialize(assets, warehouse: Warehouse, curation: Path, openalex: OpenAlexSource | None = None):
    return dg.materialize(
        assets,
        run_config=QUIET,
        resources={
            "warehouse": warehouse,
            "curation": Curation(overrides_dir=str(curation)),
            "openalex": openalex or OpenAlexSource(api_key=None),
            "arxiv": ArxivSource(snapshot_dir=str(curation)),
        },
    )


def metadata(result: dg.ExecuteInProcessResult, key: str) -> dict[str, object]:
    (event,) = [e for e in result.get_asset_materialization_events() if e.asset_key == dg.AssetKey(key)]
    return {name: value.value for name, value in event.materialization.metadata.items()}


def test_paper_aliases_writes_the_table_with_overrides(warehouse, curation):
    result = materialize([paper_aliases], warehouse, curation)
    assert result.success
    table = warehouse.read("SELECT arxiv_id, alias, source, ambiguous FROM core.paper_aliases ORDER BY arxiv_id, alias")
    rows = {(arxiv_id, alias): source for arxiv_id, alias, source, _ in table.rows()}
    assert rows[("2503.14476", "DAPO")] == "title_prefix"
    assert rows[("2507.18071", "GSPO")] == "acronym"
    assert rows[("2507.18071", "GSPO-token")] == "override"
    assert rows[("2507.18071", "gspo_token")] == "variant"
    figures = metadata(result, "paper_aliases")
    assert figures["dagster/row_count"] == table.height
    assert figures["aliases_from_overrides"] == 1
    assert figures["aliases_learned"] == int(table["source"].eq("learned").sum())
    assert "| arxiv_id |" in figures["preview"]


def test_paper_screening_writes_verdicts_features_and_override_counts(warehouse, curation):
    result = materialize([openalex_works, paper_screening], warehouse, curation)
    assert result.success
    assert metadata(result, "openalex_works")["openalex_skipped"] == 1  # DAPO: no key, so no lookup
    table = warehouse.read("SELECT * FROM core.paper_screening ORDER BY arxiv_id")
    rows = {row["arxiv_id"]: row for row in table.iter_rows(named=True)}
    dapo, minimax, gspo = rows["2503.14476"], rows["2506.13585"], rows["2507.18071"]

    assert dapo["is_general_rl_method"] is True and dapo["verdict_source"] == "rules"
    assert dapo["policy_params_b"] == 32.0 and dapo["large_policy"] is True
    assert dapo["loss_change_kind"] == "clip"
    assert dapo["code_url"] == "https://github.com/BytedTsinghua-SIA/DAPO"
    # No affiliation listed anywhere: the code URL's organisation (a ByteDance joint lab) names the company.
    assert dapo["maintainer_company"] == "ByteDance" and dapo["affiliation_source"] == "code_url"

    # The rules call MiniMax-M1 a model report; the override wins and says why.
    assert minimax["is_general_rl_method"] is True and minimax["verdict_source"] == "override"
    assert list(minimax["overridden"]) == ["is_general_rl_method", "loss_change_kind"]
    assert minimax["loss_change_kind"] == "clip" and minimax["loss_change_cue"] == "override"
    assert minimax["policy_params_b"] == 456.0  # total, not the 45.9B active
    assert minimax["maintainer_company"] == "none" and minimax["affiliation_source"] == "arxiv"

    assert gspo["maintainer_company"] == "Alibaba" and gspo["affiliation_source"] == "override"
    assert gspo["policy_params_b"] is None and gspo["large_policy"] is None

    figures = metadata(result, "paper_screening")
    assert figures["dagster/row_count"] == 3
    assert figures["verdicts_from_overrides"] == 1
    assert figures["papers_with_overridden_values"] == 1
    assert figures["maintainer_company_known"] == 3
    assert figures["papers_per_affiliation_source"] == {"arxiv": 1, "code_url": 1, "override": 1}


def test_openalex_fills_missing_affiliations_once_and_is_cached(warehouse, curation):
    fixtures = OpenAlexFixtures()
    fixtures.works["2503.14476"] = [authorship("Qiying Yu", "ByteDance Seed")]
    with running_fake_openalex(fixtures) as url:
        openalex = OpenAlexSource(api_url=url, api_key="fake-key", min_interval_s=0, backoff_s=0)
        first = materialize([openalex_works, paper_screening], warehouse, curation, openalex)
        second = materialize([openalex_works, paper_screening], warehouse, curation, openalex)
    assert first.success and second.success
    # Only DAPO lacks affiliations from overrides and arXiv; the second run reads the cache.
    assert [path for path, _ in fixtures.requests] == ["/works/doi:10.48550/arXiv.2503.14476"]
    assert metadata(first, "openalex_works")["openalex_fetched"] == 1
    assert metadata(second, "openalex_works")["openalex_requests"] == 0
    company = warehouse.read(
        "SELECT maintainer_company, affiliation_source FROM core.paper_screening WHERE arxiv_id = '2503.14476'"
    )
    assert company.rows() == [("ByteDance", "openalex")]
    cached = warehouse.read("SELECT arxiv_id, status FROM raw.openalex_works")
    assert cached.rows() == [("2503.14476", 200)]


def recorded_affiliations(folder: Path) -> Path:
    """A snapshot folder whose affiliations name a company for each fixture paper; only
    DAPO's are not outranked (MiniMax has arXiv's field, GSPO an override)."""
    write_affiliations(
        folder,
        [
            affiliation_record("2503.14476", ["ByteDance Seed", "Institute for AI Industry Research (AIR), Tsinghua University"]),
            affiliation_record("2506.13585", [], {"A. Author": ["NVIDIA"]}),
            affiliation_record("2507.18071", ["Hugging Face"]),
        ],
    )
    return folder


def test_recorded_affiliations_rank_between_arxiv_and_openalex(warehouse, curation, tmp_path):
    fixtures = OpenAlexFixtures()
    fixtures.works["2503.14476"] = [authorship("Qiying Yu", "Stanford University")]
    snapshot = recorded_affiliations(tmp_path / "snapshot")
    with running_fake_openalex(fixtures) as url:
        openalex = OpenAlexSource(api_url=url, api_key="fake-key", min_interval_s=0, backoff_s=0, snapshot_dir=str(snapshot))
        result = materialize([openalex_works, paper_screening], warehouse, curation, openalex)
    assert result.success
    companies = warehouse.read(
        "SELECT arxiv_id, maintainer_company, affiliation_source FROM core.paper_screening ORDER BY arxiv_id"
    )
    assert companies.rows() == [
        ("2503.14476", "ByteDance", "snapshot"),
        ("2506.13585", "none", "arxiv"),  # arXiv's own field outranks the printed page
        ("2507.18071", "Alibaba", "override"),
    ]
    assert fixtures.requests == []  # every paper has affiliations before OpenAlex
    figures = metadata(result, "paper_screening")
    assert (figures["maintainer_company_known"], figures["maintainer_company_unknown"]) == (3, 0)
    assert figures["papers_per_affiliation_source"] == {"arxiv": 1, "override": 1, "snapshot": 1}


def test_a_paper_no_source_covers_stays_unknown_and_is_counted(warehouse, curation, tmp_path):
    """Without GSPO's override nothing lists its affiliations, and it links no code and
    no address: unknown, counted apart. DAPO, left out by the snapshot, falls to its code URL."""
    (curation / "affiliations.csv").write_text("arxiv_id,author,affiliation,reason\n")
    snapshot = tmp_path / "snapshot"
    write_affiliations(snapshot, [affiliation_record("2506.13585", ["NVIDIA"])])
    result = materialize([paper_screening], warehouse, curation, OpenAlexSource(snapshot_dir=str(snapshot)))
    table = warehouse.read("SELECT * FROM core.paper_screening ORDER BY arxiv_id")
    assert table.select("arxiv_id", "maintainer_company", "affiliation_source").rows() == [
        ("2503.14476", "ByteDance", "code_url"),
        ("2506.13585", "none", "arxiv"),
        ("2507.18071", None, None),
    ]
    figures = metadata(result, "paper_screening")
    assert figures["maintainer_company_unknown"] == 1
    general = table.filter("is_general_rl_method")
    assert figures["general_methods_per_affiliation_source"] == dict(
        general.group_by(pl.col("affiliation_source").fill_null("unknown")).len().iter_rows()
    )
    assert figures["general_methods_per_affiliation_source"]["unknown"] == 1


def test_a_corrupt_affiliations_file_fails_the_run_with_its_path(warehouse, curation, tmp_path):
    snapshot = tmp_path / "snapshot"
    path = write_affiliations(snapshot, [affiliation_record("2503.14476", ["ByteDance Seed"]), '{"arxiv_id": "2506.1'])
    with pytest.raises(SnapshotFileError, match=re.escape(f"{path}:2: not a JSON line")):
        materialize([paper_screening], warehouse, curation, OpenAlexSource(snapshot_dir=str(snapshot)))


@pytest.mark.snapshots
def test_maintainer_company_is_known_for_most_recorded_papers(tmp_path):
    """The 172 recorded papers through arxiv_entries, papers and paper_screening in
    snapshot mode: the recorded affiliations make the maintainer company known for most."""
    snapshot = shared_snapshots()
    store = Warehouse(database=str(tmp_path / "tracker.duckdb"))
    harvest = dg.materialize(
        [arxiv_entries],
        tags={RANGE_START_TAG: "2025-01-01", RANGE_END_TAG: "2026-06-30"},
        run_config=QUIET,
        resources={"warehouse": store, "arxiv": ArxivSource(snapshot_dir=str(snapshot))},
    )
    assert harvest.success
    result = dg.materialize(
        [papers, paper_screening],
        run_config=QUIET,
        resources={"warehouse": store, "curation": Curation(), "openalex": OpenAlexSource(snapshot_dir=str(snapshot))},
    )
    assert result.success
    screening = store.read("SELECT * FROM core.paper_screening")
    assert screening.height == recorded_counts(snapshot).arxiv_entries
    known = screening.filter(pl.col("maintainer_company").is_not_null())
    assert known.height >= 130  # 141 papers recorded, one of them with no institution at all
    general = screening.filter("is_general_rl_method")
    assert general["maintainer_company"].is_not_null().mean() > 0.7
    assert set(known["maintainer_company"]) >= {"none", "ByteDance", "Alibaba", "NVIDIA", "Ant Group"}
    figures = metadata(result, "paper_screening")
    assert figures["maintainer_company_unknown"] == screening.height - known.height
    assert figures["general_methods_per_affiliation_source"]["unknown"] == general["maintainer_company"].null_count()


def test_a_malformed_override_fails_the_run_with_file_and_line(warehouse, curation):
    (curation / "screening.csv").write_text(
        "arxiv_id,is_general_rl_method,policy_params_b,loss_change_kind,code_released,code_url,reason\n"
        "2506.13585,true,,clip,,,fine\n"
        "2507.18071,maybe,,,,,unsure\n"
    )
    with pytest.raises(Exception, match=r"screening\.csv:3: is_general_rl_method 'maybe': must be true or false"):
        materialize([paper_screening], warehouse, curation)


def test_curation_rows_about_papers_not_harvested_wait_for_them(warehouse, curation):
    with (curation / "aliases.csv").open("a") as handle:
        handle.write("2606.00042,FutureRL,add,a paper outside this window\n")
    with (curation / "screening.csv").open("a") as handle:
        handle.write("2606.00042,true,70,,,,a paper outside this window\n")
    with (curation / "affiliations.csv").open("a") as handle:
        handle.write("2606.00042,,NVIDIA,a paper outside this window\n")
    result = materialize([paper_aliases, paper_screening], warehouse, curation)
    assert result.success
    aliases = warehouse.read("SELECT DISTINCT arxiv_id FROM core.paper_aliases")["arxiv_id"].to_list()
    screened = warehouse.read("SELECT arxiv_id FROM core.paper_screening")["arxiv_id"].to_list()
    assert "2606.00042" not in aliases and "2606.00042" not in screened
    alias_figures, screening_figures = metadata(result, "paper_aliases"), metadata(result, "paper_screening")
    assert alias_figures["overrides_waiting_for_paper"] == 1
    assert "aliases.csv:3 2606.00042" in alias_figures["overrides_waiting"]
    assert screening_figures["overrides_waiting_for_paper"] == 2
    assert "screening.csv:3 2606.00042" in screening_figures["overrides_waiting"]
    assert "affiliations.csv:3 2606.00042" in screening_figures["overrides_waiting"]


STALLED = {"timeout_s": 0.2, "max_retries": 1000, "backoff_s": 0.01, "deadline_minutes": 0.05}


@pytest.mark.parametrize(
    ("asset", "fetch_step", "stalled_source"),
    [
        (openalex_works, "openalex_works.fetch", lambda url: {"openalex": OpenAlexSource(api_url=url, api_key="k", min_interval_s=0, **STALLED)}),
        (paper_aliases, "paper_aliases.fetch", lambda url: {"arxiv": ArxivSource(api_url=url, html_url=url, min_interval_s=0, **STALLED)}),
    ],
    ids=["openalex", "report_texts"],
)
def test_a_stalled_source_holds_no_writer_slot_while_the_asset_waits_for_it(warehouse, curation, tmp_path, asset, fetch_step, stalled_source):
    """OpenAlex and the reports' texts are fetched outside the writer pool: while the fetch
    waits on a server that never answers, another writer can take the slot."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "dagster.yaml").write_text("concurrency:\n  pools:\n    default_limit: 1\n")
    finished: dict[str, dg.ExecuteInProcessResult] = {}
    with silent_server() as url, dg.DagsterInstance.from_config(str(home)) as instance:
        storage = instance.event_log_storage
        storage.set_concurrency_slots(WRITER_POOL, 1)
        resources = {
            "warehouse": warehouse,
            "curation": Curation(overrides_dir=str(curation)),
            "openalex": OpenAlexSource(api_key=None),
            "arxiv": ArxivSource(snapshot_dir=str(curation)),
        } | stalled_source(url)

        def run() -> None:
            finished["result"] = dg.materialize([asset], instance=instance, resources=resources, run_config=QUIET, raise_on_error=False)

        thread = threading.Thread(target=run)
        thread.start()
        fetching = False
        while thread.is_alive() and not fetching:
            time.sleep(0.05)
            fetching = any(
                event.dagster_event and event.dagster_event.event_type == dg.DagsterEventType.STEP_START and event.step_key == fetch_step
                for run in instance.get_runs()
                for event in instance.all_logs(run.run_id)
            )
        assert fetching, "the fetch step never started"
        # The fetch waits on the silent server, and the slot is free for another writer.
        claimed = storage.claim_concurrency_slot(WRITER_POOL, "another-writer", "write")
        assert claimed.slot_status.value == "CLAIMED"
        storage.free_concurrency_slots_for_run("another-writer")
        thread.join(timeout=120)
    assert "result" in finished
