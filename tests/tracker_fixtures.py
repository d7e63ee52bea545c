"""A small invented warehouse for the tracker site's tests: two included methods, a
proposal waiting for a reply, a failure report, a technical report, and hostile text
(HTML, a script, a markdown link, a `javascript:` URL, control characters) in every
place the sources' text reaches the site."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import polars as pl

from assets.tracker.assets import method_switches, tracker_site
from orchestration.resources import FrameworkSources, TrackerSite
from orchestration.tables import (
    CORE_EVIDENCE,
    CORE_INCLUSIONS,
    CORE_PAPER_ALIASES,
    CORE_PAPER_SCREENING,
    CORE_PAPERS,
    CORE_PROPOSALS,
    CORE_TRAINING_FAILURES,
    METRICS_COHORT_INCLUSION,
    METRICS_TECH_REPORT_COVERAGE,
    RAW_FRAMEWORK_DOCS,
    RAW_GIT_COMMIT_FILES,
    RAW_GIT_COMMITS,
    Table,
)
from orchestration.warehouse import Warehouse, replace_table

#: Sets window.pwned if any of it ever runs as script.
HOSTILE = (
    "<script>window.pwned=1</script><img src=x onerror=\"window.pwned=2\">"
    "[click](javascript:window.pwned=3) \x07\x1b[31m"
)
HOSTILE_URL = "javascript:window.pwned=4"
AS_OF = datetime(2025, 12, 1, tzinfo=UTC)


def t(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def rows(table: Table, records: list[dict[str, object]]) -> pl.DataFrame:
    """`records` as `table`'s frame: missing columns null, contract types."""
    return pl.DataFrame(
        [{column: record.get(column) for column in table.schema} for record in records], schema=table.schema
    )


