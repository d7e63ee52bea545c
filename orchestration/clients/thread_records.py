"""Issue, pull-request and comment records of the frameworks, as polars frames.

Two sources feed the same two schemas: the GitHub REST API (`/issues` and
`/issues/comments` items, full text) and the recorded snapshot threads (tokens of the
text only, dates without times). Later stages match `body` and `body_tokens` alike, so
each source fills what it knows and leaves the rest null (or an empty token list).

An API item that cannot be read (not an object, no number or id, a field of the wrong
type, a time that is no time, an unknown state) is not a row: it goes to the quarantine
rows (raw.quarantine) with the reason and its JSON, keyed by `owner/name#number` (or
`owner/name comment id`) where that much can be read, so nothing is lost and the next
refresh that reads it whole replaces it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

import polars as pl
from orchestration.tables import RAW_GITHUB_COMMENTS, RAW_GITHUB_THREADS, RAW_QUARANTINE

_UTC_TIME = pl.Datetime("us", "UTC")

#: raw.quarantine `source` of the API items that could not be read.
THREADS_SOURCE = "github_threads"
COMMENTS_SOURCE = "github_comments"

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


class BadRecord(ValueError):
    """One API item cannot be stored; the message is the reason quarantined with it."""


def _field(item: Mapping[str, Any], name: str, kind: type, *, required: bool = False) -> Any:
    """`item[name]` when it is a `kind` (or null, unless `required`); else BadRecord."""
    value = item.get(name)
    if value is None:
        if required:
            raise BadRecord(f"no {name}")
        return None
    # JSON true/false are ints to Python: never a number, count or id.
    if not isinstance(value, kind) or isinstance(value, bool):
        raise BadRecord(f"{name} {_shown(value)}: not {_KIND_NAMES[kind]}")
    if isinstance(value, str) and not is_unicode(value):
        raise BadRecord(f"{name} {_shown(value)}: not valid Unicode (a lone surrogate)")
    return value


_KIND_NAMES = {str: "text", int: "an integer", dict: "an object", list: "a list"}


def is_unicode(text: str) -> bool:
    """Whether `text` can be stored (UTF-8): JSON's `\\ud800` escapes decode to lone
    surrogates, which no column can hold."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def raw_json(value: Any) -> str:
    """`value` as JSON text that can be stored: readable, and ASCII-escaped only where it
    holds text that is not valid Unicode."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if is_unicode(text) else json.dumps(value, ensure_ascii=True, sort_keys=True, default=str)


def _shown(value: Any) -> str:
    text = raw_json(value)
    return text if len(text) <= 60 else text[:59] + "…"


def _positive(item: Mapping[str, Any], name: str) -> int:
    value = _field(item, name, int, required=True)
    if value <= 0 or value >= 2**63:
        raise BadRecord(f"{name} {value}: not a positive 64-bit integer")
    return value


def _time(item: Mapping[str, Any], name: str, *, required: bool = False) -> datetime | None:
    value = _field(item, name, str, required=required)
    if value is None:
        return None
    try:
        moment = parse_time(value)
    except (ValueError, OverflowError):
        raise BadRecord(f"{name} {_shown(value)}: not an ISO-8601 time") from None
    if moment is None and required:
        raise BadRecord(f"no {name}")
    return moment


def _user_login(item: Mapping[str, Any]) -> str | None:
    user = _field(item, "user", dict)
    return _field(user, "login", str) if user is not None else None


def _labels(item: Mapping[str, Any]) -> list[str]:
    labels = _field(item, "labels", list) or []
    names = _label_names(labels)
    if not all(isinstance(label, (str, dict)) for label in labels) or not all(map(is_unicode, names)):
        raise BadRecord(f"labels {_shown(labels)}: not a list of labels")
    return names


def _thread_row(item: Any, framework: str) -> dict:
    """The RAW_GITHUB_THREADS row of one `/issues` item; BadRecord where it cannot be read.

    The issues list holds pull requests too: they carry a `pull_request` object, whose
    `merged_at` (when set) makes the state "merged".
    """
    if not isinstance(item, Mapping):
        raise BadRecord(f"not a JSON object: {_shown(item)}")
    number = _positive(item, "number")
    pull = _field(item, "pull_request", dict)
    merged_at = _time(pull, "merged_at") if pull is not None else None
    state = _field(item, "state", str, required=True)
    if state not in ("open", "closed"):
        raise BadRecord(f"state {_shown(state)}: not open or closed")
    comment_count = _field(item, "comments", int)
    if comment_count is not None and comment_count < 0:
        raise BadRecord(f"comments {comment_count}: a negative count")
    return {
        "framework": framework,
        "number": number,
        "kind": "pull_request" if pull is not None else "issue",
        "title": _field(item, "title", str),
        "body": _field(item, "body", str),
        "body_tokens": [],
        # The API returns the whole description (null when empty): nothing is cut off.
        "body_complete": True,
        "state": "merged" if merged_at is not None else state,
        "author": _user_login(item),
        "author_association": _field(item, "author_association", str),
        "labels": _labels(item),
        "created_at": _time(item, "created_at", required=True),
        "updated_at": _time(item, "updated_at", required=True),
        "closed_at": _time(item, "closed_at"),
        "merged_at": merged_at,
        "comment_count": comment_count or 0,
        "html_url": _field(item, "html_url", str),
    }


def _comment_row(item: Any, framework: str) -> dict:
    """The RAW_GITHUB_COMMENTS row of one `/issues/comments` item; BadRecord where it cannot be read.

    That endpoint lists the conversation comments of issues and pull requests alike;
    the thread is the number at the end of `issue_url`.
    """
    if not isinstance(item, Mapping):
        raise BadRecord(f"not a JSON object: {_shown(item)}")
    issue_url = _field(item, "issue_url", str, required=True)
    try:
        thread_number = thread_number_from_issue_url(issue_url)
    except ValueError as error:
        raise BadRecord(str(error)) from None
    if not 0 < thread_number < 2**63:
        raise BadRecord(f"issue_url {_shown(issue_url)}: no issue number")
    return {
        "framework": framework,
        "comment_id": _positive(item, "id"),
        "thread_number": thread_number,
        "kind": "comment",
        "author": _user_login(item),
        "author_association": _field(item, "author_association", str),
        "created_at": _time(item, "created_at", required=True),
        "updated_at": _time(item, "updated_at", required=True),
        "body": _field(item, "body", str),
        "body_tokens": [],
        "html_url": _field(item, "html_url", str),
    }


def thread_ref(repo: str, number: int) -> str:
    """raw.quarantine `source_ref` of a thread: `owner/name#123`."""
    return f"{repo}#{number}"


def comment_ref(repo: str, comment_id: int) -> str:
    """raw.quarantine `source_ref` of a comment: `owner/name comment 456`."""
    return f"{repo} comment {comment_id}"


@dataclass(frozen=True)
class ApiRecords:
    """The items of one list answer, read: the rows (one per key, the latest) and the
    quarantined items. `received` = rows + `superseded` (older copies of a key seen twice
    while paging) + quarantined items."""

    rows: pl.DataFrame
    quarantine: pl.DataFrame  # RAW_QUARANTINE.schema
    received: int
    superseded: int

    def refs(self, ref: Callable[[int], str], key: str) -> list[str]:
        """The quarantine keys of the rows read and of the items quarantined: the stored
        quarantine rows they replace."""
        return [ref(value) for value in self.rows[key].to_list()] + self.quarantine["source_ref"].to_list()


def _records(
    items: list[Any],
    framework: str,
    repo: str,
    source: str,
    row_of: Callable[[Any, str], dict],
    schema: dict[str, pl.DataType],
    key: str,
    key_field: str,
    ref: Callable[[str, int], str],
) -> ApiRecords:
    rows, quarantined = [], []
    for item in items:
        try:
            rows.append(row_of(item, framework))
        except BadRecord as reason:
            raw_text = raw_json(item)
            readable_key = item.get(key_field) if isinstance(item, Mapping) else None
            if isinstance(readable_key, int) and not isinstance(readable_key, bool):
                source_ref = ref(repo, readable_key)
            else:  # no key to replace it by later: its content is its name
                source_ref = f"{repo} {source} item sha256:{hashlib.sha256(raw_text.encode()).hexdigest()[:16]}"
            quarantined.append(
                {"source": source, "source_ref": source_ref, "reason": str(reason), "raw_text": raw_text, "framework": framework}
            )
    frame = _latest_per_key(pl.DataFrame(rows, schema=schema), key)
    quarantine = pl.DataFrame(quarantined, schema=RAW_QUARANTINE.schema).unique("source_ref", keep="last", maintain_order=True)
    return ApiRecords(frame, quarantine, received=len(items), superseded=len(rows) - frame.height + len(quarantined) - quarantine.height)


def thread_records(items: list[Any], framework: str, repo: str) -> ApiRecords:
    """The threads (RAW_GITHUB_THREADS.schema) of `/repos/{repo}/issues` items, and the
    items that cannot be read, quarantined."""
    return _records(items, framework, repo, THREADS_SOURCE, _thread_row, RAW_GITHUB_THREADS.schema, "number", "number", thread_ref)


def comment_records(items: list[Any], framework: str, repo: str) -> ApiRecords:
    """The comments (RAW_GITHUB_COMMENTS.schema) of `/repos/{repo}/issues/comments`
    items, and the items that cannot be read, quarantined."""
    return _records(items, framework, repo, COMMENTS_SOURCE, _comment_row, RAW_GITHUB_COMMENTS.schema, "comment_id", "id", comment_ref)


def empty_quarantine() -> pl.DataFrame:
    return RAW_QUARANTINE.empty()


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
