"""The metrics stage in Dagster: quarterly partitions written slice by slice, the tables
that describe all cohorts, their blocking checks, and the CLI's --cohort window."""

from datetime import date
from pathlib import Path

import dagster as dg
import polars as pl
import pytest

from assets.metrics import assets as metrics
from assets.metrics.cohort_inclusion import cohort_inclusion as cohort_inclusion_of
from assets.metrics.invariants import cohort_inclusion_problems, survival_problems
from assets.metrics.peers import included_vs_peers as included_vs_peers_of
from orchestration.cli import CliError, cohort_window
from orchestration.partitions import cohort_label, cohort_partition_key, cohort_partitions
from orchestration.resources import ArxivSource, FrameworkSources
from orchestration.settings import frameworks
from orchestration.tables import (
    CORE_INCLUSIONS,
    CORE_PAPER_SCREENING,
    CORE_PAPERS,
    METRICS_COHORT_INCLUSION,
    METRICS_INCLUDED_VS_PEERS,
    RAW_GIT_COMMITS,
)
from orchestration.warehouse import Warehouse, replace_table
from tests.metrics_fixtures import inclusions, papers, screening, t

QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
SLUGS = [framework.slug for framework in frameworks()]
COHORT_ASSETS = [metrics.cohort_inclusion, metrics.included_vs_peers, metrics.time_to_inclusion]
ALL_METRICS = dg.load_assets_from_modules([metrics])

# Two 2025-Q1 methods (one included 40 days after v1, one never), a 2025-Q2 method
# included before its v1 (a negative lag counts) and a 2025-Q2 paper that is no method.
PAPERS = papers([("2501.00001", "2025-01-10"), ("2502.00002", "2025-02-20"), ("2504.00003", "2025-04-15"), ("2505.00004", "2025-05-05")])
SCREENING = screening(PAPERS, is_general_rl_method={"2505.00004": False}, policy_params_b={"2501.00001": 32.0})
INCLUSIONS = inclusions(
    [("2501.00001", "verl", "2025-02-19"), ("2501.00001", "trl", "2025-06-01"), ("2504.00003", "verl", "2025-04-01")],
    PAPERS,
)
#: Every framework observed to 2026-01-31: 2025-Q1 and Q2 are closed, later cohorts provisional.
OBSERVED_THROUGH = "2026-01-31"


def commit_rows() -> pl.DataFrame:
    frame = pl.DataFrame(
        {"framework": SLUGS, "sha": [f"head-{slug}" for slug in SLUGS], "committed_at": [t(OBSERVED_THROUGH)] * len(SLUGS)}
    )
    return frame.with_columns(
        [pl.lit(None, dtype).alias(column) for column, dtype in RAW_GIT_COMMITS.schema.items() if column not in frame.columns]
    ).select(list(RAW_GIT_COMMITS.schema)).cast(RAW_GIT_COMMITS.schema)


@pytest.fixture
def warehouse(tmp_path: Path) -> Warehouse:
    store = Warehouse(database=str(tmp_path / "tracker.duckdb"))
    with store.connect() as conn:
        replace_table(conn, CORE_PAPERS.name, PAPERS.select(list(CORE_PAPERS.schema.keys() & set(PAPERS.columns))))
        replace_table(conn, CORE_PAPER_SCREENING.name, SCREENING)
        replace_table(conn, CORE_INCLUSIONS.name, INCLUSIONS)
        replace_table(conn, RAW_GIT_COMMITS.name, commit_rows())
    return store


def resources(warehouse: Warehouse, tmp_path: Path) -> dict[str, object]:
    # Snapshot mode: the as-of date is the newest recorded commit, never the wall clock.
    reports = tmp_path / "reports" / "reports.jsonl"
    reports.parent.mkdir(exist_ok=True)
    reports.write_text('{"arxiv_id": "2505.09388", "passages": [{"section": "RL", "text": "We use GRPO."}]}\n')
    return {
        "warehouse": warehouse,
        "framework_sources": FrameworkSources(snapshot_dir=str(tmp_path)),
        "arxiv": ArxivSource(snapshot_dir=str(tmp_path)),
    }


