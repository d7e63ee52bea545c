"""Thread and comment records: GitHub API items and snapshot lines into the two schemas."""

from datetime import UTC, datetime

import polars as pl
import pytest

from orchestration.clients.thread_records import comment_records, snapshot_comment_id, snapshot_thread_frames, thread_number_from_issue_url, thread_records
from fakes.github_server import comment_item, issue_item
from orchestration.tables import RAW_GITHUB_COMMENTS, RAW_GITHUB_THREADS

REPO = "acme/rl"
T0 = datetime(2025, 3, 1, 12, 30, tzinfo=UTC)


def threads_from_api(items: list[dict], framework: str) -> pl.DataFrame:
    records = thread_records(items, framework, REPO)
    assert records.quarantine.is_empty()
    return records.rows


def comments_from_api(items: list[dict], framework: str) -> pl.DataFrame:
    records = comment_records(items, framework, REPO)
    assert records.quarantine.is_empty()
    return records.rows


def test_schemas_have_the_contract_columns_in_order():
    assert list(RAW_GITHUB_THREADS.schema) == [
        "framework", "number", "kind", "title", "body", "body_tokens", "body_complete", "state", "author",
        "author_association", "labels", "created_at", "updated_at", "closed_at", "merged_at", "comment_count",
        "html_url",
    ]  # fmt: skip
    assert list(RAW_GITHUB_COMMENTS.schema) == [
        "framework", "comment_id", "thread_number", "kind", "author", "author_association", "created_at",
        "updated_at", "body", "body_tokens", "html_url",
    ]  # fmt: skip
    assert RAW_GITHUB_THREADS.schema["created_at"] == pl.Datetime("us", "UTC")


def test_issue_pull_request_and_merged_pull_request_are_told_apart():
    items = [
        issue_item(REPO, 1, updated_at=T0, title="GRPO diverges", labels=["bug", "help wanted"], comments=3,
                   user="carol", author_association="CONTRIBUTOR", body="loss is nan"),
        issue_item(REPO, 2, updated_at=T0, state="closed", closed_at=T0, pull_request=True),
        issue_item(REPO, 3, updated_at=T0, state="closed", closed_at=T0, pull_request=True, merged_at=T0),
        issue_item(REPO, 4, updated_at=T0, pull_request=True),
    ]  # fmt: skip
    threads = threads_from_api(items, "acme")
    assert threads.schema == pl.Schema(RAW_GITHUB_THREADS.schema)
    rows = {row["number"]: row for row in threads.iter_rows(named=True)}
    assert rows[1]["kind"] == "issue" and rows[1]["state"] == "open"
    assert rows[1]["labels"] == ["bug", "help wanted"]
    assert rows[1]["author"] == "carol" and rows[1]["author_association"] == "CONTRIBUTOR"
    assert rows[1]["comment_count"] == 3 and rows[1]["body"] == "loss is nan"
    assert rows[1]["body_tokens"] == [] and rows[1]["body_complete"] is True
    assert rows[1]["created_at"] == T0 and rows[1]["framework"] == "acme"
    assert rows[1]["html_url"] == f"https://github.com/{REPO}/issues/1"
    assert (rows[2]["kind"], rows[2]["state"], rows[2]["merged_at"]) == ("pull_request", "closed", None)
    assert (rows[3]["kind"], rows[3]["state"], rows[3]["merged_at"]) == ("pull_request", "merged", T0)
    assert rows[3]["closed_at"] == T0
    assert (rows[4]["kind"], rows[4]["state"]) == ("pull_request", "open")


def test_deleted_user_and_empty_body_are_null():
    threads = threads_from_api([issue_item(REPO, 9, updated_at=T0, user=None, body=None)], "acme")
    assert threads["author"].to_list() == [None] and threads["body"].to_list() == [None]


def test_an_item_seen_twice_while_paging_keeps_its_latest_version():
    older = issue_item(REPO, 5, updated_at=T0, title="old")
    newer = issue_item(REPO, 5, updated_at=datetime(2025, 3, 2, tzinfo=UTC), title="new")
    assert threads_from_api([older, newer], "acme")["title"].to_list() == ["new"]
    assert threads_from_api([newer, older], "acme")["title"].to_list() == ["new"]


def test_empty_lists_give_empty_frames_with_the_schema():
    assert threads_from_api([], "acme").schema == pl.Schema(RAW_GITHUB_THREADS.schema)
    assert comments_from_api([], "acme").schema == pl.Schema(RAW_GITHUB_COMMENTS.schema)


