"""metrics.thread_coverage, metrics.failure_reports and metrics.first_inclusions on
hand-computed fixtures."""

import polars as pl
import pytest

from assets.links.evidence import UTC_TIME
from assets.metrics.failure_reports import (
    FAILURE_COVERAGE_SCHEMA,
    failure_report_coverage,
    implementation_failure_reports,
)
from assets.metrics.first_inclusions import FIRST_INCLUSION_SCHEMA, first_inclusions
from assets.metrics.thread_coverage import THREAD_COVERAGE_SCHEMA, thread_coverage
from tests.metrics_fixtures import FRAMEWORKS, inclusions, observed, papers, screening, t
from orchestration.tables import CORE_PROPOSALS, CORE_TRAINING_FAILURES, RAW_GITHUB_COMMENTS


def _frame(rows: list[dict], schema: dict) -> pl.DataFrame:
    return pl.DataFrame([{column: row.get(column) for column in schema} for row in rows], schema=schema)


PAPERS = papers(
    [
        ("2501.00001", "2025-01-10"),  # included in a; proposed there first
        ("2502.00002", "2025-02-01"),  # never included; open proposal in a without a reply
        ("2503.00003", "2025-03-01"),  # never included; no thread anywhere
        ("2508.00004", "2025-08-01"),  # never included, no thread; posted after b's observation end
        ("2504.00005", "2025-04-01"),  # never included; proposal in b closed (turned away)
        ("2505.00006", "2025-05-01"),  # never included; pull request in a merged without inclusion
        ("2506.00007", "2025-06-01"),  # never included; open proposal in a with a maintainer's reply
    ]
)
SCREENING = screening(PAPERS)
INCLUSIONS = inclusions([("2501.00001", "a", "2025-03-01")], PAPERS)
AS_OF = t("2025-12-31")
OBSERVED = observed({"a": "2025-12-31", "b": "2025-06-30"})
EVIDENCE = pl.DataFrame(
    {
        "arxiv_id": ["2501.00001", "2502.00002", "2504.00005", "2505.00006", "2506.00007"],
        "framework": ["a", "a", "b", "a", "a"],
        "source_type": ["thread", "thread", "comment", "thread", "thread"],
        "occurred_at": [t("2025-02-01"), t("2025-10-01"), t("2025-04-11"), t("2025-05-10"), t("2025-07-01")],
    },
    schema_overrides={"occurred_at": UTC_TIME},
)
PROPOSALS = _frame(
    [
        dict(arxiv_id="2501.00001", framework="a", number=1, kind="issue", state="closed", author="u1",
             created_at=t("2025-02-01"), included_at=t("2025-03-01"), replies_by_others=0),
        dict(arxiv_id="2502.00002", framework="a", number=2, kind="issue", state="open", author="u2",
             created_at=t("2025-10-01"), replies_by_others=0),
        dict(arxiv_id="2504.00005", framework="b", number=3, kind="issue", state="closed", author="u3",
             created_at=t("2025-04-10"), replies_by_others=0, days_open=5.0),
        dict(arxiv_id="2505.00006", framework="a", number=4, kind="pull_request", state="merged", author="u4",
             created_at=t("2025-05-10"), replies_by_others=0, days_open=3.0),
        dict(arxiv_id="2506.00007", framework="a", number=5, kind="issue", state="open", author="alice",
             created_at=t("2025-07-01"), replies_by_others=1, first_reply_at=t("2025-07-03")),
    ],
    CORE_PROPOSALS.schema,
)  # fmt: skip
COMMENTS = _frame(
    [
        # The author's own comment is no reply; the maintainer's comes two days after the thread.
        dict(framework="a", comment_id=1, thread_number=5, author="alice", created_at=t("2025-07-02")),
        dict(framework="a", comment_id=2, thread_number=5, author="maint", author_association="MEMBER", created_at=t("2025-07-03")),
    ],
    RAW_GITHUB_COMMENTS.schema,
)


def _coverage() -> dict[tuple[str, str], dict]:
    table = thread_coverage(PAPERS, SCREENING, INCLUSIONS, EVIDENCE, PROPOSALS, COMMENTS, OBSERVED, AS_OF, FRAMEWORKS)
    assert table.schema == pl.Schema(THREAD_COVERAGE_SCHEMA)
    return {(row["framework"], row["measure"]): row for row in table.iter_rows(named=True)}


def test_never_included_methods_without_a_thread_count_only_where_the_framework_was_observed():
    rows = _coverage()
    # a: never included there: .00002 .00003 .00004 .00005 .00006 .00007 (6); no thread in
    # a: .00003, .00004, .00005 (its thread is in b) -> 3 / 6.
    assert (rows["a", "never_included_without_thread"]["count"], rows["a", "never_included_without_thread"]["total"]) == (3, 6)
    # b is observed to 2025-06-30: .00004 (posted 2025-08-01) does not count; .00001 is not
    # included in b: .00001 .00002 .00003 .00005 .00006 .00007 (6); only .00005 has a thread -> 5 / 6.
    assert (rows["b", "never_included_without_thread"]["count"], rows["b", "never_included_without_thread"]["total"]) == (5, 6)
    # any: posted by 2025-06-30 and included nowhere: .00002 .00003 .00005 .00006 .00007; only
    # .00003 has no thread anywhere -> 1 / 5.
    assert rows["any", "never_included_without_thread"]["share"] == pytest.approx(1 / 5)


