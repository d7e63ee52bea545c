"""Proposals: threads citing or naming a paper, opened before the paper's inclusion in
that framework or with no inclusion at all (../shared/DESIGN.md, "Definitions"), with
how they were answered."""

from datetime import datetime

import polars as pl

from assets.links.evidence import MATCH_KINDS, UTC_TIME
from orchestration.tables import CORE_PROPOSALS

MAINTAINER_ASSOCIATIONS = ("OWNER", "MEMBER", "COLLABORATOR")



def _days(later: pl.Expr, earlier: pl.Expr) -> pl.Expr:
    return ((later - earlier).dt.total_seconds() / 86_400).round(2)


def thread_replies(threads: pl.DataFrame, comments: pl.DataFrame) -> pl.DataFrame:
    """Per thread: replies by others than its author, the first reply's time, and
    whether a maintainer replied (null where no reply has a known association)."""
    replies = comments.join(
        threads.select("framework", thread_number="number", _thread_author="author"),
        on=["framework", "thread_number"],
    ).filter(pl.col("author").is_null() | (pl.col("author") != pl.col("_thread_author")))
    return replies.group_by("framework", "thread_number").agg(
        replies_by_others=pl.len().cast(pl.Int64),
        first_reply_at=pl.col("created_at").min(),
        maintainer_replied=pl.when(pl.col("author_association").is_not_null().any())
        .then(pl.col("author_association").is_in(list(MAINTAINER_ASSOCIATIONS)).any()),
    )


def proposals_of(
    evidence: pl.DataFrame,
    threads: pl.DataFrame,
    comments: pl.DataFrame,
    inclusions: pl.DataFrame,
    as_of: datetime,
) -> pl.DataFrame:
    """One row per (paper, framework, thread) where the thread or a comment on it cites
    or names the paper and the thread was opened before the paper's inclusion in that
    framework (or the paper was never included there). An open thread's `days_open` is
    measured to `as_of` (`orchestration.as_of.as_of_of`), never to the wall clock."""
    strength = pl.col("matched_by").replace_strict({kind: rank for rank, kind in enumerate(MATCH_KINDS)}, default=9)
    named = (
        # A thread citing the framework's own system paper proposes nothing to it.
        evidence.filter(pl.col("source_type").is_in(["thread", "comment"]) & (pl.col("rule") != "own_system_paper"))
        .with_columns(number=pl.col("source_ref").cast(pl.Int64), _strength=strength)
        .sort("_strength", pl.col("source_type") != "thread")
        .group_by("arxiv_id", "framework", "number", maintain_order=True)
        .agg(pl.col("matched_by").first(), named_in=pl.col("source_type").first())
    )
    replies = thread_replies(threads, comments)
    as_of_utc = pl.lit(as_of, UTC_TIME)
    closed_at = pl.coalesce("closed_at", "merged_at")
    rows = (
        named.join(threads, on=["framework", "number"])
        .join(inclusions.select("arxiv_id", "framework", "included_at"), on=["arxiv_id", "framework"], how="left")
        .filter(
            pl.col("included_at").is_null()
            | (pl.col("created_at").is_not_null() & (pl.col("created_at") < pl.col("included_at")))
        )
        .join(replies, left_on=["framework", "number"], right_on=["framework", "thread_number"], how="left")
        .with_columns(replies_by_others=pl.col("replies_by_others").fill_null(0))
    )
    return (
        rows.select(
            "arxiv_id",
            "framework",
            "number",
            "kind",
            "state",
            "title",
            "author",
            url=pl.col("html_url"),
            created_at=pl.col("created_at"),
            matched_by=pl.col("matched_by"),
            named_in=pl.col("named_in"),
            included_at=pl.col("included_at"),
            replies_by_others=pl.col("replies_by_others"),
            without_reply=pl.col("replies_by_others") == 0,
            first_reply_at=pl.col("first_reply_at"),
            days_to_first_reply=_days(pl.col("first_reply_at"), pl.col("created_at")),
            maintainer_replied=pl.col("maintainer_replied"),
            merged=pl.col("state") == "merged",
            days_open=pl.when(pl.col("state") == "open")
            .then(_days(as_of_utc, pl.col("created_at")))
            .otherwise(_days(closed_at, pl.col("created_at"))),
            as_of=as_of_utc,
        )
        .cast(CORE_PROPOSALS.schema)
        .sort("framework", "arxiv_id", "number")
    )
