"""The daily schedule asks for the previous UTC day's partition."""

from datetime import UTC, datetime

import dagster as dg

from orchestration.definitions import defs
from orchestration.schedules import daily_refresh


def test_daily_refresh_requests_the_previous_day():
    context = dg.build_schedule_context(scheduled_execution_time=datetime(2026, 3, 1, 6, 0, tzinfo=UTC))
    request = daily_refresh(context)
    assert request.partition_key == "2026-02-28"
    assert request.run_key == "arxiv_harvest:2026-02-28"


def test_daily_refresh_runs_at_six_utc():
    schedule = defs.resolve_schedule_def("daily_refresh")
    assert schedule.cron_schedule == "0 6 * * *"
    assert schedule.execution_timezone == "UTC"
