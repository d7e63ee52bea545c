"""Links: where the frameworks cite or implement papers, when each paper was first
included, which threads proposed it, and which issues report training failures."""

from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import polars as pl

from assets.aliases import ALIAS_SCHEMA
from assets.as_of import read_as_of
from assets.commit_records import COMMIT_FILE_SCHEMA, COMMIT_SCHEMA
from assets.evidence import EVIDENCE_SCHEMA, evidence_of
from assets.frameworks import (
    COMMENTS_TABLE,
    COMMIT_FILES_TABLE,
    COMMITS_TABLE,
    FRAMEWORK_COMMENTS,
    FRAMEWORK_COMMITS,
    FRAMEWORK_THREADS,
    THREADS_TABLE,
)
from assets.inclusions import (
    INCLUSION_SCHEMA,
    inclusions_of,
    read_inclusion_overrides,
    stale_inclusion_overrides,
)
from assets.papers import PAPERS_TABLE, CurationConfig, derived_automation
from assets.overrides import about_known_papers, waiting_for_papers
from assets.preview import table_metadata, waiting_overrides_metadata
from assets.proposals import PROPOSAL_SCHEMA, proposals_of
from assets.thread_records import COMMENT_SCHEMA, THREAD_SCHEMA
from assets.training_failures import TRAINING_FAILURE_SCHEMA, training_failures_of
from orchestration.resources import FrameworkSources
from orchestration.warehouse import WRITER_POOL, Warehouse, replace_table

EVIDENCE_TABLE = "core.evidence"
INCLUSIONS_TABLE = "core.inclusions"
PROPOSALS_TABLE = "core.proposals"
TRAINING_FAILURES_TABLE = "core.training_failures"
#: Written by the `paper_aliases` asset (assets/aliases.py).
PAPER_ALIASES_TABLE = "core.paper_aliases"

PAPERS = dg.AssetKey("papers")
PAPER_ALIASES = dg.AssetKey("paper_aliases")

_PAPER_COLUMNS = {"arxiv_id": pl.Utf8, "title": pl.Utf8, "published_at": pl.Datetime("us", "UTC")}


def read_table(warehouse: Warehouse, table: str, schema: dict) -> pl.DataFrame:
    """All rows of `table` (none before it exists) with `schema`'s types: DuckDB gives
    UTC times back as `Etc/UTC`, which polars will not mix with `UTC`."""
    frame = warehouse.table_or_empty(table, pl.DataFrame(schema=schema))
    return frame.cast({column: dtype for column, dtype in schema.items() if column in frame.columns})


def read_papers(warehouse: Warehouse) -> pl.DataFrame:
    return read_table(warehouse, PAPERS_TABLE, _PAPER_COLUMNS).select(list(_PAPER_COLUMNS))



