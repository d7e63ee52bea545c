"""Issue, pull-request and comment records of the frameworks, as polars frames.

Two sources feed the same two schemas: the GitHub REST API (`/issues` and
`/issues/comments` items, full text) and the recorded snapshot threads (tokens of the
text only, dates without times). Later stages match `body` and `body_tokens` alike, so
each source fills what it knows and leaves the rest null (or an empty token list).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime
from typing import Any

import polars as pl
from orchestration.tables import RAW_GITHUB_COMMENTS, RAW_GITHUB_THREADS

_UTC_TIME = pl.Datetime("us", "UTC")



THREAD_KINDS = ("issue", "pull_request")
THREAD_STATES = ("open", "closed", "merged")
COMMENT_KINDS = ("comment", "review thread")

#: Room for this many comments per thread in a synthesized snapshot comment id.
SNAPSHOT_COMMENTS_PER_THREAD = 1_000_000

_ISSUE_URL_NUMBER = re.compile(r"/issues/(\d+)/?$")


def parse_time(value: str | date | datetime | None) -> datetime | None:
    """An ISO-8601 timestamp or a bare date (midnight UTC) as an aware UTC datetime."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    parsed = datetime.fromisoformat(value)
    # GitHub times are UTC ("Z"); a value without an offset is taken as UTC too.
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def _login(user: Mapping[str, Any] | None) -> str | None:
    # Deleted accounts come back as null (or as the "ghost" user, which is kept as is).
    return user.get("login") if user else None


def _label_names(labels: Iterable[Any] | None) -> list[str]:
    # The API gives label objects; some payloads (and the snapshot) give plain names.
    names = []
    for label in labels or ():
        name = label.get("name") if isinstance(label, Mapping) else label
        if isinstance(name, str):
            names.append(name)
    return names


def thread_number_from_issue_url(issue_url: str) -> int:
    """The issue or pull-request number at the end of an `issue_url` (`…/issues/123`)."""
    match = _ISSUE_URL_NUMBER.search(issue_url or "")
    if not match:
        raise ValueError(f"not an issue URL: {issue_url!r}")
    return int(match.group(1))


def _latest_per_key(frame: pl.DataFrame, key: str) -> pl.DataFrame:
    """One row per key, the most recently updated one.

    Paging through a list sorted by `updated_at` while it changes can return an item
    twice (it moves to the end); the later copy is the newer one.
    """
    if frame.height == frame[key].n_unique():
        return frame
    return (
        frame.with_row_index("_position")
        .sort(["updated_at", "_position"], nulls_last=False)
        .unique(subset=[key], keep="last", maintain_order=True)
        .sort("_position")
        .drop("_position")
    )


def threads_from_api(items: list[dict], framework: str) -> pl.DataFrame:
    """Rows of RAW_GITHUB_THREADS.schema from GitHub `/repos/{owner}/{repo}/issues` items.

    The issues list holds pull requests too: they carry a `pull_request` object, whose
    `merged_at` (when set) makes the state "merged".
    """
    rows = []
    for item in items:
        pull = item.get("pull_request")
        merged_at = parse_time(pull.get("merged_at")) if pull else None
        state = "merged" if merged_at is not None else item.get("state")
        rows.append(
            {
                "framework": framework,
                "number": item["number"],
                "kind": "pull_request" if pull is not None else "issue",
                "title": item.get("title"),
                "body": item.get("body"),
                "body_tokens": [],
                # The API returns the whole description (null when empty): nothing is cut off.
                "body_complete": True,
                "state": state,
                "author": _login(item.get("user")),
                "author_association": item.get("author_association"),
                "labels": _label_names(item.get("labels")),
                "created_at": parse_time(item.get("created_at")),
                "updated_at": parse_time(item.get("updated_at")),
                "closed_at": parse_time(item.get("closed_at")),
                "merged_at": merged_at,
                "comment_count": item.get("comments") or 0,
                "html_url": item.get("html_url"),
            }
        )
    return _latest_per_key(pl.DataFrame(rows, schema=RAW_GITHUB_THREADS.schema), "number")


def comments_from_api(items: list[dict], framework: str) -> pl.DataFrame:
    """Rows of RAW_GITHUB_COMMENTS.schema from GitHub `/repos/{owner}/{repo}/issues/comments` items.

    That endpoint lists the conversation comments of issues and pull requests alike;
    the thread is the number at the end of `issue_url`.
    """
    rows = [
        {
            "framework": framework,
            "comment_id": item["id"],
            "thread_number": thread_number_from_issue_url(item["issue_url"]),
            "kind": "comment",
            "author": _login(item.get("user")),
            "author_association": item.get("author_association"),
            "created_at": parse_time(item.get("created_at")),
            "updated_at": parse_time(item.get("updated_at")),
            "body": item.get("body"),
            "body_tokens": [],
            "html_url": item.get("html_url"),
        }
        for item in items
    ]
    return _latest_per_key(pl.DataFrame(rows, schema=RAW_GITHUB_COMMENTS.schema), "comment_id")


def snapshot_comment_id(number: int, position: int) -> int:
    """A stable id for the `position`-th (0-based) recorded comment of thread `number`.

    Snapshot comments have no GitHub id. Negative ids never collide with real ones, and
    deriving them from (number, position) gives the same ids on every reload.
    """
    if not 0 <= position < SNAPSHOT_COMMENTS_PER_THREAD:
        raise ValueError(f"comment position {position} of thread {number} out of range")
    return -(number * SNAPSHOT_COMMENTS_PER_THREAD + position + 1)


def snapshot_thread_frames(lines: Iterable[dict], framework: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(threads, comments) from the lines of a snapshot `<owner>__<repo>.threads.jsonl.gz`.

    The snapshot records tokens instead of text, dates instead of times, and no author
    association, update, close or merge times: those stay null. A comment's `html_url`
    is its thread's page (the comment's own anchor was not recorded).
    """
    threads, comments = [], []
    for line in lines:
        number = int(line["number"])
        recorded_comments = line.get("comments") or []
        threads.append(
            {
                "framework": framework,
                "number": number,
                "kind": line["kind"],
                "title": line.get("title"),
                "body": None,
                "body_tokens": list(line.get("body_tokens") or []),
                "body_complete": bool(line.get("body_complete", False)),
                "state": line.get("state"),
                "author": line.get("author"),
                "author_association": None,
                "labels": _label_names(line.get("labels")),
                "created_at": parse_time(line.get("created_at")),
                "updated_at": None,
                "closed_at": None,
                "merged_at": None,
                "comment_count": len(recorded_comments),
                "html_url": line.get("html_url"),
            }
        )
        for position, comment in enumerate(recorded_comments):
            comments.append(
                {
                    "framework": framework,
                    "comment_id": snapshot_comment_id(number, position),
                    "thread_number": number,
                    "kind": comment.get("kind") or "comment",
                    "author": comment.get("author"),
                    "author_association": None,
                    "created_at": parse_time(comment.get("created_at")),
                    "updated_at": None,
                    "body": None,
                    "body_tokens": list(comment.get("body_tokens") or []),
                    "html_url": line.get("html_url"),
                }
            )
    return (
        pl.DataFrame(threads, schema=RAW_GITHUB_THREADS.schema),
        pl.DataFrame(comments, schema=RAW_GITHUB_COMMENTS.schema),
    )


def empty_threads() -> pl.DataFrame:
    return pl.DataFrame(schema=RAW_GITHUB_THREADS.schema)


def empty_comments() -> pl.DataFrame:
    return pl.DataFrame(schema=RAW_GITHUB_COMMENTS.schema)