def test_proposals_by_outcome_with_their_days():
    rows = _coverage()
    # a has 4 proposals: included 28 days after the thread (02-01 -> 03-01), open without a
    # reply for 91 days (10-01 -> 12-31), merged without inclusion after 3 days, open with a
    # reply for 183 days (07-01 -> 12-31).
    expected_a = {"included_later": (1, 28.0), "open_without_reply": (1, 91.0), "merged_without_inclusion": (1, 3.0),
                  "open_with_reply": (1, 183.0), "turned_away": (0, None)}  # fmt: skip
    for outcome, (count, days) in expected_a.items():
        row = rows["a", f"proposals_{outcome}"]
        assert (row["count"], row["total"], row["median_days"]) == (count, 4, days), outcome
    assert (rows["b", "proposals_turned_away"]["count"], rows["b", "proposals_turned_away"]["median_days"]) == (1, 5.0)
    assert (rows["any", "proposals_included_later"]["count"], rows["any", "proposals_included_later"]["total"]) == (1, 5)


def test_replies_maintainer_replies_and_proposals_before_inclusion():
    rows = _coverage()
    assert (rows["any", "proposals_with_reply"]["count"], rows["any", "proposals_with_reply"]["median_days"]) == (1, 2.0)
    # Only thread 5 has replies with an association: 1 of 1, after 2 days; b knows none.
    maintainer = rows["a", "proposals_with_maintainer_reply"]
    assert (maintainer["count"], maintainer["total"], maintainer["median_days"]) == (1, 1, 2.0)
    assert (rows["b", "proposals_with_maintainer_reply"]["total"], rows["b", "proposals_with_maintainer_reply"]["share"]) == (0, None)
    after = rows["any", "inclusions_after_proposal"]
    assert (after["count"], after["total"], after["median_days"]) == (1, 1, 28.0)


FAILURE_INCLUSIONS = inclusions(
    [("2501.00001", "a", "2025-03-01"), ("2502.00002", "a", "2025-03-02"), ("2501.00001", "b", "2025-04-01")], PAPERS
)
FAILURES = _frame(
    [
        # Issue a#10 concerns both implementations in a; a#11 and b#12 concern none known;
        # b#13 is opened after the as-of date.
        dict(framework="a", number=10, created_at=t("2025-05-01"), arxiv_id="2501.00001", linked_by="named", failure_kinds=["nan_or_inf"]),
        dict(framework="a", number=10, created_at=t("2025-05-01"), arxiv_id="2502.00002", linked_by="identifier", failure_kinds=["nan_or_inf"]),
        dict(framework="a", number=11, created_at=t("2025-05-02")),
        dict(framework="b", number=12, created_at=t("2025-05-03")),
        dict(framework="b", number=13, created_at=t("2026-02-01"), arxiv_id="2501.00001", linked_by="named"),
    ],
    CORE_TRAINING_FAILURES.schema,
)  # fmt: skip


def test_failure_reports_per_implementation():
    rows = implementation_failure_reports(FAILURE_INCLUSIONS, FAILURES, AS_OF, FRAMEWORKS)
    assert rows.select("framework", "arxiv_id", "number", "linked_by").rows() == [
        ("a", "2501.00001", 10, "named"),
        ("a", "2502.00002", 10, "identifier"),
        ("b", "2501.00001", None, None),  # b#13 is after the as-of date
    ]


def test_share_of_implementations_without_a_failure_report():
    table = failure_report_coverage(FAILURE_INCLUSIONS, FAILURES, AS_OF, FRAMEWORKS)
    assert table.schema == pl.Schema(FAILURE_COVERAGE_SCHEMA)
    assert table.rows() == [
        # any: 3 implementations, 2 reported (one issue), share 1/3; unlinked a#11, b#12.
        ("any", 3, 2, pytest.approx(1 / 3), 1, 2),
        ("a", 2, 2, 0.0, 1, 1),
        ("b", 1, 0, 1.0, 0, 1),
    ]


def test_first_inclusions_rank_ties_together_and_count_days_after_the_first():
    rows = inclusions(
        [
            ("2501.00001", "b", "2025-01-10T08:00"),
            ("2501.00001", "a", "2025-01-10T08:00"),  # same instant as b: both rank 1
            ("2501.00001", "c", "2025-01-20T08:00"),
            ("2501.00001", "d", "2025-01-21T08:00"),  # d is not configured
            ("2502.00002", "c", "2026-01-05"),  # after the as-of date
        ],
        PAPERS,
    )
    table = first_inclusions(rows, AS_OF, ["a", "b", "c"])
    assert table.schema == pl.Schema(FIRST_INCLUSION_SCHEMA)
    assert table.select("arxiv_id", "framework", "rank", "frameworks", "lag_days", "days_after_first").rows() == [
        # v1 2025-01-10T00:00: lag 8 h = 0.33 days.
        ("2501.00001", "a", 1, 3, 0.33, 0.0),
        ("2501.00001", "b", 1, 3, 0.33, 0.0),
        ("2501.00001", "c", 3, 3, 10.33, 10.0),
    ]