def fixture_tables() -> dict[str, pl.DataFrame]:
    """The fixture's frames by table name."""
    papers = rows(CORE_PAPERS, [
        {"arxiv_id": "2503.00001", "title": "DAPO: clip higher", "published_at": t("2025-03-01"), "cohort": "2025-Q1",
         "authors": ["A. Author"]},
        {"arxiv_id": "2504.00002", "title": "Hostile " + HOSTILE, "published_at": t("2025-04-02"), "cohort": "2025-Q2",
         "authors": [HOSTILE]},
        {"arxiv_id": "2510.00003", "title": "FreshPO: nobody proposed it", "published_at": t("2025-10-03"),
         "cohort": "2025-Q4"},
    ])
    screening = rows(CORE_PAPER_SCREENING, [
        {"arxiv_id": a, "cohort": c, "is_general_rl_method": True, "screening_score": 3,
         "screening_reasons": ["names a policy-gradient loss", HOSTILE], "verdict_source": "rules",
         "loss_change_kind": "loss_tweak", "code_released": True, "code_url": HOSTILE_URL}
        for a, c in [("2503.00001", "2025-Q1"), ("2504.00002", "2025-Q2"), ("2510.00003", "2025-Q4")]
    ])
    inclusions = rows(CORE_INCLUSIONS, [
        {"arxiv_id": "2503.00001", "framework": "verl", "included_at": t("2025-04-10"), "commit_sha": "a" * 40,
         "commit_url": "https://github.com/volcengine/verl/commit/" + "a" * 40, "lag_days": 40.0, "source": "rules"},
        {"arxiv_id": "2503.00001", "framework": "trl", "included_at": t("2025-05-20"), "commit_sha": "b" * 40,
         "commit_url": "https://github.com/huggingface/trl/commit/" + "b" * 40, "lag_days": 80.0, "source": "rules"},
        {"arxiv_id": "2504.00002", "framework": "verl", "included_at": t("2025-06-01"), "commit_sha": "c" * 40,
         "commit_url": HOSTILE_URL, "lag_days": 60.0, "source": "rules"},
    ])
    commit_files = rows(RAW_GIT_COMMIT_FILES, [
        {"framework": "verl", "sha": "a" * 40, "path": "recipe/dapo/README.md",
         "added_text": "python -m verl.trainer.main_ppo algorithm.adv_estimator=dapo \\\n  actor.use_kl_loss=False\n",
         "added_tokens": []},
        {"framework": "trl", "sha": "b" * 40, "path": "trl/trainer/grpo_config.py",
         "added_text": "", "added_tokens": ["dapo_clip_higher", "field", "loss_type"]},
    ])
    aliases = rows(CORE_PAPER_ALIASES, [
        {"arxiv_id": "2503.00001", "alias": "DAPO", "normalized": "dapo", "source": "title_prefix", "ambiguous": False},
    ])
    evidence = rows(CORE_EVIDENCE, [
        {"arxiv_id": "2503.00001", "framework": "verl", "source_type": "commit", "source_ref": "a" * 40,
         "url": "https://github.com/volcengine/verl/commit/" + "a" * 40, "occurred_at": t("2025-04-10"),
         "path": "recipe/dapo/README.md", "matched_by": "alias", "matched_text": "dapo",
         "evidence_class": "implementation", "rule": "recipe_with_code"},
        {"arxiv_id": "2504.00002", "framework": "trl", "source_type": "thread", "source_ref": "7",
         "url": HOSTILE_URL, "occurred_at": t("2025-05-01"), "matched_by": "arxiv_id",
         "matched_text": HOSTILE, "evidence_class": "citation", "rule": "thread"},
    ])
    proposals = rows(CORE_PROPOSALS, [
        {"arxiv_id": "2504.00002", "framework": "trl", "number": 7, "kind": "issue", "state": "open",
         "title": "Please add " + HOSTILE, "author": "someone", "url": HOSTILE_URL, "created_at": t("2025-05-01"),
         "replies_by_others": 0, "without_reply": True, "days_open": 214.0, "as_of": AS_OF},
        {"arxiv_id": "2503.00001", "framework": "trl", "number": 3, "kind": "pull_request", "state": "merged",
         "title": "Add DAPO", "author": "contributor", "url": "https://github.com/huggingface/trl/pull/3",
         "created_at": t("2025-04-01"), "replies_by_others": 2, "without_reply": False, "merged": True,
         "included_at": t("2025-05-20"), "days_open": 49.0, "as_of": AS_OF},
    ])
    failures = rows(CORE_TRAINING_FAILURES, [
        {"framework": "verl", "number": 11, "title": "NaN loss with DAPO " + HOSTILE,
         "state": "open", "author": "user", "url": "https://github.com/volcengine/verl/issues/11",
         "created_at": t("2025-07-01"), "failure_kinds": ["nan"], "arxiv_id": "2503.00001",
         "linked_by": "named", "link_key": "DAPO", "commit_sha": "a" * 40, "included_at": t("2025-04-10")},
        {"framework": "verl", "number": 12, "title": "KL is NaN with fancy_kl_mode",
         "state": "open", "author": "user", "url": "https://github.com/volcengine/verl/issues/12",
         "created_at": t("2025-07-02"), "failure_kinds": ["nan_or_inf"], "arxiv_id": None,
         "linked_by": "identifier", "link_key": "fancy_kl_mode", "commit_sha": None, "included_at": None},
    ])
    docs = rows(RAW_FRAMEWORK_DOCS, [
        {"framework": "trl", "path": "CONTRIBUTING.md", "blob_sha": "d" * 40, "fetched_at": AS_OF,
         "text": "# Contributing\nOpen an issue first. " + HOSTILE},
    ])
    cohorts = rows(METRICS_COHORT_INCLUSION, [
        {"cohort": "2025-Q1", "framework": "any", "papers": 1, "general_methods": 1, "included": 1,
         "included_within_180d": 1, "share_within_180d": 1.0, "window_closed": True,
         "provisional_until": t("2025-09-27").date(), "as_of": AS_OF},
        {"cohort": "2025-Q2", "framework": "any", "papers": 1, "general_methods": 1, "included": 1,
         "included_within_180d": 1, "share_within_180d": 1.0, "window_closed": False,
         "provisional_until": t("2025-12-27").date(), "as_of": AS_OF},
    ])
    reports = rows(METRICS_TECH_REPORT_COVERAGE, [
        {"report_id": "2505.09388", "model": "Qwen3", "arxiv_id": "2503.00001", "method": "DAPO", "stated": "named",
         "evidence": "We use DAPO " + HOSTILE},
    ])
    commits = rows(RAW_GIT_COMMITS, [
        {"framework": "verl", "sha": "a" * 40, "parents": [], "committed_at": AS_OF, "message": HOSTILE,
         "html_url": HOSTILE_URL},
    ])
    frames = [
        (CORE_PAPERS, papers), (CORE_PAPER_SCREENING, screening), (CORE_INCLUSIONS, inclusions),
        (RAW_GIT_COMMIT_FILES, commit_files), (CORE_PAPER_ALIASES, aliases), (CORE_EVIDENCE, evidence),
        (CORE_PROPOSALS, proposals), (CORE_TRAINING_FAILURES, failures), (RAW_FRAMEWORK_DOCS, docs),
        (METRICS_COHORT_INCLUSION, cohorts), (METRICS_TECH_REPORT_COVERAGE, reports), (RAW_GIT_COMMITS, commits),
    ]
    return {table.name: frame for table, frame in frames}


def fixture_warehouse(path: Path) -> Warehouse:
    """A DuckDB file at `path` holding the fixture tables."""
    warehouse = Warehouse(database=str(path))
    with warehouse.connect() as conn:
        for name, frame in fixture_tables().items():
            replace_table(conn, name, frame)
    return warehouse


#: A chart as the metrics stage renders it: inline SVG (a bar per cohort).
CHART_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" id="cohort-chart" width="200" height="100">'
    '<rect x="10" y="20" width="30" height="80" fill="#4878d0"/><text x="10" y="15">2025-Q1</text></svg>'
)


def build_site(tmp_path):
    """The site as the assets write it (method_switches, then tracker_site) from the
    fixture warehouse, in snapshot mode (the as-of date is the newest recorded commit,
    AS_OF): its folder and the materialization result."""
    warehouse = fixture_warehouse(tmp_path / "tracker.duckdb")
    site_dir = tmp_path / "site"
    result = dg.materialize(
        [method_switches, tracker_site],
        resources={
            "warehouse": warehouse,
            "framework_sources": FrameworkSources(snapshot_dir=str(tmp_path)),
            "site": TrackerSite(site_dir=str(site_dir)),
        },
    )
    assert result.success
    return site_dir, result