def test_cohort_partitions_are_quarters_read_as_labels():
    keys = cohort_partitions.get_partition_keys()
    assert keys[:3] == ["2025-01-01", "2025-04-01", "2025-07-01"]
    assert [cohort_label(key) for key in keys[:3]] == ["2025-Q1", "2025-Q2", "2025-Q3"]
    assert cohort_partition_key("2025-Q2") == "2025-04-01"
    with pytest.raises(ValueError, match="not a cohort"):
        cohort_partition_key("2025-Q5")


def test_one_quarter_writes_only_its_partition_and_matches_the_unpartitioned_tables(warehouse, tmp_path):
    result = dg.materialize(
        COHORT_ASSETS, partition_key="2025-04-01", resources=resources(warehouse, tmp_path), run_config=QUIET,
        selection=COHORT_ASSETS,
    )
    assert result.success
    stored = warehouse.read_table(METRICS_COHORT_INCLUSION)
    assert stored["cohort"].unique().to_list() == ["2025-Q2"]
    as_of = t(OBSERVED_THROUGH)
    everything = cohort_inclusion_of(PAPERS, SCREENING, INCLUSIONS, commit_rows().select("framework", observed_through="committed_at"), as_of, SLUGS)
    assert stored.sort("framework").equals(everything.filter(pl.col("cohort") == "2025-Q2").sort("framework"))
    any_row = stored.filter(pl.col("framework") == "any").row(0, named=True)
    # 2504.00003 included 14 days before its v1: within 180 days; 2505.00004 is no method.
    assert (any_row["papers"], any_row["general_methods"], any_row["included_within_180d"]) == (2, 1, 1)
    assert any_row["window_closed"] is True  # 2025-06-30 + 180 days < 2026-01-31

    peers = warehouse.read_table(METRICS_INCLUDED_VS_PEERS)
    assert set(peers["cohort"]) == {"2025-Q2", "pooled"}
    expected = included_vs_peers_of(PAPERS, SCREENING, INCLUSIONS, commit_rows().select("framework", observed_through="committed_at"), as_of, SLUGS)
    assert peers.sort("cohort", "feature", "maintainers_excluded").equals(
        expected.filter(pl.col("cohort").is_in(["2025-Q2", "pooled"])).sort("cohort", "feature", "maintainers_excluded")
    )
    evaluations = result.get_asset_check_evaluations()
    assert evaluations and all(evaluation.passed for evaluation in evaluations)
    for event in result.get_asset_materialization_events():
        chart = event.materialization.metadata["chart"].value
        assert chart.startswith("![") and "data:image/png;base64," in chart

    # A second quarter adds its rows and leaves the first quarter's alone.
    again = dg.materialize(COHORT_ASSETS, partition_key="2025-01-01", resources=resources(warehouse, tmp_path), run_config=QUIET)
    assert again.success
    assert sorted(warehouse.read_table(METRICS_COHORT_INCLUSION)["cohort"].unique()) == ["2025-Q1", "2025-Q2"]


def test_a_range_of_quarters_is_one_run(warehouse, tmp_path):
    defs = dg.Definitions(assets=ALL_METRICS, jobs=[dg.define_asset_job("cohorts", selection=COHORT_ASSETS)], resources=resources(warehouse, tmp_path))
    result = defs.resolve_job_def("cohorts").execute_in_process(
        run_config=QUIET,
        tags={"dagster/asset_partition_range_start": "2025-01-01", "dagster/asset_partition_range_end": "2025-10-01"},
    )
    assert result.success
    stored = warehouse.read_table(METRICS_COHORT_INCLUSION)
    assert sorted(stored["cohort"].unique()) == ["2025-Q1", "2025-Q2", "2025-Q3", "2025-Q4"]
    q3 = stored.filter((pl.col("cohort") == "2025-Q3") & (pl.col("framework") == "any")).row(0, named=True)
    assert (q3["papers"], q3["share_within_180d"], q3["window_closed"]) == (0, None, False)  # empty, provisional


