"""The table contract: every warehouse table's name, columns and types, in one place.

Clients build their rows to these schemas, assets write and read them, checks validate
them, the benches and tests compare against them, and the catalog shows them
(`dagster/column_schema`, from `table_schema`). A table's schema here is the one thing to
change when a column is added.
"""

from __future__ import annotations

from dataclasses import dataclass

import dagster as dg
import polars as pl

from orchestration.settings import ASSET_OWNERS

UTC_TIME = pl.Datetime("us", "UTC")


@dataclass(frozen=True)
class Table:
    """One warehouse table: `name` is `schema.table`; `schema` its polars columns in order."""

    name: str
    schema: dict[str, pl.DataType]
    description: str

    def empty(self) -> pl.DataFrame:
        return pl.DataFrame(schema=self.schema)


def table_schema(table: Table) -> dg.TableSchema:
    """The table's columns as the Dagster catalog shows them."""
    return dg.TableSchema(columns=[dg.TableColumn(name, str(dtype)) for name, dtype in table.schema.items()])


def catalog(table: Table, code_version: str = "1") -> dict[str, object]:
    """The arguments of an asset's definition that put its table in the catalog before any
    run: the table's name and columns, the owners, and the code version (raise it when the
    asset's logic changes what it writes)."""
    return {
        "metadata": {"dagster/table_name": table.name, "dagster/column_schema": table_schema(table)},
        "owners": ASSET_OWNERS,
        "code_version": code_version,
    }


# --- raw: the sources as received -------------------------------------------------------

RAW_ARXIV_ENTRIES = Table(
    "raw.arxiv_entries",
    {
        "arxiv_id": pl.Utf8,  # without version
        "version": pl.Int32,
        "title": pl.Utf8,
        "abstract": pl.Utf8,
        "authors": pl.List(pl.Utf8),
        "author_affiliations": pl.List(pl.Struct({"author": pl.Utf8, "affiliation": pl.Utf8})),
        "primary_category": pl.Utf8,
        "categories": pl.List(pl.Utf8),
        "comment": pl.Utf8,
        "journal_ref": pl.Utf8,
        "doi": pl.Utf8,
        "published_at": UTC_TIME,
        "updated_at": UTC_TIME,
        "abstract_url": pl.Utf8,
        "pdf_url": pl.Utf8,
        "day": pl.Date,  # UTC day of the first version: the partition
    },
    "One version of one arXiv entry as fetched.",
)

RAW_QUARANTINE = Table(
    "raw.quarantine",
    {
        "source": pl.Utf8,  # arxiv, github_threads, github_comments, git_commits
        "source_ref": pl.Utf8,  # arXiv: the request or file; frameworks: the record's key (repo#number, commit URL)
        "reason": pl.Utf8,
        "raw_text": pl.Utf8,
        "published_day": pl.Date,  # arXiv only
        "arxiv_id": pl.Utf8,  # arXiv only: without version; null when the entry's id cannot be read
        "partition_day": pl.Date,  # arXiv only
        "framework": pl.Utf8,  # frameworks' records only
    },
    "A record that could not be parsed (an arXiv entry, a GitHub item, a commit), with the reason and its raw text.",
)

RAW_GIT_COMMITS = Table(
    "raw.git_commits",
    {
        "framework": pl.Utf8(),
        "sha": pl.Utf8(),
        "parents": pl.List(pl.Utf8()),  # two or more for a merge; empty for a root commit
        "author": pl.Utf8(),  # author name as git records it
        "authored_at": UTC_TIME,
        "committed_at": UTC_TIME,  # the inclusion date
        "message": pl.Utf8(),  # subject, blank line, body
        "html_url": pl.Utf8(),
        "diff_incomplete": pl.Boolean(),  # some blobs were unavailable: files rows lack counts or text
    },
    "One commit of a framework's default branch.",
)

