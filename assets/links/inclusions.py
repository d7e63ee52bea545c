"""Inclusions: the first commit on a framework's default branch that adds implementation
evidence for a paper (../shared/DESIGN.md, "Definitions"), corrected by
overrides/inclusions.csv."""

from pathlib import Path

import polars as pl

from assets.links.evidence import UTC_TIME
from orchestration.curation import (
    LINE,
    OVERRIDES_DIR,
    UTC_TIME as OVERRIDE_TIME,
    about_known_papers,
    cell_error,
    read_override_csv,
)
from orchestration.settings import frameworks
from orchestration.tables import CORE_INCLUSIONS


INCLUSION_SOURCES = ("rules", "override")
OVERRIDE_ACTIONS = ("add", "remove", "redate")
INCLUSION_OVERRIDES_PATH = OVERRIDES_DIR / "inclusions.csv"

#: Columns of overrides/inclusions.csv (besides `reason`). `add` and `redate` need a
#: commit sha (its time is looked up) or an `included_at`; `remove` needs neither.
INCLUSION_OVERRIDE_COLUMNS: dict[str, pl.DataType] = {
    "arxiv_id": pl.Utf8(),
    "framework": pl.Utf8(),
    "action": pl.Utf8(),
    "commit_sha": pl.Utf8(),
    "included_at": OVERRIDE_TIME,  # ISO-8601; UTC when no offset is given
    "path": pl.Utf8(),
}

# Implementation evidence of the same commit: a file beats the message (it says where),
# code beats documentation.
_RULE_PREFERENCE = {
    "code_identifier": 0,
    "config_identifier": 1,
    "code_reference": 2,
    "test": 3,
    "recipe_with_code": 4,
    "doc_reproduces_paper": 4,
    "algorithm_doc": 5,
    "message_with_code": 6,
    "message_cites_named_code": 7,
}


def read_inclusion_overrides(path: Path = INCLUSION_OVERRIDES_PATH) -> pl.DataFrame:
    """The validated rows of overrides/inclusions.csv (`OverrideError`: `file:line: column value: reason`)."""
    frame = read_override_csv(
        path,
        INCLUSION_OVERRIDE_COLUMNS,
        required=("arxiv_id", "framework", "action"),
        allowed={"action": OVERRIDE_ACTIONS, "framework": [framework.slug for framework in frameworks()]},
        unique=("arxiv_id", "framework"),
    )
    undated = frame.filter(
        pl.col("action").is_in(["add", "redate"]) & pl.col("commit_sha").is_null() & pl.col("included_at").is_null()
    )
    if undated.height:
        row = undated.row(0, named=True)
        raise cell_error(
            path, row[LINE], "commit_sha", "", f"an {row['action']} needs a commit_sha or an included_at"
        )
    return frame


def _lag_days(included_at: pl.Expr, published_at: pl.Expr) -> pl.Expr:
    return ((included_at - published_at).dt.total_seconds() / 86_400).round(2)


def rule_inclusions(evidence: pl.DataFrame, papers: pl.DataFrame) -> pl.DataFrame:
    """Per (paper, framework), the earliest commit with implementation evidence."""
    implementing = evidence.filter(
        (pl.col("source_type") == "commit") & (pl.col("evidence_class") == "implementation")
    ).with_columns(_preference=pl.col("rule").replace_strict(_RULE_PREFERENCE, default=9))
    first = (
        implementing.sort("occurred_at", "source_ref", "_preference", "path", nulls_last=True)
        .group_by("arxiv_id", "framework", maintain_order=True)
        .first()
    )
    return (
        first.join(papers.select("arxiv_id", "published_at"), on="arxiv_id")
        .select(
            "arxiv_id",
            "framework",
            included_at=pl.col("occurred_at"),
            commit_sha=pl.col("source_ref"),
            commit_url=pl.col("url"),
            path=pl.col("path"),
            lag_days=_lag_days(pl.col("occurred_at"), pl.col("published_at")),
            matched_by=pl.col("matched_by"),
            rule=pl.col("rule"),
            source=pl.lit("rules"),
            reason=pl.lit(None, pl.Utf8),
        )
        .cast(CORE_INCLUSIONS.schema)
    )


