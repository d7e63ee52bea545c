"""Kaplan-Meier time to inclusion and the lags per framework, on hand-computed examples."""

from math import exp, log, sqrt

import polars as pl
import pytest

from assets.metrics.time_to_inclusion import (
    LAG_SCHEMA,
    SURVIVAL_SCHEMA,
    follow_up,
    inclusion_lags,
    kaplan_meier,
    time_to_inclusion,
)
from tests.metrics_fixtures import FRAMEWORKS, inclusions, observed, papers, screening, t


def test_kaplan_meier_matches_a_hand_computed_curve():
    subjects = pl.DataFrame(
        {"group": ["g"] * 6, "day": [2.0, 3.0, 5.0, 5.0, 8.0, 10.0], "event": [True, False, True, True, False, True]}
    )
    table = kaplan_meier(subjects, "group")
    assert table.select("day", "at_risk", "events", "censored").rows() == [
        (2.0, 6, 1, 0),
        (3.0, 5, 0, 1),
        (5.0, 4, 2, 0),
        (8.0, 2, 0, 1),
        (10.0, 1, 1, 0),
    ]
    # S(2) = 5/6; S(5) = 5/6 * (1 - 2/4) = 5/12; S(10) = 5/12 * (1 - 1/1) = 0.
    assert table["survival"].to_list() == pytest.approx([5 / 6, 5 / 6, 5 / 12, 5 / 12, 0.0])
    # Day 2: Greenwood sum 1/(6*5) = 1/30; se of log(-log S) = sqrt(1/30) / |ln 5/6| = 1.001383;
    # z se = 1.959964 * 1.001383 = 1.962680, exp of it 7.11769: (5/6)^7.11769 = 0.27312,
    # (5/6)^(1/7.11769) = 0.97471.
    z = 1.959963984540054
    spread = z * sqrt(1 / 30) / abs(log(5 / 6))
    assert table["lower"][0] == pytest.approx((5 / 6) ** exp(spread)) == pytest.approx(0.27312, abs=1e-5)
    assert table["upper"][0] == pytest.approx((5 / 6) ** exp(-spread)) == pytest.approx(0.97471, abs=1e-5)
    # Day 5: sum 1/30 + 2/(4*2) = 0.28333.
    spread = z * sqrt(1 / 30 + 2 / 8) / abs(log(5 / 12))
    assert table["lower"][2] == pytest.approx((5 / 12) ** exp(spread))
    assert table["upper"][2] == pytest.approx((5 / 12) ** exp(-spread))
    # S = 0: the band collapses onto it.
    assert (table["lower"][4], table["upper"][4]) == (0.0, 0.0)


PAPERS = papers(
    [
        ("2501.00001", "2025-01-11"),  # included in a 10 days before v1: an event at day 0
        ("2501.00002", "2025-01-01"),  # included in b after 20 days
        ("2503.00003", "2025-03-01"),  # included in a on 2025-11-01, after b's observation ends
        ("2509.00004", "2025-09-01"),  # never included: censored
        ("2511.00005", "2025-11-01"),  # posted after the horizon: no follow-up
    ]
)
SCREENING = screening(PAPERS)
INCLUSIONS = inclusions(
    [("2501.00001", "a", "2025-01-01"), ("2501.00002", "b", "2025-01-21"), ("2503.00003", "a", "2025-11-01")], PAPERS
)
AS_OF = t("2025-12-31")
# b is observed only to 2025-10-01: follow-up of every method ends there.
OBSERVED = observed({"a": "2025-12-31", "b": "2025-10-01"})


def test_follow_up_ends_at_the_earliest_observation_end():
    subjects = follow_up(PAPERS, SCREENING, INCLUSIONS, OBSERVED, AS_OF, FRAMEWORKS)
    assert subjects.sort("arxiv_id").select("arxiv_id", "day", "event").rows() == [
        ("2501.00001", 0.0, True),  # negative lag -> day 0
        ("2501.00002", 20.0, True),
        ("2503.00003", 214.0, False),  # 2025-03-01 .. 2025-10-01; its later inclusion is censored
        ("2509.00004", 30.0, False),  # 2025-09-01 .. 2025-10-01
    ]  # 2511.00005 was posted after 2025-10-01: left out


def test_time_to_inclusion_per_cohort_and_pooled():
    table = time_to_inclusion(PAPERS, SCREENING, INCLUSIONS, OBSERVED, AS_OF, FRAMEWORKS)
    assert table.schema == pl.Schema(SURVIVAL_SCHEMA)
    rows = {cohort: group.select("day", "at_risk", "events", "censored", "survival").rows()
            for (cohort,), group in table.group_by("cohort", maintain_order=True)}  # fmt: skip
    # Q1: 3 methods; day 0: 1 of 3 -> 2/3; day 20: 1 of 2 -> 1/3; day 214 censored.
    assert rows["2025-Q1"] == [(0.0, 3, 1, 0, pytest.approx(2 / 3)), (20.0, 2, 1, 0, pytest.approx(1 / 3)), (214.0, 1, 0, 1, pytest.approx(1 / 3))]
    assert rows["2025-Q3"] == [(30.0, 1, 0, 1, 1.0)]
    assert "2025-Q4" not in rows  # its only method has no follow-up
    # Pooled: 4 methods; 3/4 after day 0, 3/4 * 2/3 = 1/2 after day 20.
    assert rows["pooled"] == [
        (0.0, 4, 1, 0, pytest.approx(3 / 4)),
        (20.0, 3, 1, 0, pytest.approx(1 / 2)),
        (30.0, 2, 0, 1, pytest.approx(1 / 2)),
        (214.0, 1, 0, 1, pytest.approx(1 / 2)),
    ]
    assert list(rows) == ["2025-Q1", "2025-Q3", "pooled"]


def test_inclusion_lags_per_framework_and_any():
    table = inclusion_lags(PAPERS, SCREENING, INCLUSIONS, AS_OF, FRAMEWORKS)
    assert table.schema == pl.Schema(LAG_SCHEMA)
    rows = {row["framework"]: row for row in table.iter_rows(named=True)}
    # a: -10 and 245 (2025-03-01 .. 2025-11-01) days; median (-10 + 245) / 2 = 117.5.
    assert (rows["a"]["included"], rows["a"]["before_v1"], rows["a"]["within_180d"]) == (2, 1, 1)
    assert rows["a"]["median_days"] == pytest.approx(117.5)
    # any: first inclusions -10, 20, 245 -> median 20.
    assert (rows["any"]["included"], rows["any"]["median_days"], rows["any"]["min_days"]) == (3, 20.0, -10.0)
    assert rows["b"]["included"] == 1