RAW_GIT_COMMIT_FILES = Table(
    "raw.git_commit_files",
    {
        "framework": pl.Utf8(),
        "sha": pl.Utf8(),
        "path": pl.Utf8(),  # the new path of a renamed file
        "additions": pl.Int64(),  # null for binary files
        "deletions": pl.Int64(),
        "added_text": pl.Utf8(),
        "added_text_truncated": pl.Boolean(),
        "added_tokens": pl.List(pl.Utf8()),  # empty for documentation files
    },
    "One file a commit changed against its first parent, with its added text and identifier tokens.",
)

RAW_GITHUB_THREADS = Table(
    "raw.github_threads",
    {
        "framework": pl.Utf8(),
        "number": pl.Int64(),
        "kind": pl.Utf8(),  # "issue" | "pull_request"
        "title": pl.Utf8(),
        "body": pl.Utf8(),  # null where only tokens are known (snapshot)
        "body_tokens": pl.List(pl.Utf8()),  # recorded tokens (snapshot); empty for live items
        "body_complete": pl.Boolean(),
        "state": pl.Utf8(),  # "open" | "closed" | "merged"
        "author": pl.Utf8(),
        "author_association": pl.Utf8(),
        "labels": pl.List(pl.Utf8()),
        "created_at": UTC_TIME,
        "updated_at": UTC_TIME,
        "closed_at": UTC_TIME,
        "merged_at": UTC_TIME,
        "comment_count": pl.Int64(),
        "html_url": pl.Utf8(),
    },
    "One issue or pull request of a framework.",
)

RAW_GITHUB_COMMENTS = Table(
    "raw.github_comments",
    {
        "framework": pl.Utf8(),
        "comment_id": pl.Int64(),  # GitHub's id; negative and synthesized for snapshot comments
        "thread_number": pl.Int64(),
        "kind": pl.Utf8(),  # "comment" | "review thread"
        "author": pl.Utf8(),
        "author_association": pl.Utf8(),
        "created_at": UTC_TIME,
        "updated_at": UTC_TIME,
        "body": pl.Utf8(),
        "body_tokens": pl.List(pl.Utf8()),
        "html_url": pl.Utf8(),
    },
    "One comment on an issue or pull request.",
)

RAW_FRAMEWORK_DOCS = Table(
    "raw.framework_docs",
    {
        "framework": pl.Utf8(),
        "path": pl.Utf8(),
        "blob_sha": pl.Utf8(),
        "fetched_at": UTC_TIME,
        "text": pl.Utf8(),
    },
    "One contribution document (rules, templates, governance, code owners) at the default branch's head.",
)

RAW_SOURCE_STATE = Table(
    "raw.source_state",
    {"framework": pl.Utf8, "source": pl.Utf8, "watermark": pl.Utf8, "updated_at": UTC_TIME},
    "The watermark of one framework's source (the last refreshed commit head).",
)

RAW_HTTP_CACHE = Table(
    "raw.http_cache",
    {"framework": pl.Utf8, "url": pl.Utf8, "etag": pl.Utf8},
    "The validator (ETag, or a snapshot file's fingerprint) of one conditional request.",
)

RAW_OPENALEX_WORKS = Table(
    "raw.openalex_works",
    {
        "arxiv_id": pl.Utf8,
        "status": pl.Int32,  # HTTP status: 200, or 404 when OpenAlex has no such work
        "fetched_at": UTC_TIME,
        "authorships": pl.Utf8,  # the `authorships` array as JSON text
    },
    "One cached OpenAlex answer (author affiliations) per arXiv id asked.",
)

RAW_REPORT_TEXTS = Table(
    "raw.report_texts",
    {
        "report_id": pl.Utf8,  # the technical report's arXiv id
        "passage": pl.Int32,  # order in the report: 0 the abstract, then the HTML paragraphs
        "section": pl.Utf8,  # "Abstract", or the HTML heading above the paragraph
        "text": pl.Utf8,
        "source": pl.Utf8,  # abstract (arXiv API) | html (arXiv's HTML rendering)
        "fetched_at": UTC_TIME,
        # Of the whole report: full_text | no_html (arXiv has no HTML rendering: abstract
        # only) | html_without_text (the HTML page held no paragraph: abstract only)
        "status": pl.Utf8,
    },
    "One passage of a technical report's text as fetched from arXiv, cached: a report is fetched once.",
)

# --- core: what the tracker derives ------------------------------------------------------

