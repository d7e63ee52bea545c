"""The links stage: where the frameworks cite or implement papers, when each paper was
first included, which threads proposed it, and which issues report training failures."""

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import dagster as dg
import duckdb
import polars as pl

from assets.audits import check_specs, write_audit_publish
from assets.links.audits import (
    EVIDENCE_VALID,
    INCLUSIONS_NOT_LONG_BEFORE_PAPER,
    INCLUSIONS_VALID,
    PROPOSALS_LINK_KNOWN_PAPERS,
    TRAINING_FAILURES_LINK_KNOWN_PAPERS,
    early_inclusion_problems,
    inclusion_date_problems,
    links_column_problems,
    unknown_frameworks,
    unknown_papers,
)
from assets.links.evidence import aliases_in_code_before_papers, evidence_of
from assets.links.inclusions import inclusions_of, read_inclusion_overrides, stale_inclusion_overrides
from assets.links.proposals import proposals_of
from assets.links.training_failures import training_failures_of
from assets.preview import table_metadata, waiting_overrides_metadata
from orchestration.as_of import read_as_of
from orchestration.curation import about_known_papers, waiting_for_papers
from orchestration.jobs import derived_automation
from orchestration.resources import Curation, FrameworkSources
from orchestration.tables import (
    CORE_EVIDENCE,
    CORE_INCLUSIONS,
    CORE_PAPER_ALIASES,
    CORE_PAPERS,
    CORE_PROPOSALS,
    CORE_TRAINING_FAILURES,
    RAW_GIT_COMMIT_FILES,
    RAW_GIT_COMMITS,
    RAW_GITHUB_COMMENTS,
    RAW_GITHUB_THREADS,
    catalog,
)
from orchestration.warehouse import WRITER_POOL, Warehouse, read_table

FRAMEWORK_COMMITS = dg.AssetKey("framework_commits")
FRAMEWORK_THREADS = dg.AssetKey("framework_threads")
FRAMEWORK_COMMENTS = dg.AssetKey("framework_comments")
PAPERS = dg.AssetKey("papers")
PAPER_ALIASES = dg.AssetKey("paper_aliases")


