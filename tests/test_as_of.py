"""The as-of date: the end of the recorded data in snapshot mode, the run's date live."""

from datetime import UTC, datetime, timedelta, timezone

import polars as pl

from orchestration.as_of import as_of_of, run_date
from tests.link_fixtures import at, comments, commits, no_comments, no_threads, threads

NOW = datetime(2026, 3, 5, 14, 30, tzinfo=UTC)
COMMITS = commits(("verl", "c1", "2025-04-03", "feat"), ("trl", "t1", "2025-05-01", "feat"))


def test_live_it_is_the_midnight_that_ends_the_last_complete_utc_day():
    assert run_date(NOW) == datetime(2026, 3, 5, tzinfo=UTC)
    # 01:00 at UTC+3 on the 6th is 22:00 UTC on the 5th: still the 5th's run.
    assert run_date(datetime(2026, 3, 6, 1, 0, tzinfo=timezone(timedelta(hours=3)))) == datetime(2026, 3, 5, tzinfo=UTC)
    assert as_of_of(COMMITS, no_threads(), no_comments(), snapshot=False, now=NOW) == datetime(2026, 3, 5, tzinfo=UTC)


def test_in_a_snapshot_it_is_the_newest_recorded_time_whatever_the_clock():
    assert as_of_of(COMMITS, no_threads(), no_comments(), snapshot=True, now=NOW) == at("2025-05-01")
    later_thread = threads({"number": 1, "created_at": at("2025-05-02"), "closed_at": at("2025-06-10")})
    later_comment = comments({"thread_number": 1, "created_at": at("2025-07-01")})
    assert as_of_of(COMMITS, later_thread, no_comments(), snapshot=True, now=NOW) == at("2025-06-10")
    a_year_later = NOW + timedelta(days=400)
    assert as_of_of(COMMITS, later_thread, later_comment, snapshot=True, now=a_year_later) == at("2025-07-01")


def test_it_reads_only_the_time_columns_it_is_given():
    # The warehouse reader passes one row of maxima per table; DuckDB's zone is Etc/UTC.
    newest = pl.DataFrame({"committed_at": [at("2025-05-01")]}).cast({"committed_at": pl.Datetime("us", "Etc/UTC")})
    as_of = as_of_of(newest, pl.DataFrame(), pl.DataFrame(), snapshot=True, now=NOW)
    assert as_of == at("2025-05-01") and as_of.tzinfo == UTC


def test_a_snapshot_with_nothing_recorded_falls_back_to_the_run_date():
    empty = commits()
    assert as_of_of(empty, no_threads(), no_comments(), snapshot=True, now=NOW) == datetime(2026, 3, 5, tzinfo=UTC)