CORE_PAPERS = Table(
    "core.papers",
    {
        **{
            column: dtype
            for column, dtype in RAW_ARXIV_ENTRIES.schema.items()
            if column not in ("abstract_url", "pdf_url", "day")
        },
        "cohort": pl.Utf8,  # calendar quarter (UTC) of the first version, like 2025-Q1
        "abstract_url": pl.Utf8,
        "pdf_url": pl.Utf8,
    },
    "One arXiv paper: the latest version's metadata, `published_at` of its first version, its cohort.",
)

CORE_PAPER_ALIASES = Table(
    "core.paper_aliases",
    {
        "arxiv_id": pl.Utf8,
        "alias": pl.Utf8,
        "normalized": pl.Utf8,
        "source": pl.Utf8,
        "ambiguous": pl.Boolean,
        "case_sensitive": pl.Boolean,
    },
    "One name a paper's method goes by.",
)

CORE_PAPER_SCREENING = Table(
    "core.paper_screening",
    {
        "arxiv_id": pl.Utf8,
        "cohort": pl.Utf8,
        "is_general_rl_method": pl.Boolean,
        "screening_probability": pl.Float64,  # the learned model's (assets/papers/screening_model.py)
        "screening_terms": pl.List(pl.Utf8),  # the words and rules that weighed most in it, +for / -against
        "screening_score": pl.Int32,  # the rules' hand-set weights, summed
        "screening_reasons": pl.List(pl.Utf8),
        "policy_params_b": pl.Float64,
        "large_policy": pl.Boolean,
        "policy_size_cue": pl.Utf8,
        "loss_change_kind": pl.Utf8,  # coefficient | clip | mask | weight | new_objective | advantage | sampling | reward | other
        "loss_change_cue": pl.Utf8,  # the words that decided the kind
        "loss_change_reasons": pl.List(pl.Utf8),  # every cue found, as kind/field ("clip/title")
        "code_released": pl.Boolean,
        "code_url": pl.Utf8,
        "maintainer_company": pl.Utf8,
        "affiliation_source": pl.Utf8,
        "verdict_source": pl.Utf8,
        "overridden": pl.List(pl.Utf8),
        "override_reason": pl.Utf8,
    },
    "One paper's screening verdict and the features the study compares.",
)

CORE_EVIDENCE = Table(
    "core.evidence",
    {
        "arxiv_id": pl.Utf8(),
        "framework": pl.Utf8(),
        "source_type": pl.Utf8(),  # commit | thread | comment
        "source_ref": pl.Utf8(),  # commit sha, or the thread's number
        "comment_id": pl.Int64(),  # comments only
        "url": pl.Utf8(),
        "occurred_at": UTC_TIME,  # committer time of a commit; creation time of a thread or comment
        "path": pl.Utf8(),  # changed file of a commit; null for a message, thread or comment
        "matched_by": pl.Utf8(),  # arxiv_id | title | alias
        "matched_text": pl.Utf8(),  # what was found, as written (normalized)
        "in_code": pl.Boolean(),  # found among a code file's identifier tokens
        "evidence_class": pl.Utf8(),  # implementation | citation
        "rule": pl.Utf8(),  # the classification rule that decided
    },
    "One place (commit message, changed file, thread, comment) citing or naming a paper, classified.",
)

CORE_INCLUSIONS = Table(
    "core.inclusions",
    {
        "arxiv_id": pl.Utf8(),
        "framework": pl.Utf8(),
        "included_at": UTC_TIME,  # committer time of the including commit, UTC
        "commit_sha": pl.Utf8(),
        "commit_url": pl.Utf8(),
        "path": pl.Utf8(),  # the file of the deciding evidence; null for a commit message
        "lag_days": pl.Float64(),  # included_at minus the paper's v1, in days; negative allowed
        "matched_by": pl.Utf8(),  # arxiv_id | title | alias (null for an override without evidence)
        "rule": pl.Utf8(),
        "source": pl.Utf8(),  # rules | override
        "reason": pl.Utf8(),  # an override's reason
    },
    "The first implementing commit of one paper in one framework.",
)