def inclusions_of(
    evidence: pl.DataFrame, papers: pl.DataFrame, commits: pl.DataFrame, overrides: pl.DataFrame
) -> pl.DataFrame:
    """One row per (paper, framework) included: the rules' first implementing commit,
    with overrides applied (remove drops it; add and redate set the commit and date,
    the date from `included_at` or else the commit's committer time). Overrides of
    frameworks without stored commits, or of papers not harvested, wait until those are loaded."""
    by_rules = rule_inclusions(evidence, papers)
    # A correction of a paper or a framework history that is not loaded (yet) has
    # nothing to correct: it applies once they are there.
    overrides = about_known_papers(overrides, papers).join(
        commits.select("framework").unique(), on="framework", how="semi"
    )
    if overrides.is_empty():
        return by_rules.sort("framework", "included_at", "arxiv_id")
    corrected = (
        overrides.filter(pl.col("action") != "remove")
        .join(
            commits.select("framework", commit_sha="sha", _committed_at="committed_at", _url="html_url"),
            on=["framework", "commit_sha"],
            how="left",
        )
        .join(papers.select("arxiv_id", "published_at"), on="arxiv_id", how="left")
        .join(
            by_rules.select(
                "arxiv_id", "framework", _rules_sha="commit_sha", _rules_at="included_at", _rules_url="commit_url",
                _rules_path="path", _matched="matched_by",
            ),
            on=["arxiv_id", "framework"],
            how="left",
        )
        # A redate without a commit keeps the rules' commit and moves only the date.
        .with_columns(
            _keeps_commit=(pl.col("action") == "redate") & pl.col("commit_sha").is_null(),
            included_at=pl.coalesce("included_at", "_committed_at"),
        )
        .with_columns(
            commit_sha=pl.when("_keeps_commit").then("_rules_sha").otherwise("commit_sha"),
            _url=pl.when("_keeps_commit").then("_rules_url").otherwise("_url"),
            path=pl.when("_keeps_commit").then(pl.coalesce("path", "_rules_path")).otherwise("path"),
        )
    )
    unknown = corrected.filter(pl.col("included_at").is_null())
    if unknown.height:
        row = unknown.row(0, named=True)
        raise cell_error(
            Path(INCLUSION_OVERRIDES_PATH.name),
            row[LINE],
            "commit_sha",
            row["commit_sha"],
            f"not a commit of {row['framework']} in raw.git_commits, and the row gives no included_at",
        )
    corrected = corrected.select(
        "arxiv_id",
        "framework",
        "included_at",
        "commit_sha",
        commit_url="_url",
        path="path",
        lag_days=_lag_days(pl.col("included_at"), pl.col("published_at")),
        matched_by=pl.col("_matched"),
        rule=pl.lit(None, pl.Utf8),
        source=pl.lit("override"),
        reason="reason",
    ).cast(CORE_INCLUSIONS.schema)
    kept = by_rules.join(overrides.select("arxiv_id", "framework"), on=["arxiv_id", "framework"], how="anti")
    return pl.concat([kept, corrected], how="vertical").sort("framework", "included_at", "arxiv_id")


def stale_inclusion_overrides(evidence: pl.DataFrame, overrides: pl.DataFrame) -> pl.DataFrame:
    """The override rows that no longer correct anything: a remove or redate of a pair
    the rules do not include, an add of a pair they do. A rule fixed at its source
    leaves such rows behind, and a stale remove hides the inclusion once the rules find
    it rightly."""
    implemented = (
        evidence.filter((pl.col("source_type") == "commit") & (pl.col("evidence_class") == "implementation"))
        .select("arxiv_id", "framework")
        .unique()
        .with_columns(_by_rules=pl.lit(True))
    )
    return (
        overrides.join(implemented, on=["arxiv_id", "framework"], how="left")
        .with_columns(_by_rules=pl.col("_by_rules").fill_null(False))
        .filter(pl.when(pl.col("action") == "add").then(pl.col("_by_rules")).otherwise(~pl.col("_by_rules")))
        .drop("_by_rules")
    )
