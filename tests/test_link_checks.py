"""The links audits, each on a frame with one kind of defect."""

from datetime import UTC, datetime

import polars as pl
import pytest

from assets.links.audits import early_inclusions, inclusion_date_problems, links_column_problems, unknown_papers
from tests.link_fixtures import DAPO, GSPO, at, commits, papers
from orchestration.tables import CORE_EVIDENCE, CORE_INCLUSIONS


def evidence_row(**overrides) -> dict:
    row = {
        "arxiv_id": DAPO,
        "framework": "verl",
        "source_type": "commit",
        "source_ref": "abc",
        "comment_id": None,
        "url": "https://github.com/volcengine/verl/commit/abc",
        "occurred_at": at("2025-04-01"),
        "path": "recipe/dapo/main.py",
        "matched_by": "alias",
        "matched_text": "dapo",
        "in_code": True,
        "evidence_class": "implementation",
        "rule": "code_identifier",
    }
    return {**row, **overrides}


def inclusion_row(**overrides) -> dict:
    row = {
        "arxiv_id": DAPO,
        "framework": "verl",
        "included_at": at("2025-04-01"),
        "commit_sha": "abc",
        "commit_url": "https://github.com/volcengine/verl/commit/abc",
        "path": "recipe/dapo/main.py",
        "lag_days": 14.0,
        "matched_by": "alias",
        "rule": "code_identifier",
        "source": "rules",
        "reason": None,
    }
    return {**row, **overrides}


def test_column_suites_pass_good_rows_and_name_each_defect():
    evidence = pl.DataFrame(
        [
            evidence_row(),
            evidence_row(arxiv_id="2503.1447"),  # malformed id
            evidence_row(framework="megatron"),  # not a configured framework
            evidence_row(evidence_class="maybe"),  # class outside the allowed set
            evidence_row(rule="gut_feeling"),
            evidence_row(url="github.com/no-scheme"),
        ],
        schema=CORE_EVIDENCE.schema,
    )
    inclusions = pl.DataFrame(
        [inclusion_row(), inclusion_row(), inclusion_row(arxiv_id=GSPO, commit_url="not a url")], schema=CORE_INCLUSIONS.schema
    )
    assert links_column_problems("evidence", evidence.head(1)) == []
    evidence_problems = " ".join(links_column_problems("evidence", evidence))
    for expected in ("arxiv_id", "framework", "evidence_class", "rule", "url"):
        assert expected in evidence_problems
    inclusion_problems = " ".join(links_column_problems("inclusions", inclusions))
    assert "compound_columns_to_be_unique" in inclusion_problems and "commit_url" in inclusion_problems


def test_links_to_papers_that_do_not_exist():
    frame = pl.DataFrame([evidence_row(), evidence_row(arxiv_id="2599.99999")], schema=CORE_EVIDENCE.schema)
    assert unknown_papers(frame.head(1), papers()) == []
    assert "2599.99999" in unknown_papers(frame, papers())[0]


@pytest.mark.parametrize(
    "included_at, ok",
    [("2025-04-01", True), ("2025-01-01", False), ("2025-09-01", False), ("2027-01-01", False)],
)
def test_inclusion_dates_within_the_framework_history_and_not_after_as_of(included_at, ok):
    history = commits(("verl", "a", "2025-02-01", "first"), ("verl", "b", "2025-08-01", "last"))
    frame = pl.DataFrame([inclusion_row(included_at=at(included_at))], schema=CORE_INCLUSIONS.schema)
    problems = inclusion_date_problems(frame, history, datetime(2026, 6, 1, tzinfo=UTC))
    assert (problems == []) is ok


def test_an_inclusion_in_a_framework_without_history_is_wrong():
    frame = pl.DataFrame([inclusion_row(framework="trl")], schema=CORE_INCLUSIONS.schema)
    assert inclusion_date_problems(frame, commits(("verl", "a", "2025-02-01", "x")), datetime(2026, 1, 1, tzinfo=UTC))


def test_inclusions_long_before_the_paper_are_flagged_for_review():
    frame = pl.DataFrame(
        [inclusion_row(lag_days=-5.0), inclusion_row(arxiv_id=GSPO, lag_days=-120.0)], schema=CORE_INCLUSIONS.schema
    )
    assert early_inclusions(frame)["arxiv_id"].to_list() == [GSPO]
