"""metrics.thread_coverage: do frameworks ever hear of the methods they do not include,
and what happens to the threads that propose one?

A tidy long table, one row per framework (each configured one, and `any`) x `measure`:

| column | meaning |
|---|---|
| `framework` | a framework slug, or `any` (all frameworks together) |
| `measure` | what is counted (below) |
| `count` | items with the property |
| `total` | the items it is a share of |
| `share` | `count / total`; null when `total` is 0 |
| `median_days`, `max_days` | the days the measure describes (below); null when none is known |

Measures (only general methods of the covered cohorts; only what happened by the as-of date):

- `never_included_without_thread`: total = general methods never included (in that
  framework / anywhere), count = those that no thread or comment there cites or names.
  A method counts as never included only where it could have been: posted before the
  framework's observation end (`any`: before every framework's). No days.
- `proposals_included_later`, `proposals_turned_away` (closed, not merged, no
  inclusion), `proposals_merged_without_inclusion` (a merged pull request that did not
  implement the method), `proposals_open_with_reply`, `proposals_open_without_reply`:
  the outcomes of the proposals (core.proposals rows: paper x framework x thread);
  total = proposals. Days: from the thread to the inclusion; how long the thread was
  open until closed (null where the close time is unknown); an open thread's age at the
  as-of date.
- `proposals_with_reply`: proposals someone other than the author answered; days to the
  first such reply.
- `proposals_with_maintainer_reply`: total = proposals whose replies carry an author
  association (GitHub's OWNER, MEMBER, COLLABORATOR mark maintainers; recorded threads
  carry none, so this is empty in snapshot mode), count = those a maintainer answered;
  days to the first maintainer reply.
- `inclusions_after_proposal`: total = inclusions (paper x framework) of general
  methods, count = those preceded by a proposal there; days from the first proposal to
  the inclusion.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import polars as pl

from assets.links.evidence import UTC_TIME
from assets.metrics.cohort_inclusion import general_methods, inclusions_as_of
from assets.metrics.windows import (
    ANY_FRAMEWORK,
    days_between,
    in_utc,
    observation_ends,
    utc_as_of,
    with_any_framework,
)
from assets.links.proposals import MAINTAINER_ASSOCIATIONS
from orchestration.tables import METRICS_THREAD_COVERAGE

THREAD_COVERAGE_SCHEMA = METRICS_THREAD_COVERAGE.schema

PROPOSAL_OUTCOMES = (
    "included_later",
    "turned_away",
    "merged_without_inclusion",
    "open_with_reply",
    "open_without_reply",
)
MEASURES = (
    "never_included_without_thread",
    *(f"proposals_{outcome}" for outcome in PROPOSAL_OUTCOMES),
    "proposals_with_reply",
    "proposals_with_maintainer_reply",
    "inclusions_after_proposal",
)


def _measure(rows: pl.DataFrame, name: str, counted: pl.Expr, days: pl.Expr | None = None) -> pl.DataFrame:
    """Per framework: how many rows are `counted`, of how many, and the median and
    maximum `days` of the counted rows."""
    days = pl.lit(None, pl.Float64) if days is None else days
    return rows.group_by("framework").agg(
        measure=pl.lit(name),
        count=counted.sum().cast(pl.Int64),
        total=pl.len().cast(pl.Int64),
        median_days=days.filter(counted).median().cast(pl.Float64),
        max_days=days.filter(counted).max().cast(pl.Float64),
    )


def maintainer_first_replies(proposals: pl.DataFrame, comments: pl.DataFrame) -> pl.DataFrame:
    """`framework`, `number`, `associations_known` (a reply by someone other than the
    thread's author carries an author association), `maintainer_reply_at` (the first
    reply by a maintainer; null if none)."""
    threads = proposals.select("framework", "number", thread_author="author").unique()
    replies = (
        in_utc(comments, "created_at")
        .join(threads, left_on=["framework", "thread_number"], right_on=["framework", "number"])
        .filter(pl.col("author").is_null() | (pl.col("author") != pl.col("thread_author")))
    )
    by_maintainer = pl.col("author_association").is_in(list(MAINTAINER_ASSOCIATIONS))
    return replies.group_by("framework", number="thread_number").agg(
        associations_known=pl.col("author_association").is_not_null().any(),
        maintainer_reply_at=pl.col("created_at").filter(by_maintainer).min(),
    )


def thread_coverage(
    papers: pl.DataFrame,
    screening: pl.DataFrame,
    inclusions: pl.DataFrame,
    evidence: pl.DataFrame,
    proposals: pl.DataFrame,
    comments: pl.DataFrame,
    observed: pl.DataFrame,
    as_of: datetime,
    frameworks: Sequence[str],
) -> pl.DataFrame:
    """metrics.thread_coverage (THREAD_COVERAGE_SCHEMA; see the module docstring).

    `comments`: raw.github_comments (framework, thread_number, author,
    author_association, created_at), for the maintainers' first replies."""
    as_of = utc_as_of(as_of)
    until = pl.lit(as_of, UTC_TIME)
    methods = general_methods(papers, screening, as_of).select("arxiv_id", "published_at")
    included = inclusions_as_of(inclusions, as_of, frameworks).join(methods, on="arxiv_id", how="semi")
    ends = observation_ends(observed, as_of, frameworks)

    # Methods never included where they could have been, and whether a thread names them.
    threaded = (
        in_utc(evidence, "occurred_at")
        .filter(
            pl.col("source_type").is_in(["thread", "comment"])
            & pl.col("framework").is_in(list(frameworks))
            & (pl.col("occurred_at") <= until)
        )
        .select("arxiv_id", "framework")
        .unique()
    )
    candidates = methods.join(ends, how="cross").filter(pl.col("published_at") <= pl.col("observed_until"))
    never_in_framework = candidates.join(included, on=["arxiv_id", "framework"], how="anti").select(
        "arxiv_id", "framework"
    )
    horizon = ends["observed_until"].min()
    never_anywhere = (
        # No framework observed: a null horizon keeps no method.
        methods.filter(pl.col("published_at") <= pl.lit(horizon, UTC_TIME))
        .join(included, on="arxiv_id", how="anti")
        .select("arxiv_id", framework=pl.lit(ANY_FRAMEWORK))
    )
    never = pl.concat([never_in_framework, never_anywhere]).join(
        with_any_framework(threaded).unique().with_columns(named=pl.lit(True)), on=["arxiv_id", "framework"], how="left"
    )
    measures = [_measure(never, "never_included_without_thread", pl.col("named").is_null())]

    # Proposals and their outcomes.
    rows = (
        in_utc(proposals, "created_at", "first_reply_at")
        .filter(pl.col("framework").is_in(list(frameworks)) & (pl.col("created_at") <= until))
        .join(methods, on="arxiv_id", how="semi")
        .drop("included_at")
        .join(included.select("arxiv_id", "framework", "included_at"), on=["arxiv_id", "framework"], how="left")
        .join(maintainer_first_replies(proposals, comments), on=["framework", "number"], how="left")
        .with_columns(
            outcome=pl.when(pl.col("included_at").is_not_null())
            .then(pl.lit("included_later"))
            .when(pl.col("state") == "open")
            .then(pl.when(pl.col("replies_by_others") > 0).then(pl.lit("open_with_reply")).otherwise(pl.lit("open_without_reply")))
            .when(pl.col("state") == "merged")
            .then(pl.lit("merged_without_inclusion"))
            .otherwise(pl.lit("turned_away")),
        )
        .with_columns(
            outcome_days=pl.when(pl.col("outcome") == "included_later")
            .then(days_between(pl.col("included_at"), pl.col("created_at")))
            .when(pl.col("state") == "open")
            .then(days_between(until, pl.col("created_at")))
            .otherwise(pl.col("days_open"))
        )
    )
    proposals_all = with_any_framework(rows)
    measures += [
        _measure(proposals_all, f"proposals_{outcome}", pl.col("outcome") == outcome, pl.col("outcome_days"))
        for outcome in PROPOSAL_OUTCOMES
    ]
    measures.append(
        _measure(proposals_all, "proposals_with_reply", pl.col("replies_by_others") > 0, days_between(pl.col("first_reply_at"), pl.col("created_at")))
    )
    known = proposals_all.filter(pl.col("associations_known").fill_null(False))
    measures.append(
        _measure(known, "proposals_with_maintainer_reply", pl.col("maintainer_reply_at").is_not_null(),
                 days_between(pl.col("maintainer_reply_at"), pl.col("created_at")))
    )  # fmt: skip

    # Inclusions that a proposal preceded.
    first_proposal = rows.group_by("arxiv_id", "framework").agg(proposed_at=pl.col("created_at").min())
    preceded = with_any_framework(included.join(first_proposal, on=["arxiv_id", "framework"], how="left"))
    measures.append(
        _measure(preceded, "inclusions_after_proposal", pl.col("proposed_at").is_not_null(),
                 days_between(pl.col("included_at"), pl.col("proposed_at")))
    )  # fmt: skip

    grid = pl.DataFrame({"framework": [ANY_FRAMEWORK, *frameworks]}).join(
        pl.DataFrame({"measure": list(MEASURES)}), how="cross"
    ).with_row_index("_order")
    return (
        grid.join(pl.concat(measures), on=["framework", "measure"], how="left")
        .with_columns(pl.col("count", "total").fill_null(0))
        .with_columns(share=pl.when(pl.col("total") > 0).then(pl.col("count") / pl.col("total")))
        .sort("_order")
        .select(list(THREAD_COVERAGE_SCHEMA))
        .cast(THREAD_COVERAGE_SCHEMA)
    )
