"""Weekly upkeep of the warehouse: compaction of the DuckLake's small files.

With several writers on a DuckLake, every framework refresh, daily arXiv partition and
derived table writes Parquet files of its own (small ones: a day's commits of one
framework). Reads slow down as they pile up, so once a week `compact_warehouse` merges
them, expires old snapshots and deletes the files nothing uses (orchestration/warehouse.py
`compact_lake`). On the DuckDB file it is a CHECKPOINT.
"""

import dagster as dg

from orchestration.schedules import schedule_status
from orchestration.warehouse import KEEP_SNAPSHOTS_DAYS, WRITER_POOL, Warehouse


class CompactionConfig(dg.Config):
    keep_days: int = KEEP_SNAPSHOTS_DAYS


@dg.op(
    pool=WRITER_POOL,
    description="Merge the lake's small Parquet files, expire snapshots older than keep_days and "
    "delete the files nothing uses (DuckLake); CHECKPOINT the DuckDB file.",
)
def compact_warehouse(context: dg.OpExecutionContext, config: CompactionConfig, warehouse: Warehouse) -> dg.Output[None]:
    if config.keep_days < 1:
        raise dg.Failure(f"keep_days={config.keep_days}: keep at least 1 day of snapshots (a running read may use them)")
    context.log.info(f"compacting the {warehouse.setting().backend.rstrip(':')} warehouse")
    compaction = warehouse.compact(config.keep_days)
    context.log.info(compaction.describe())
    return dg.Output(None, metadata=compaction.metadata())


@dg.job(description="Compact the warehouse: merge the DuckLake's small files, expire old snapshots (weekly).")
def warehouse_maintenance() -> None:
    compact_warehouse()


@dg.schedule(
    cron_schedule="0 4 * * 0",
    execution_timezone="UTC",
    job=warehouse_maintenance,
    default_status=schedule_status(),
    description="Sundays at 04:00 UTC, before the daily refresh: compact the warehouse.",
)
def weekly_compaction(context: dg.ScheduleEvaluationContext) -> dg.RunRequest:
    return dg.RunRequest(run_key=f"warehouse_maintenance:{context.scheduled_execution_time:%Y-%m-%d}")
