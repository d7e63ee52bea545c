"""Schedules and sensors: the daily refresh, and derived tables following their inputs."""

from collections.abc import Iterator
from datetime import datetime, timedelta

import dagster as dg

from orchestration.cli import release_dead_runs, ui_runs_on_this_host
from orchestration.jobs import COHORT_METRICS, DERIVED_SELECTION, TRACKER_SITE, arxiv_harvest_job, framework_refresh_job, partition_range_tags
from orchestration.settings import HARVEST_START, frameworks

#: Days the daily refresh harvests, ending yesterday. arXiv lists a submission only once
#: it is announced (late-day and weekend submissions days later), so every run harvests
#: the trailing days again; re-harvesting a day gives the same rows.
REHARVEST_DAYS = 10


def daily_arxiv_request(
    scheduled_for: datetime, reharvest_days: int = REHARVEST_DAYS
) -> dg.RunRequest | dg.SkipReason:
    """One run over the `reharvest_days` days before `scheduled_for` (from the first partition on)."""
    last_day = (scheduled_for - timedelta(days=1)).date()
    if last_day < HARVEST_START:
        return dg.SkipReason(f"{last_day} is before the first arXiv partition, {HARVEST_START}")
    first_day = max(last_day - timedelta(days=reharvest_days - 1), HARVEST_START)
    return dg.RunRequest(run_key=f"arxiv_harvest:{last_day}", tags=partition_range_tags(first_day, last_day))


def schedule_status() -> dg.DefaultScheduleStatus:
    """On by default, except on recorded data (TRACKER_SNAPSHOT_DIR): there a 06:00 refresh
    has nothing new to read."""
    snapshot_mode = bool(dg.EnvVar("TRACKER_SNAPSHOT_DIR").get_value())
    return dg.DefaultScheduleStatus.STOPPED if snapshot_mode else dg.DefaultScheduleStatus.RUNNING


@dg.schedule(
    cron_schedule="0 6 * * *",
    execution_timezone="UTC",
    job=arxiv_harvest_job,
    default_status=schedule_status(),
    description="Every day at 06:00 UTC: harvest the previous day's arXiv submissions.",
)
def daily_refresh(context: dg.ScheduleEvaluationContext) -> dg.RunRequest | dg.SkipReason:
    # Not only the previous day: the REHARVEST_DAYS up to it, since arXiv lists submissions late.
    return daily_arxiv_request(context.scheduled_execution_time)


# A job cannot mix daily and per-framework partitions, so the frameworks have their
# own schedule at the same hour: one run per framework.
@dg.schedule(
    cron_schedule="0 6 * * *",
    execution_timezone="UTC",
    job=framework_refresh_job,
    default_status=schedule_status(),
    description="Every day at 06:00 UTC: refresh each of the seven frameworks (one run per framework).",
)
def daily_framework_refresh(context: dg.ScheduleEvaluationContext) -> Iterator[dg.RunRequest]:
    day = context.scheduled_execution_time.date().isoformat()
    for framework in frameworks():
        yield dg.RunRequest(run_key=f"framework_refresh:{framework.slug}:{day}", partition_key=framework.slug)


derived_tables_sensor = dg.AutomationConditionSensorDefinition(
    "derived_tables_automation",
    target=DERIVED_SELECTION | dg.AssetSelection.assets(*COHORT_METRICS, TRACKER_SITE),
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Recomputes derived tables, every quarter's metrics and the tracker site once their inputs have new materializations.",
)


@dg.sensor(
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Every minute under the UI's daemon: runs whose worker process is gone (killed, out of memory) "
    "are reported failed and the pool slots of finished runs freed, so the next writer is never blocked.",
)
def dead_runs_sensor(context: dg.SensorEvaluationContext) -> dg.SkipReason:
    instance = context.instance
    # Queued runs are launched by the daemon through the code server that evaluates this
    # sensor; with the default launcher their processes are its children, on this host,
    # whatever the storage (deploy/dagster.yaml: PostgreSQL).
    launched_by_this_code_server = isinstance(instance.run_launcher, dg.DefaultRunLauncher) and isinstance(
        instance.run_coordinator, dg.QueuedRunCoordinator
    )
    released = release_dead_runs(instance, launched_by_this_code_server or ui_runs_on_this_host(instance))
    if released:
        context.log.warning(f"marked {len(released)} run(s) failed whose process is gone: {', '.join(released)}")
    return dg.SkipReason(f"marked failed: {', '.join(released)}" if released else "no run whose process is gone")