CORE_PROPOSALS = Table(
    "core.proposals",
    {
        "arxiv_id": pl.Utf8(),
        "framework": pl.Utf8(),
        "number": pl.Int64(),
        "kind": pl.Utf8(),  # issue | pull_request
        "state": pl.Utf8(),  # open | closed | merged
        "title": pl.Utf8(),
        "author": pl.Utf8(),
        "url": pl.Utf8(),
        "created_at": UTC_TIME,
        "matched_by": pl.Utf8(),  # how the thread (or one of its comments) names the paper
        "named_in": pl.Utf8(),  # thread | comment
        "included_at": UTC_TIME,  # the paper's inclusion in this framework; null if none
        "replies_by_others": pl.Int64(),  # comments by anyone but the thread's author
        "without_reply": pl.Boolean(),
        "first_reply_at": UTC_TIME,
        "days_to_first_reply": pl.Float64(),
        # Null where no reply carries an author association (the recorded threads have none).
        "maintainer_replied": pl.Boolean(),
        "merged": pl.Boolean(),
        "days_open": pl.Float64(),  # until closed (or the as-of date while open); null where the close time is unknown
        "as_of": UTC_TIME,  # the run's as-of date (orchestration/as_of.py), what an open thread's age is measured to
    },
    "One thread citing or naming a paper before its inclusion in that framework.",
)

CORE_TRAINING_FAILURES = Table(
    "core.training_failures",
    {
        "framework": pl.Utf8(),
        "number": pl.Int64(),
        "title": pl.Utf8(),
        "state": pl.Utf8(),
        "author": pl.Utf8(),
        "url": pl.Utf8(),
        "created_at": UTC_TIME,
        "failure_kinds": pl.List(pl.Utf8()),
        "arxiv_id": pl.Utf8(),  # the implementation's paper; null where the issue names none
        "linked_by": pl.Utf8(),  # named (the paper's id, title or alias) | identifier (a config key, loss or file)
        "link_key": pl.Utf8(),  # what the issue said
        "commit_sha": pl.Utf8(),  # the paper's inclusion in this framework
        "included_at": UTC_TIME,
    },
    "One issue reporting a training failure, and the implementation it concerns where it names one.",
)

CORE_METHOD_SWITCHES = Table(
    "core.method_switches",
    {
        "arxiv_id": pl.Utf8(),
        "framework": pl.Utf8(),
        "key": pl.Utf8(),  # `algorithm.adv_estimator`, `loss_type`, `--use_kl_loss`, a dataclass field
        "value": pl.Utf8(),  # `grpo`, `dr_grpo`; null for a bare flag or an identifier of code
        "path": pl.Utf8(),  # the implementing commit's file it was read from
        "commit_sha": pl.Utf8(),  # the inclusion's commit
        "rank": pl.Int32(),  # 1: the value names the method, 2: the key, 3: only the file's path
    },
    "One configuration key or flag that turns a paper's method on in a framework, from the implementing commit.",
)


# --- metrics: the study's tables, as of a date --------------------------------------------

METRICS_COHORT_INCLUSION = Table(
    "metrics.cohort_inclusion",
    {
        "cohort": pl.Utf8(),  # 2025-Q2
        "framework": pl.Utf8(),  # a framework slug, or `any`
        "papers": pl.Int64(),
        "general_methods": pl.Int64(),
        "included": pl.Int64(),
        "included_within_180d": pl.Int64(),
        "share_within_180d": pl.Float64(),
        "window_closed": pl.Boolean(),
        "provisional_until": pl.Date(),
        "as_of": UTC_TIME,
    },
    "One cohort x framework (or `any`): general methods included, and within 180 days of v1.",
)

METRICS_INCLUDED_VS_PEERS = Table(
    "metrics.included_vs_peers",
    {
        "cohort": pl.Utf8(),  # 2025-Q2, or `pooled` (the closed cohorts)
        "feature": pl.Utf8(),  # large_policy | loss_tweak | code_released
        "maintainers_excluded": pl.Boolean(),
        "included_n": pl.Int64(),
        "included_with": pl.Int64(),
        "peers_n": pl.Int64(),
        "peers_with": pl.Int64(),
        "unknown_included": pl.Int64(),
        "unknown_peers": pl.Int64(),
        "unknown_affiliation_included": pl.Int64(),
        "unknown_affiliation_peers": pl.Int64(),
        "p_value": pl.Float64(),  # two-sided Fisher's exact test
    },
    "One cohort (or `pooled`) x feature x scope: included general methods against their peers.",
)