def test_comment_thread_number_comes_from_issue_url():
    items = [
        comment_item(REPO, 901, 12, updated_at=T0, body="see arXiv:2501.00001", user="dave"),
        comment_item(REPO, 902, 345, updated_at=T0, user=None),
    ]
    comments = comments_from_api(items, "acme")
    assert comments.schema == pl.Schema(RAW_GITHUB_COMMENTS.schema)
    assert comments["comment_id"].to_list() == [901, 902]
    assert comments["thread_number"].to_list() == [12, 345]
    assert comments["kind"].to_list() == ["comment", "comment"]
    assert comments["author"].to_list() == ["dave", None]
    assert comments["author_association"].to_list() == ["MEMBER", "MEMBER"]
    assert comments["updated_at"].to_list() == [T0, T0]
    assert comments["body"][0] == "see arXiv:2501.00001"


@pytest.mark.parametrize(
    ("url", "number"),
    [("https://api.github.com/repos/a/b/issues/123", 123), ("http://127.0.0.1:1/repos/a/b/issues/7/", 7)],
)
def test_thread_number_from_issue_url(url, number):
    assert thread_number_from_issue_url(url) == number


def test_thread_number_from_a_wrong_url_is_an_error():
    with pytest.raises(ValueError, match="not an issue URL"):
        thread_number_from_issue_url("https://api.github.com/repos/a/b/pulls/1")


SNAPSHOT_LINES = [
    {
        "repo": REPO, "number": 228, "kind": "pull_request", "state": "merged", "labels": [],
        "title": "implement a method", "author": "someone", "created_at": "2025-02-08",
        "html_url": f"https://github.com/{REPO}/pull/228", "body_tokens": ["GRPO", "PPO"], "body_complete": False,
        "comments": [
            {"author": "maint", "created_at": "2025-02-08", "kind": "review thread", "body_tokens": ["fix"]},
            {"author": "someone", "created_at": "2025-02-09", "kind": "comment", "body_tokens": ["done"]},
        ],
    },
    {
        "repo": REPO, "number": 7, "kind": "issue", "state": "open", "labels": ["bug"], "title": "nan loss",
        "author": None, "created_at": None, "html_url": f"https://github.com/{REPO}/issues/7",
        "body_tokens": [], "body_complete": True, "comments": [],
    },
]  # fmt: skip


def test_snapshot_lines_become_threads_and_comments():
    threads, comments = snapshot_thread_frames(SNAPSHOT_LINES, "acme")
    assert threads.schema == pl.Schema(RAW_GITHUB_THREADS.schema) and comments.schema == pl.Schema(RAW_GITHUB_COMMENTS.schema)
    pr, issue = threads.iter_rows(named=True)
    assert (pr["number"], pr["kind"], pr["state"], pr["comment_count"]) == (228, "pull_request", "merged", 2)
    assert pr["body"] is None and pr["body_tokens"] == ["GRPO", "PPO"] and pr["body_complete"] is False
    assert pr["created_at"] == datetime(2025, 2, 8, tzinfo=UTC)
    assert pr["updated_at"] is None and pr["merged_at"] is None and pr["author_association"] is None
    assert (issue["author"], issue["created_at"], issue["labels"], issue["comment_count"]) == (None, None, ["bug"], 0)
    assert comments["thread_number"].to_list() == [228, 228]
    assert comments["kind"].to_list() == ["review thread", "comment"]
    assert comments["body_tokens"].to_list() == [["fix"], ["done"]]
    assert comments["created_at"].to_list() == [datetime(2025, 2, 8, tzinfo=UTC), datetime(2025, 2, 9, tzinfo=UTC)]
    assert comments["html_url"].to_list() == [f"https://github.com/{REPO}/pull/228"] * 2


def test_snapshot_comment_ids_are_negative_unique_and_stable():
    _, first = snapshot_thread_frames(SNAPSHOT_LINES, "acme")
    _, again = snapshot_thread_frames(SNAPSHOT_LINES, "acme")
    ids = first["comment_id"].to_list()
    assert ids == again["comment_id"].to_list() == [snapshot_comment_id(228, 0), snapshot_comment_id(228, 1)]
    assert all(i < 0 for i in ids) and len(set(ids)) == 2
    # Distinct across threads and positions.
    assert len({snapshot_comment_id(n, p) for n in range(1, 50) for p in range(50)}) == 49 * 50