def test_the_tables_of_all_cohorts_and_their_checks(warehouse, tmp_path):
    unpartitioned = [a for a in ALL_METRICS if a.partitions_def is None]
    result = dg.materialize(unpartitioned, resources=resources(warehouse, tmp_path), run_config=QUIET, selection=unpartitioned)
    assert result.success
    assert all(evaluation.passed for evaluation in result.get_asset_check_evaluations())
    first = warehouse.read("SELECT arxiv_id, framework, rank FROM metrics.first_inclusions ORDER BY arxiv_id, rank").rows()
    assert first == [("2501.00001", "verl", 1), ("2501.00001", "trl", 2), ("2504.00003", "verl", 1)]
    coverage = warehouse.read("SELECT implementations, share_without_report FROM metrics.failure_report_coverage WHERE framework = 'any'")
    assert coverage.rows() == [(3, 1.0)]


def test_a_closed_window_never_reopens(warehouse, tmp_path):
    assert dg.materialize([metrics.cohort_inclusion], partition_key="2025-01-01", resources=resources(warehouse, tmp_path), run_config=QUIET).success
    before = warehouse.read_table(METRICS_COHORT_INCLUSION)
    # The frameworks' histories now end earlier (a source lost): the window would reopen.
    with warehouse.connect() as conn:
        replace_table(conn, RAW_GIT_COMMITS.name, commit_rows().with_columns(committed_at=pl.lit(t("2025-08-01"))))
    result = dg.materialize([metrics.cohort_inclusion], partition_key="2025-01-01", resources=resources(warehouse, tmp_path), run_config=QUIET, raise_on_error=False)
    assert not result.success
    (evaluation,) = [e for e in result.get_asset_check_evaluations() if e.check_name == "closed_windows_stay_closed"]
    assert not evaluation.passed and "window reopened: 2025-Q1" in evaluation.description
    assert warehouse.read_table(METRICS_COHORT_INCLUSION).equals(before)  # not published
    assert not result.get_asset_materialization_events()


def test_invariants_name_what_is_broken():
    as_of = t(OBSERVED_THROUGH)
    rows = cohort_inclusion_of(PAPERS, SCREENING, INCLUSIONS, commit_rows().select("framework", observed_through="committed_at"), as_of, SLUGS)
    assert cohort_inclusion_problems(rows, SLUGS) == []
    broken = rows.with_columns(
        included_within_180d=pl.when(pl.col("cohort") == "2025-Q1").then(9).otherwise("included_within_180d")
    ).filter(~((pl.col("cohort") == "2025-Q2") & (pl.col("framework") == "trl")))
    problems = cohort_inclusion_problems(broken, SLUGS)
    assert any(p.startswith("share_within_180d is not") for p in problems)
    assert any(p.startswith("counts do not add up") for p in problems)
    assert any("cohort 2025-Q2: frameworks" in p for p in problems)
    survival = pl.DataFrame({"cohort": ["x", "x"], "day": [1.0, 2.0], "at_risk": [2, 1], "events": [1, 1], "censored": [0, 0], "survival": [0.5, 0.7], "lower": [0.1, 0.2], "upper": [0.9, 0.9]})
    assert survival_problems(survival) == ["survival rises over time: 1 row(s), e.g. ['x, 2.0']"]


def test_the_cli_cohort_window_is_the_quarter_up_to_yesterday():
    assert cohort_window("2025-Q2", date(2026, 12, 4)) == cohort_window("2025-Q2", date(2027, 1, 1))
    window = cohort_window("2025-Q2", date(2026, 12, 4))
    assert (window.first_day, window.last_day) == (date(2025, 4, 1), date(2025, 6, 30))
    assert cohort_window("2026-Q4", date(2026, 12, 4)).last_day == date(2026, 12, 3)
    with pytest.raises(CliError, match="--cohort 2025-Q7: not a cohort"):
        cohort_window("2025-Q7", date(2026, 12, 4))


class CountingWarehouse(Warehouse):
    """A warehouse that counts how often it is opened."""

    def get_connection(self):
        OPENED.append(self.database)
        return super().get_connection()


OPENED: list[str] = []


def test_one_metrics_materialization_opens_the_warehouse_once(warehouse, tmp_path):
    counting = CountingWarehouse(database=warehouse.database)
    for asset in ALL_METRICS:
        OPENED.clear()
        partition = {"partition_key": "2025-04-01"} if asset.partitions_def is not None else {}
        result = dg.materialize(
            [asset], resources={**resources(warehouse, tmp_path), "warehouse": counting}, run_config=QUIET, **partition
        )
        assert result.success
        assert len(OPENED) == 1, asset.key