METRICS_THREAD_COVERAGE = Table(
    "metrics.thread_coverage",
    {
        "framework": pl.Utf8(),  # a framework slug, or `any`
        "measure": pl.Utf8(),
        "count": pl.Int64(),
        "total": pl.Int64(),
        "share": pl.Float64(),
        "median_days": pl.Float64(),
        "max_days": pl.Float64(),
    },
    "One framework (or `any`) x measure of threads: methods nobody proposed, proposals by outcome, replies.",
)

METRICS_FAILURE_REPORTS = Table(
    "metrics.failure_reports",
    {
        "arxiv_id": pl.Utf8(),
        "framework": pl.Utf8(),
        "included_at": UTC_TIME,
        "commit_sha": pl.Utf8(),
        "number": pl.Int64(),  # the failure issue; null: the implementation has none
        "title": pl.Utf8(),
        "url": pl.Utf8(),
        "state": pl.Utf8(),
        "created_at": UTC_TIME,
        "failure_kinds": pl.List(pl.Utf8()),
        "linked_by": pl.Utf8(),
    },
    "One included implementation x training-failure issue concerning it (null issue: none).",
)

METRICS_FAILURE_REPORT_COVERAGE = Table(
    "metrics.failure_report_coverage",
    {
        "framework": pl.Utf8(),  # a framework slug, or `any`
        "implementations": pl.Int64(),
        "with_failure_report": pl.Int64(),
        "share_without_report": pl.Float64(),
        "failure_reports": pl.Int64(),
        "unlinked_failure_reports": pl.Int64(),
    },
    "One framework (or `any`): the share of included implementations with no public failure report.",
)

METRICS_TIME_TO_INCLUSION = Table(
    "metrics.time_to_inclusion",
    {
        "cohort": pl.Utf8(),  # 2025-Q2, or `pooled`
        "day": pl.Float64(),
        "at_risk": pl.Int64(),
        "events": pl.Int64(),
        "censored": pl.Int64(),
        "survival": pl.Float64(),
        "lower": pl.Float64(),
        "upper": pl.Float64(),
    },
    "One cohort (or `pooled`) x day of the Kaplan-Meier estimate of days from v1 to first inclusion.",
)

METRICS_INCLUSION_LAGS = Table(
    "metrics.inclusion_lags",
    {
        "framework": pl.Utf8(),  # a framework, or `any` (each method's first inclusion)
        "included": pl.Int64(),
        "before_v1": pl.Int64(),
        "within_180d": pl.Int64(),
        "min_days": pl.Float64(),
        "p25_days": pl.Float64(),
        "median_days": pl.Float64(),
        "p75_days": pl.Float64(),
        "max_days": pl.Float64(),
    },
    "One framework (or `any`): the distribution of days from v1 to inclusion of general methods.",
)

METRICS_FIRST_INCLUSIONS = Table(
    "metrics.first_inclusions",
    {
        "arxiv_id": pl.Utf8(),
        "framework": pl.Utf8(),
        "rank": pl.Int64(),  # 1: the first framework to include it
        "frameworks": pl.Int64(),
        "included_at": UTC_TIME,
        "lag_days": pl.Float64(),
        "days_after_first": pl.Float64(),
    },
    "One included method x framework: in which order the frameworks included it.",
)

METRICS_TECH_REPORT_COVERAGE = Table(
    "metrics.tech_report_coverage",
    {
        "report_id": pl.Utf8(),
        "model": pl.Utf8(),
        "arxiv_id": pl.Utf8(),
        "method": pl.Utf8(),
        "stated": pl.Utf8(),  # named | parts | no | no_text
        "evidence": pl.Utf8(),
    },
    "One technical report x widely included method: whether the report states it, and where.",
)
