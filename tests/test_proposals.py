"""proposals: threads naming a paper before its inclusion, and how they were answered."""

from datetime import UTC, datetime, timedelta

import polars as pl
import pytest

from assets.links.evidence import evidence_of
from assets.links.proposals import proposals_of
from tests.link_fixtures import DAPO, DR_GRPO, GSPO, aliases, at, comments, commits, files, papers, threads
from orchestration.tables import CORE_INCLUSIONS, CORE_PROPOSALS

AS_OF = datetime(2025, 6, 1, tzinfo=UTC)

THREADS = threads(
    # Proposes Dr. GRPO before its inclusion; answered by a maintainer two days later.
    {"number": 742, "title": "[Feature Request] Support Dr. GRPO", "created_at": at("2025-03-25"), "state": "closed",
     "closed_at": at("2025-04-25")},
    # Names GSPO, never included: open, answered only by its own author.
    {"number": 900, "title": "GSPO?", "created_at": at("2025-05-01"), "kind": "pull_request"},
    # Opened after DAPO's inclusion: a question about it, not a proposal.
    {"number": 950, "title": "DAPO loss is wrong", "created_at": at("2025-05-10")},
    # Names nothing.
    {"number": 951, "title": "docs typo", "created_at": at("2025-05-10")},
    # A merged pull request naming DAPO in a comment only, before the inclusion.
    {"number": 700, "title": "new loss", "created_at": at("2025-03-01"), "state": "merged", "kind": "pull_request",
     "merged_at": at("2025-03-30")},
)
COMMENTS = comments(
    {"thread_number": 742, "author": "maintainer", "author_association": "MEMBER", "created_at": at("2025-03-27")},
    {"thread_number": 742, "author": "alice", "author_association": "NONE", "created_at": at("2025-03-26")},
    {"thread_number": 900, "author": "alice", "created_at": at("2025-05-02")},
    {"thread_number": 700, "author": "carol", "author_association": "CONTRIBUTOR", "created_at": at("2025-03-02"),
     "body": "this is the DAPO decoupled clip"},
)
INCLUSIONS = pl.DataFrame(
    {
        "arxiv_id": [DAPO, DR_GRPO],
        "framework": ["verl", "verl"],
        "included_at": [at("2025-04-03"), at("2025-04-20")],
    },
    schema={"arxiv_id": pl.Utf8, "framework": pl.Utf8, "included_at": pl.Datetime("us", "UTC")},
).with_columns(*[pl.lit(None, dtype).alias(name) for name, dtype in CORE_INCLUSIONS.schema.items() if name not in {"arxiv_id", "framework", "included_at"}])


@pytest.fixture(scope="module")
def found() -> pl.DataFrame:
    evidence = evidence_of(commits(), files(), THREADS, COMMENTS, papers(), aliases())
    return proposals_of(evidence, THREADS, COMMENTS, INCLUSIONS, AS_OF)


def test_threads_opened_before_inclusion_or_never_included(found):
    assert found.schema == pl.Schema(CORE_PROPOSALS.schema)
    assert sorted(found.select("number", "arxiv_id").rows()) == [(700, DAPO), (742, DR_GRPO), (900, GSPO)]


def test_replies_by_others_time_to_first_reply_and_maintainer(found):
    dr = found.filter(pl.col("number") == 742).row(0, named=True)
    assert dr["replies_by_others"] == 1 and not dr["without_reply"]
    assert dr["first_reply_at"] == at("2025-03-27") and dr["days_to_first_reply"] == pytest.approx(2.0)
    assert dr["maintainer_replied"] is True
    assert dr["days_open"] == pytest.approx(31.0) and dr["merged"] is False
    assert dr["included_at"] == at("2025-04-20") and dr["named_in"] == "thread"


def test_the_authors_own_comments_are_no_reply(found):
    gspo = found.filter(pl.col("number") == 900).row(0, named=True)
    assert gspo["replies_by_others"] == 0 and gspo["without_reply"]
    assert gspo["first_reply_at"] is None and gspo["maintainer_replied"] is None
    assert gspo["included_at"] is None
    assert gspo["days_open"] == pytest.approx(31.0)  # open: until the as-of date


def test_named_in_a_comment_merged_and_a_non_maintainer_reply(found):
    pr = found.filter(pl.col("number") == 700).row(0, named=True)
    assert pr["named_in"] == "comment" and pr["merged"] is True and pr["kind"] == "pull_request"
    assert pr["maintainer_replied"] is False and pr["days_open"] == pytest.approx(29.0)


def test_threads_citing_the_frameworks_own_system_paper_propose_nothing():
    # GSPO named like the framework (its system paper): thread 900 in verl is no proposal.
    own = aliases(("2507.18071", "verl", False, False))
    evidence = evidence_of(commits(), files(), THREADS, COMMENTS, papers(), own)
    found = proposals_of(evidence, THREADS, COMMENTS, INCLUSIONS, AS_OF)
    assert sorted(found.select("number", "arxiv_id").rows()) == [(700, DAPO), (742, DR_GRPO)]


def test_days_open_is_measured_to_the_as_of_date_not_the_clock():
    evidence = evidence_of(commits(), files(), THREADS, COMMENTS, papers(), aliases())
    later = proposals_of(evidence, THREADS, COMMENTS, INCLUSIONS, AS_OF + timedelta(days=10))
    found = proposals_of(evidence, THREADS, COMMENTS, INCLUSIONS, AS_OF)
    assert found["as_of"].unique().to_list() == [AS_OF]
    by_number = dict(zip(found["number"], found["days_open"], strict=True))
    later_by_number = dict(zip(later["number"], later["days_open"], strict=True))
    assert later_by_number[900] == pytest.approx(by_number[900] + 10)  # open: grows with the as-of date
    assert later_by_number[742] == by_number[742]  # closed: fixed by its close time
    # The same as-of date gives the same table, whenever it is computed.
    assert proposals_of(evidence, THREADS, COMMENTS, INCLUSIONS, AS_OF).equals(found)
