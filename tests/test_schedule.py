"""The daily schedules ask for the previous UTC day's arXiv partition and every framework."""

from datetime import UTC, datetime

import dagster as dg
import pytest

from orchestration.definitions import defs
from orchestration.schedules import daily_framework_refresh, daily_refresh
from orchestration.settings import frameworks

SIX_AM = datetime(2026, 3, 1, 6, 0, tzinfo=UTC)


def context(moment: datetime = SIX_AM) -> dg.ScheduleEvaluationContext:
    return dg.build_schedule_context(scheduled_execution_time=moment)


def test_daily_refresh_requests_the_previous_day():
    request = daily_refresh(context())
    assert request.partition_key == "2026-02-28"
    assert request.run_key == "arxiv_harvest:2026-02-28"


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