def read_papers(conn: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """What the links need of core.papers: id, title, first version's time."""
    return read_table(conn, CORE_PAPERS, ["arxiv_id", "title", "published_at"])


MaterializeEvents = Iterator[dg.AssetCheckResult | dg.MaterializeResult]


@dg.asset(
    group_name="links",
    **catalog(CORE_EVIDENCE),
    kinds={"polars", "duckdb"},
    deps=[FRAMEWORK_COMMITS, FRAMEWORK_THREADS, FRAMEWORK_COMMENTS, PAPERS, PAPER_ALIASES],
    pool=WRITER_POOL,
    automation_condition=derived_automation,
    check_specs=check_specs("evidence", [EVIDENCE_VALID]),
)
def evidence(context: dg.AssetExecutionContext, warehouse: Warehouse) -> MaterializeEvents:
    """One row per (paper, framework, place) where the framework cites or names the
    paper: a commit message, a changed file (added text and identifier tokens), a thread
    or a comment; found by arXiv id, title or unambiguous alias (not one that was a word
    of code long before the paper) in one multi-pattern pass, and classified implementation or citation with the deciding `rule`."""
    with warehouse.session() as conn:
        papers = read_papers(conn)
        commits, files = read_table(conn, RAW_GIT_COMMITS), read_table(conn, RAW_GIT_COMMIT_FILES)
        aliases = read_table(conn, CORE_PAPER_ALIASES)
        result = evidence_of(
            commits, files, read_table(conn, RAW_GITHUB_THREADS), read_table(conn, RAW_GITHUB_COMMENTS), papers, aliases
        )
        # Said where users look for a missing link: these aliases matched nothing.
        words_of_code = [
            f"`{key}` ({paper})" for paper, key in aliases_in_code_before_papers(commits, files, papers, aliases).iter_rows()
        ]
        checks = yield from write_audit_publish(
            conn,
            CORE_EVIDENCE,
            result,
            {EVIDENCE_VALID: lambda staged: links_column_problems("evidence", staged) + unknown_papers(staged, papers)},
        )
    per_rule = result.group_by("evidence_class", "rule").len().sort("evidence_class", "len", descending=[False, True])
    context.log.info(f"evidence: {result.height} rows, {result['arxiv_id'].n_unique()} papers")
    if words_of_code:
        context.log.info(
            f"evidence: {len(words_of_code)} aliases were words of code in several frameworks long before their"
            f" paper and name nothing: {', '.join(words_of_code)}"
        )
    yield dg.MaterializeResult(
        metadata=table_metadata(
            result,
            ["arxiv_id", "framework", "source_type", "path", "matched_by", "evidence_class", "rule"],
            rows_per_rule=dg.MetadataValue.md(
                "\n".join(f"- {cls} / {rule}: {count}" for cls, rule, count in per_rule.iter_rows())
            ),
            aliases_words_of_code=dg.MetadataValue.md("\n".join(f"- {alias}" for alias in words_of_code) or "none"),
        ),
        check_results=checks,
    )


@dg.asset(
    group_name="links",
    **catalog(CORE_INCLUSIONS),
    kinds={"polars", "duckdb"},
    deps=[evidence, FRAMEWORK_COMMITS, PAPERS],
    pool=WRITER_POOL,
    automation_condition=derived_automation,
    check_specs=check_specs("inclusions", [INCLUSIONS_VALID, INCLUSIONS_NOT_LONG_BEFORE_PAPER]),
)
def inclusions(context: dg.AssetExecutionContext, curation: Curation, warehouse: Warehouse) -> MaterializeEvents:
    """One row per (paper, framework) included: the first commit on the default branch
    with implementation evidence for the paper (committer time, UTC), its sha, URL and
    path, the lag after the paper's v1 in days, and how it was matched; corrected by
    overrides/inclusions.csv (`source` = rules or override)."""
    overrides = read_inclusion_overrides(curation.path("inclusions.csv"))
    with warehouse.session() as conn:
        evidence_rows = read_table(conn, CORE_EVIDENCE)
        commits = read_table(conn, RAW_GIT_COMMITS)
        known_papers = read_papers(conn)
        result = inclusions_of(evidence_rows, known_papers, commits, overrides)
        # A date after tomorrow (UTC) is in the future wherever the run is.
        latest = datetime.now(UTC) + timedelta(days=1)
        checks = yield from write_audit_publish(
            conn,
            CORE_INCLUSIONS,
            result,
            {
                INCLUSIONS_VALID: lambda staged: links_column_problems("inclusions", staged)
                + unknown_papers(staged, known_papers)
                + inclusion_date_problems(staged, commits, latest),
                INCLUSIONS_NOT_LONG_BEFORE_PAPER: early_inclusion_problems,
            },
        )
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
    yield dg.MaterializeResult(
        metadata=table_metadata(
            result,
            ["arxiv_id", "framework", "included_at", "commit_sha", "path", "lag_days", "source"],
            overrides=int((result["source"] == "override").sum()),
            stale_overrides=stale.height,
            **waiting_overrides_metadata({"inclusions.csv": waiting}),
        ),
        check_results=checks,
    )


@dg.asset(
    group_name="links",
    **catalog(CORE_PROPOSALS),
    kinds={"polars", "duckdb"},
    deps=[evidence, inclusions, FRAMEWORK_THREADS, FRAMEWORK_COMMENTS],
    pool=WRITER_POOL,
    automation_condition=derived_automation,
    check_specs=check_specs("proposals", [PROPOSALS_LINK_KNOWN_PAPERS]),
)
def proposals(
    context: dg.AssetExecutionContext, warehouse: Warehouse, framework_sources: FrameworkSources
) -> MaterializeEvents:
    """One row per (paper, framework, thread) where an issue or pull request, or a
    comment on it, cites or names the paper and was opened before the paper's inclusion
    in that framework (or the paper was never included there): kind, state, author,
    replies by others, time to first reply, whether a maintainer replied, merged, days
    open (an open thread's to the run's `as_of` date: the end of the recorded data in
    snapshot mode, the run's date live)."""
    with warehouse.session() as conn:
        as_of = read_as_of(warehouse, framework_sources, now=datetime.now(UTC))
        papers = read_papers(conn)
        result = proposals_of(
            read_table(conn, CORE_EVIDENCE),
            read_table(conn, RAW_GITHUB_THREADS),
            read_table(conn, RAW_GITHUB_COMMENTS),
            read_table(conn, CORE_INCLUSIONS),
            as_of,
        )
        checks = yield from write_audit_publish(
            conn,
            CORE_PROPOSALS,
            result,
            {PROPOSALS_LINK_KNOWN_PAPERS: lambda staged: unknown_papers(staged, papers) + unknown_frameworks(staged)},
        )
    context.log.info(
        f"proposals: {result.height} rows, {int(result['without_reply'].sum())} without a reply, "
        f"as of {as_of:%Y-%m-%d %H:%M} UTC"
    )
    yield dg.MaterializeResult(
        metadata=table_metadata(
            result,
            ["arxiv_id", "framework", "number", "kind", "state", "replies_by_others", "title"],
            without_reply=int(result["without_reply"].sum()),
            as_of=dg.MetadataValue.timestamp(as_of),
        ),
        check_results=checks,
    )


@dg.asset(
    group_name="links",
    **catalog(CORE_TRAINING_FAILURES),
    kinds={"polars", "duckdb"},
    deps=[evidence, inclusions, FRAMEWORK_THREADS],
    pool=WRITER_POOL,
    automation_condition=derived_automation,
    check_specs=check_specs("training_failures", [TRAINING_FAILURES_LINK_KNOWN_PAPERS]),
)
def training_failures(context: dg.AssetExecutionContext, warehouse: Warehouse) -> MaterializeEvents:
    """One row per issue reporting a training failure (NaN or inf, divergence, collapse,
    spikes, KL blow-up, reward hacking) and implementation it concerns: the paper whose
    evidence the issue's method, config key or file names, with that paper's inclusion
    (a null paper where it names none)."""
    with warehouse.session() as conn:
        papers = read_papers(conn)
        result = training_failures_of(
            read_table(conn, RAW_GITHUB_THREADS),
            read_table(conn, CORE_EVIDENCE),
            read_table(conn, CORE_INCLUSIONS),
        )
        checks = yield from write_audit_publish(
            conn,
            CORE_TRAINING_FAILURES,
            result,
            {TRAINING_FAILURES_LINK_KNOWN_PAPERS: lambda staged: unknown_papers(staged, papers) + unknown_frameworks(staged)},
        )
    linked = result.filter(pl.col("arxiv_id").is_not_null()).select("framework", "number").n_unique()
    issues = result.select("framework", "number").n_unique()
    context.log.info(f"training_failures: {issues} issue(s), {linked} linked to an implementation")
    yield dg.MaterializeResult(
        metadata=table_metadata(
            result,
            ["framework", "number", "failure_kinds", "arxiv_id", "linked_by", "title"],
            issues=issues,
            linked_issues=linked,
        ),
        check_results=checks,
    )
