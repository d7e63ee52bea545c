"""metrics.cohort_inclusion and the cohort windows, on a hand-computed fixture."""

from datetime import date, datetime

import polars as pl
import pytest

from assets.metrics.cohort_inclusion import COHORT_INCLUSION_SCHEMA, cohort_inclusion
from assets.metrics.windows import cohort_windows, cohorts_through, provisional_until, utc_as_of
from tests.metrics_fixtures import FRAMEWORKS, inclusions, observed, papers, screening, t

AS_OF = t("2025-11-15")

PAPERS = papers(
    [
        ("2501.00001", "2025-01-10"),  # included in a 5 days BEFORE v1, in b 234 days after
        ("2502.00002", "2025-02-01"),  # included in b 120 days after v1
        ("2503.00003", "2025-03-01"),  # never included
        ("2503.00004", "2025-03-15"),  # not a general method, included in a
        ("2505.00005", "2025-05-01"),  # included in a only after the as-of date
        ("2508.00006", "2025-08-01"),  # Q3: the cohort's only method, never included
        # Q4: no paper at all
    ]
)
SCREENING = screening(PAPERS, is_general_rl_method={"2503.00004": False})
INCLUSIONS = inclusions(
    [
        ("2501.00001", "a", "2025-01-05"),
        ("2501.00001", "b", "2025-09-01"),
        ("2502.00002", "b", "2025-06-01"),
        ("2503.00004", "a", "2025-04-01"),
        ("2505.00005", "a", "2025-12-01"),
    ],
    PAPERS,
)
# a is observed past Q1's window end (2025-04-01 + 180 days = 2025-09-28); b stops
# eight days short of it: Q1 is closed in a, provisional in b and so in `any`.
OBSERVED = observed({"a": "2025-11-10", "b": "2025-09-20"})


def _table() -> pl.DataFrame:
    return cohort_inclusion(PAPERS, SCREENING, INCLUSIONS, OBSERVED, AS_OF, FRAMEWORKS)


def _row(table: pl.DataFrame, cohort: str, framework: str) -> dict:
    return table.filter((pl.col("cohort") == cohort) & (pl.col("framework") == framework)).row(0, named=True)


def test_one_row_per_cohort_and_framework_with_the_contract_schema():
    table = _table()
    assert table.schema == pl.Schema(COHORT_INCLUSION_SCHEMA)
    # 2025-Q1 .. 2025-Q4 (the as-of quarter) x (any, a, b).
    assert table.select("cohort", "framework").rows() == [
        (cohort, framework) for cohort in ["2025-Q1", "2025-Q2", "2025-Q3", "2025-Q4"] for framework in ["any", "a", "b"]
    ]
    assert table["as_of"].unique().to_list() == [AS_OF]


def test_any_counts_the_earliest_inclusion_and_a_negative_lag_is_within_180_days():
    row = _row(_table(), "2025-Q1", "any")
    # 4 screened papers, 3 general methods (2503.00004 is not one); 2501.00001 (lag -5)
    # and 2502.00002 (lag 120) included, both within 180 days: 2 / 3.
    assert (row["papers"], row["general_methods"], row["included"], row["included_within_180d"]) == (4, 3, 2, 2)
    assert row["share_within_180d"] == pytest.approx(2 / 3)


def test_per_framework_counts_use_that_frameworks_inclusion():
    table = _table()
    a, b = _row(table, "2025-Q1", "a"), _row(table, "2025-Q1", "b")
    # a: 2501.00001 at -5 days (the non-general 2503.00004 does not count): 1 of 1 within.
    assert (a["included"], a["included_within_180d"]) == (1, 1)
    # b: 2501.00001 at 234 days (late) and 2502.00002 at 120 days: 2 included, 1 within.
    assert (b["included"], b["included_within_180d"]) == (2, 1)
    assert b["share_within_180d"] == pytest.approx(1 / 3)


def test_a_framework_observed_only_part_of_the_window_keeps_the_cohort_provisional():
    table = _table()
    assert _row(table, "2025-Q1", "a")["window_closed"] is True
    assert _row(table, "2025-Q1", "b")["window_closed"] is False  # b observed to 09-20 < 09-28
    assert _row(table, "2025-Q1", "any")["window_closed"] is False
    # 2025-03-31 + 180 days
    assert _row(table, "2025-Q1", "any")["provisional_until"] == date(2025, 9, 27)


def test_a_provisional_window_ignores_inclusions_after_the_as_of_date():
    row = _row(_table(), "2025-Q2", "any")
    # 2505.00005 is included on 2025-12-01, after the as-of date 2025-11-15.
    assert (row["general_methods"], row["included"], row["window_closed"]) == (1, 0, False)
    assert row["provisional_until"] == date(2025, 12, 27)  # 2025-06-30 + 180 days


def test_a_cohort_with_no_included_paper_has_a_zero_share():
    row = _row(_table(), "2025-Q3", "any")
    assert (row["general_methods"], row["included"], row["share_within_180d"]) == (1, 0, 0.0)


def test_an_empty_cohort_is_a_row_of_zeros_with_a_null_share():
    row = _row(_table(), "2025-Q4", "b")
    assert (row["papers"], row["general_methods"], row["included"], row["included_within_180d"]) == (0, 0, 0, 0)
    assert row["share_within_180d"] is None


def test_a_window_closes_only_when_the_as_of_date_reaches_its_end():
    windows = cohort_windows(["2025-Q1"], observed({"a": "2026-01-01"}), t("2025-09-27T23:59"), ["a"])
    assert windows["window_closed"].to_list() == [False, False]
    windows = cohort_windows(["2025-Q1"], observed({"a": "2026-01-01"}), t("2025-09-28"), ["a"])
    assert windows["window_closed"].to_list() == [True, True]


def test_a_framework_never_observed_closes_no_window():
    windows = cohort_windows(["2025-Q1"], observed({"a": "2026-01-01"}), t("2026-06-01"), ["a", "b"])
    assert dict(windows.select("framework", "window_closed").rows()) == {"any": False, "a": True, "b": False}


def test_cohorts_run_from_2025_q1_to_the_as_of_quarter():
    assert cohorts_through(t("2026-02-01")) == ["2025-Q1", "2025-Q2", "2025-Q3", "2025-Q4", "2026-Q1"]
    assert provisional_until("2025-Q4") == date(2026, 6, 29)  # 2025-12-31 + 180 days


def test_a_naive_as_of_date_is_refused():
    with pytest.raises(ValueError, match="no time zone"):
        utc_as_of(datetime(2025, 1, 1))
