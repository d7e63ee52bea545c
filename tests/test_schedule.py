"""The daily schedules ask for the trailing days of arXiv (one run) and every framework."""

from datetime import UTC, date, datetime, timedelta

import dagster as dg
import duckdb
import pytest

from assets.sources.assets import arxiv_entries
from orchestration.definitions import defs
from orchestration.jobs import RANGE_END_TAG, RANGE_START_TAG
from orchestration.resources import ArxivSource
from orchestration.schedules import REHARVEST_DAYS, daily_arxiv_request, daily_framework_refresh, daily_refresh
from orchestration.settings import frameworks
from orchestration.warehouse import Warehouse
from fakes.arxiv_server import arxiv_entry

SIX_AM = datetime(2026, 3, 1, 6, 0, tzinfo=UTC)


def context(moment: datetime = SIX_AM) -> dg.ScheduleEvaluationContext:
    return dg.build_schedule_context(scheduled_execution_time=moment)


def test_daily_refresh_requests_the_trailing_ten_days_as_one_range():
    request = daily_refresh(context())
    assert REHARVEST_DAYS == 10
    assert request.partition_key is None
    assert (request.tags[RANGE_START_TAG], request.tags[RANGE_END_TAG]) == ("2026-02-19", "2026-02-28")
    assert request.run_key == "arxiv_harvest:2026-02-28"
    tomorrow = daily_refresh(context(SIX_AM + timedelta(days=1)))
    assert tomorrow.run_key != request.run_key and tomorrow.tags[RANGE_END_TAG] == "2026-03-01"


def test_the_trailing_window_is_configurable_and_starts_no_earlier_than_the_first_partition():
    assert daily_arxiv_request(SIX_AM, reharvest_days=3).tags[RANGE_START_TAG] == "2026-02-26"
    early = daily_refresh(context(datetime(2025, 1, 4, 6, tzinfo=UTC)))
    assert (early.tags[RANGE_START_TAG], early.tags[RANGE_END_TAG]) == ("2025-01-01", "2025-01-03")
    assert isinstance(daily_refresh(context(datetime(2025, 1, 1, 6, tzinfo=UTC))), dg.SkipReason)


def test_a_paper_announced_days_after_its_submission_is_harvested_by_a_later_daily_run(fake_arxiv, tmp_path):
    database = str(tmp_path / "tracker.duckdb")
    submitted = datetime(2026, 2, 27, 21, tzinfo=UTC)  # late on a Friday: listed on Sunday's announcement
    fake_arxiv.fixtures.add(submitted, arxiv_entry("2602.99999", submitted), announced=date(2026, 3, 1))
    on_time = datetime(2026, 2, 26, 9, tzinfo=UTC)
    fake_arxiv.fixtures.add(on_time, arxiv_entry("2602.11111", on_time))
    resources = {
        "arxiv": ArxivSource(api_url=fake_arxiv.url, min_interval_s=0, backoff_s=0.01, timeout_s=5),
        "warehouse": Warehouse(database=database),
    }

    def stored_ids() -> list[str]:
        with duckdb.connect(database, read_only=True) as conn:
            return [row[0] for row in conn.sql("SELECT arxiv_id FROM raw.arxiv_entries ORDER BY 1").fetchall()]

    for tick in (datetime(2026, 2, 28, 6, tzinfo=UTC), datetime(2026, 3, 1, 6, tzinfo=UTC)):
        fake_arxiv.fixtures.today = tick.date()
        request = daily_refresh(context(tick))
        assert dg.materialize([arxiv_entries], resources=resources, tags=request.tags).success
        if tick.day == 28:  # not announced yet: the run for 2026-02-27 alone would never see it
            assert stored_ids() == ["2602.11111"]
    assert stored_ids() == ["2602.11111", "2602.99999"]
    # both runs asked for one range each, of ten days
    searches = [r.query["search_query"] for r in fake_arxiv.fixtures.requests]
    assert [s[s.index("submittedDate"):] for s in searches] == [
        "submittedDate:[202602180000 TO 202602272359]",
        "submittedDate:[202602190000 TO 202602282359]",
    ]


def test_the_daily_request_runs_the_harvest_job_as_one_run(fake_arxiv, tmp_path):
    published = datetime(2026, 2, 20, 9, tzinfo=UTC)
    fake_arxiv.fixtures.add(published, arxiv_entry("2602.22222", published))
    request = daily_refresh(context())
    job = defs.resolve_job_def("arxiv_harvest")
    result = job.execute_in_process(
        tags=request.tags,
        resources={
            "arxiv": ArxivSource(api_url=fake_arxiv.url, min_interval_s=0, backoff_s=0.01, timeout_s=5),
            "warehouse": Warehouse(database=str(tmp_path / "tracker.duckdb")),
        },
    )
    assert result.success
    materializations = result.asset_materializations_for_node("arxiv_entries")
    assert [m.partition for m in materializations] == [f"2026-02-{day}" for day in range(19, 29)]
    assert materializations[0].metadata["window"].value == "2026-02-19 .. 2026-02-28"
    assert len(fake_arxiv.fixtures.requests) == 1


def test_daily_framework_refresh_requests_all_seven_frameworks():
    requests = list(daily_framework_refresh(context()))
    assert [r.partition_key for r in requests] == [f.slug for f in frameworks()]
    assert len(requests) == 7
    assert {r.run_key for r in requests} == {f"framework_refresh:{f.slug}:2026-03-01" for f in frameworks()}
    tomorrow = {r.run_key for r in daily_framework_refresh(context(datetime(2026, 3, 2, 6, tzinfo=UTC)))}
    assert not tomorrow & {r.run_key for r in requests}


@pytest.mark.parametrize(("name", "job"), [("daily_refresh", "arxiv_harvest"), ("daily_framework_refresh", "framework_refresh")])
def test_both_run_at_six_utc_and_are_on(name, job):
    schedule = defs.resolve_schedule_def(name)
    assert (schedule.cron_schedule, schedule.execution_timezone, schedule.job_name) == ("0 6 * * *", "UTC", job)
    assert schedule.default_status == dg.DefaultScheduleStatus.RUNNING
    defs.resolve_job_def(job)  # resolvable: the daemon can launch it
