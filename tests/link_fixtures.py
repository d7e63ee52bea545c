"""Small hand-written frames for the links tests: papers, aliases, commits, threads."""

from datetime import UTC, datetime

import polars as pl
from orchestration.tables import CORE_PAPER_ALIASES, RAW_GITHUB_COMMENTS, RAW_GITHUB_THREADS, RAW_GIT_COMMITS, RAW_GIT_COMMIT_FILES



DAPO = "2503.14476"
DR_GRPO = "2503.20783"
GSPO = "2507.18071"
REINFORCE_PP = "2501.03262"


def at(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=UTC)


def papers() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "arxiv_id": [DAPO, DR_GRPO, GSPO, REINFORCE_PP],
            "title": [
                "DAPO: An Open-Source LLM Reinforcement Learning System at Scale",
                "Understanding R1-Zero-Like Training: A Critical Perspective",
                "Group Sequence Policy Optimization",
                "REINFORCE++: A Simple and Efficient Approach for Aligning Large Language Models",
            ],
            "published_at": [at("2025-03-18"), at("2025-03-26"), at("2025-07-24"), at("2025-01-04")],
        },
        schema={"arxiv_id": pl.Utf8, "title": pl.Utf8, "published_at": pl.Datetime("us", "UTC")},
    )


def aliases(*extra: tuple[str, str, bool, bool]) -> pl.DataFrame:
    """(arxiv_id, alias, ambiguous, case_sensitive) rows, normalized as paper_aliases does."""
    rows = [
        (DAPO, "DAPO", False, True),
        (DR_GRPO, "Dr. GRPO", False, False),
        (GSPO, "GSPO", False, True),
        (REINFORCE_PP, "REINFORCE++", False, False),
        *extra,
    ]
    return pl.DataFrame(
        [
            {
                "arxiv_id": arxiv_id,
                "alias": alias,
                "normalized": alias.lower().replace(" ", "").replace("-", "").replace("_", "").replace(".", ""),
                "source": "test",
                "ambiguous": ambiguous,
                "case_sensitive": case_sensitive,
            }
            for arxiv_id, alias, ambiguous, case_sensitive in rows
        ],
        schema=CORE_PAPER_ALIASES.schema,
    )


def commits(*rows: tuple[str, str, str, str]) -> pl.DataFrame:
    """(framework, sha, committed day, message) rows."""
    return pl.DataFrame(
        [
            {
                "framework": framework,
                "sha": sha,
                "parents": [],
                "author": "dev",
                "authored_at": at(day),
                "committed_at": at(day),
                "message": message,
                "html_url": f"https://github.com/o/{framework}/commit/{sha}",
                "diff_incomplete": False,
            }
            for framework, sha, day, message in rows
        ],
        schema=RAW_GIT_COMMITS.schema,
    )


def files(*rows: tuple[str, str, str, str, list[str]]) -> pl.DataFrame:
    """(framework, sha, path, added_text, added_tokens) rows."""
    return pl.DataFrame(
        [
            {
                "framework": framework,
                "sha": sha,
                "path": path,
                "additions": 1,
                "deletions": 0,
                "added_text": text,
                "added_text_truncated": False,
                "added_tokens": tokens,
            }
            for framework, sha, path, text, tokens in rows
        ],
        schema=RAW_GIT_COMMIT_FILES.schema,
    )


def threads(*rows: dict) -> pl.DataFrame:
    base = {
        "framework": "verl",
        "kind": "issue",
        "title": "",
        "body": None,
        "body_tokens": [],
        "body_complete": True,
        "state": "open",
        "author": "alice",
        "author_association": None,
        "labels": [],
        "created_at": at("2025-03-20"),
        "updated_at": None,
        "closed_at": None,
        "merged_at": None,
        "comment_count": 0,
        "html_url": None,
    }
    full = []
    for row in rows:
        merged = {**base, **row}
        merged["html_url"] = merged["html_url"] or f"https://github.com/o/{merged['framework']}/issues/{merged['number']}"
        full.append(merged)
    return pl.DataFrame(full, schema=RAW_GITHUB_THREADS.schema)


def comments(*rows: dict) -> pl.DataFrame:
    base = {
        "framework": "verl",
        "kind": "comment",
        "author": "bob",
        "author_association": None,
        "created_at": at("2025-03-21"),
        "updated_at": None,
        "body": None,
        "body_tokens": [],
        "html_url": None,
    }
    full = []
    for index, row in enumerate(rows):
        merged = {**base, "comment_id": index + 1, **row}
        merged["html_url"] = merged["html_url"] or f"https://github.com/o/{merged['framework']}/issues/{merged['thread_number']}"
        full.append(merged)
    return pl.DataFrame(full, schema=RAW_GITHUB_COMMENTS.schema)


def no_threads() -> pl.DataFrame:
    return pl.DataFrame(schema=RAW_GITHUB_THREADS.schema)


def no_comments() -> pl.DataFrame:
    return pl.DataFrame(schema=RAW_GITHUB_COMMENTS.schema)
