"""Schedules and sensors: the daily refresh, and derived tables following their inputs."""

from datetime import timedelta

import dagster as dg

from orchestration.jobs import DERIVED_GROUPS, arxiv_harvest_job


@dg.schedule(
    cron_schedule="0 6 * * *",
    execution_timezone="UTC",
    job=arxiv_harvest_job,
    default_status=dg.DefaultScheduleStatus.RUNNING,
    description="Every day at 06:00 UTC: harvest the previous day's arXiv submissions.",
)
def daily_refresh(context: dg.ScheduleEvaluationContext) -> dg.RunRequest:
    previous_day = (context.scheduled_execution_time - timedelta(days=1)).date().isoformat()
    return dg.RunRequest(run_key=f"arxiv_harvest:{previous_day}", partition_key=previous_day)


derived_tables_sensor = dg.AutomationConditionSensorDefinition(
    "derived_tables_automation",
    target=dg.AssetSelection.groups(*DERIVED_GROUPS),
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Recomputes derived tables once their inputs have new materializations.",
)