@dg.asset(
    group_name="links",
    kinds={"polars", "duckdb"},
    deps=[FRAMEWORK_COMMITS, FRAMEWORK_THREADS, FRAMEWORK_COMMENTS, PAPERS, PAPER_ALIASES],
    pool=WRITER_POOL,
    automation_condition=derived_automation,
)
def evidence(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    """One row per (paper, framework, place) where the framework cites or names the
    paper: a commit message, a changed file (added text and identifier tokens), a thread
    or a comment; found by arXiv id, title or unambiguous alias in one multi-pattern
    pass, and classified implementation or citation with the deciding `rule`."""
    result = evidence_of(
        read_table(warehouse, COMMITS_TABLE, COMMIT_SCHEMA),
        read_table(warehouse, COMMIT_FILES_TABLE, COMMIT_FILE_SCHEMA),
        read_table(warehouse, THREADS_TABLE, THREAD_SCHEMA),
        read_table(warehouse, COMMENTS_TABLE, COMMENT_SCHEMA),
        read_papers(warehouse),
        read_table(warehouse, PAPER_ALIASES_TABLE, ALIAS_SCHEMA),
    )
    with warehouse.connect() as conn:
        replace_table(conn, EVIDENCE_TABLE, result)
    per_rule = result.group_by("evidence_class", "rule").len().sort("evidence_class", "len", descending=[False, True])
    context.log.info(f"evidence: {result.height} rows, {result['arxiv_id'].n_unique()} papers")
    return dg.MaterializeResult(
        metadata=table_metadata(
            result,
            ["arxiv_id", "framework", "source_type", "path", "matched_by", "evidence_class", "rule"],
            rows_per_rule=dg.MetadataValue.md(
                "\n".join(f"- {cls} / {rule}: {count}" for cls, rule, count in per_rule.iter_rows())
            ),
        )
    )


@dg.asset(
    group_name="links",
    kinds={"polars", "duckdb"},
    deps=[evidence, FRAMEWORK_COMMITS, PAPERS],
    pool=WRITER_POOL,
    automation_condition=derived_automation,
)
def inclusions(context: dg.AssetExecutionContext, config: CurationConfig, warehouse: Warehouse) -> dg.MaterializeResult:
    """One row per (paper, framework) included: the first commit on the default branch
    with implementation evidence for the paper (committer time, UTC), its sha, URL and
    path, the lag after the paper's v1 in days, and how it was matched; corrected by
    overrides/inclusions.csv (`source` = rules or override)."""
    evidence_rows = read_table(warehouse, EVIDENCE_TABLE, EVIDENCE_SCHEMA)
    overrides = read_inclusion_overrides(Path(config.overrides_dir) / "inclusions.csv")
    commits = read_table(warehouse, COMMITS_TABLE, COMMIT_SCHEMA)
    known_papers = read_papers(warehouse)
    result = inclusions_of(evidence_rows, known_papers, commits, overrides)
    with warehouse.connect() as conn:
        replace_table(conn, INCLUSIONS_TABLE, result)
    waiting = waiting_for_papers(overrides, known_papers)
    context.log.info(
        f"inclusions: {result.height} (paper, framework) pairs; "
        f"{waiting.height} override row(s) wait for papers not harvested yet"
    )
    stale = stale_inclusion_overrides(evidence_rows, about_known_papers(overrides, known_papers))
    for row in stale.iter_rows(named=True):
        context.log.warning(
            f"overrides/inclusions.csv: {row['action']} of {row['arxiv_id']} in {row['framework']} corrects nothing "
            "now (the rules agree): review or delete the row"
        )
    return dg.MaterializeResult(
        metadata=table_metadata(
            result,
            ["arxiv_id", "framework", "included_at", "commit_sha", "path", "lag_days", "source"],
            overrides=int((result["source"] == "override").sum()),
            stale_overrides=stale.height,
            **waiting_overrides_metadata({"inclusions.csv": waiting}),
        )
    )


@dg.asset(
    group_name="links",
    kinds={"polars", "duckdb"},
    deps=[evidence, inclusions, FRAMEWORK_THREADS, FRAMEWORK_COMMENTS],
    pool=WRITER_POOL,
    automation_condition=derived_automation,
)
def proposals(
    context: dg.AssetExecutionContext, warehouse: Warehouse, framework_sources: FrameworkSources
) -> dg.MaterializeResult:
    """One row per (paper, framework, thread) where an issue or pull request, or a
    comment on it, cites or names the paper and was opened before the paper's inclusion
    in that framework (or the paper was never included there): kind, state, author,
    replies by others, time to first reply, whether a maintainer replied, merged, days
    open (an open thread's to the run's `as_of` date: the end of the recorded data in
    snapshot mode, the run's date live)."""
    as_of = read_as_of(warehouse, framework_sources, now=datetime.now(UTC))
    result = proposals_of(
        read_table(warehouse, EVIDENCE_TABLE, EVIDENCE_SCHEMA),
        read_table(warehouse, THREADS_TABLE, THREAD_SCHEMA),
        read_table(warehouse, COMMENTS_TABLE, COMMENT_SCHEMA),
        read_table(warehouse, INCLUSIONS_TABLE, INCLUSION_SCHEMA),
        as_of,
    )
    with warehouse.connect() as conn:
        replace_table(conn, PROPOSALS_TABLE, result)
    context.log.info(
        f"proposals: {result.height} rows, {int(result['without_reply'].sum())} without a reply, "
        f"as of {as_of:%Y-%m-%d %H:%M} UTC"
    )
    return dg.MaterializeResult(
        metadata=table_metadata(
            result,
            ["arxiv_id", "framework", "number", "kind", "state", "replies_by_others", "title"],
            without_reply=int(result["without_reply"].sum()),
            as_of=dg.MetadataValue.timestamp(as_of),
        )
    )


@dg.asset(
    group_name="links",
    kinds={"polars", "duckdb"},
    deps=[evidence, inclusions, FRAMEWORK_THREADS],
    pool=WRITER_POOL,
    automation_condition=derived_automation,
)
def training_failures(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    """One row per issue reporting a training failure (NaN or inf, divergence, collapse,
    spikes, KL blow-up, reward hacking) and implementation it concerns: the paper whose
    evidence the issue's method, config key or file names, with that paper's inclusion
    (a null paper where it names none)."""
    result = training_failures_of(
        read_table(warehouse, THREADS_TABLE, THREAD_SCHEMA),
        read_table(warehouse, EVIDENCE_TABLE, EVIDENCE_SCHEMA),
        read_table(warehouse, INCLUSIONS_TABLE, INCLUSION_SCHEMA),
    )
    with warehouse.connect() as conn:
        replace_table(conn, TRAINING_FAILURES_TABLE, result)
    linked = result.filter(pl.col("arxiv_id").is_not_null()).select("framework", "number").n_unique()
    issues = result.select("framework", "number").n_unique()
    context.log.info(f"training_failures: {issues} issue(s), {linked} linked to an implementation")
    return dg.MaterializeResult(
        metadata=table_metadata(
            result,
            ["framework", "number", "failure_kinds", "arxiv_id", "linked_by", "title"],
            issues=issues,
            linked_issues=linked,
        )
    )
