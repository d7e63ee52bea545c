"""The as-of date of a run: the moment every age (days open, time since v1, whether a
cohort's window has closed) is measured to, never the wall clock (../shared/DESIGN.md,
"Definitions"). The same input then gives the same tables on any day.

- Snapshot mode: the end of the recorded data, the newest recorded timestamp among
  commits, threads and comments.
- Live: the run's date, the UTC midnight that ends the last complete day (the day the
  harvest calls "yesterday" ends there).

`as_of_of` is the definition (pure); `read_as_of` is what an asset calls with the
warehouse and the FrameworkSources resource, which knows whether this is a snapshot.
"""

from datetime import UTC, datetime, time

import polars as pl

from orchestration.resources import FrameworkSources
from orchestration.warehouse import Warehouse, read_frame, table_exists
from orchestration.tables import RAW_GITHUB_COMMENTS, RAW_GITHUB_THREADS, RAW_GIT_COMMITS

#: The recorded times that bound a snapshot, per table: when a commit landed, when a
#: thread or comment was created, updated, closed or merged.
RECORDED_TIME_COLUMNS: dict[str, tuple[str, ...]] = {
    RAW_GIT_COMMITS.name: ("committed_at",),
    RAW_GITHUB_THREADS.name: ("created_at", "updated_at", "closed_at", "merged_at"),
    RAW_GITHUB_COMMENTS.name: ("created_at", "updated_at"),
}


def run_date(now: datetime) -> datetime:
    """The UTC midnight that ends the last complete day before `now` (an aware time)."""
    return datetime.combine(now.astimezone(UTC).date(), time(), tzinfo=UTC)


def newest_recorded_time(commits: pl.DataFrame, threads: pl.DataFrame, comments: pl.DataFrame) -> datetime | None:
    """The newest of the RECORDED_TIME_COLUMNS in the three frames (any of them may be
    missing or empty), in UTC; None where nothing is recorded."""
    newest = [
        frame.get_column(column).dt.convert_time_zone("UTC").max()
        for frame, table in ((commits, RAW_GIT_COMMITS.name), (threads, RAW_GITHUB_THREADS.name), (comments, RAW_GITHUB_COMMENTS.name))
        for column in RECORDED_TIME_COLUMNS[table]
        if column in frame.columns
    ]
    known = [moment for moment in newest if moment is not None]
    return max(known).astimezone(UTC) if known else None


def as_of_of(
    commits: pl.DataFrame, threads: pl.DataFrame, comments: pl.DataFrame, *, snapshot: bool, now: datetime
) -> datetime:
    """The as-of date (UTC) of a run at `now`: in snapshot mode the newest recorded time of
    the commits, threads and comments (full tables or any rows holding their maxima); live,
    or in a snapshot with nothing recorded yet, `run_date(now)`."""
    recorded_end = newest_recorded_time(commits, threads, comments) if snapshot else None
    return recorded_end or run_date(now)


def read_as_of(warehouse: Warehouse, framework_sources: FrameworkSources, *, now: datetime) -> datetime:
    """The as-of date of a run at `now` (`as_of_of`), reading only the newest recorded times."""
    snapshot = bool(framework_sources.snapshot_dir)
    newest: dict[str, pl.DataFrame] = {table: pl.DataFrame() for table in RECORDED_TIME_COLUMNS}
    if snapshot:
        with warehouse.connect() as conn:
            for table, columns in RECORDED_TIME_COLUMNS.items():
                if table_exists(conn, table):
                    newest[table] = read_frame(
                        conn, f"SELECT {', '.join(f'max({column}) AS {column}' for column in columns)} FROM {table}"
                    )
    return as_of_of(
        newest[RAW_GIT_COMMITS.name],
        newest[RAW_GITHUB_THREADS.name],
        newest[RAW_GITHUB_COMMENTS.name],
        snapshot=snapshot,
        now=now,
    )
