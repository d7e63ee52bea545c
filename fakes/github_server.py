"""A fake GitHub REST API on 127.0.0.1: the two list endpoints the tracker reads.

Serves `/repos/{owner}/{repo}/issues` and `/repos/{owner}/{repo}/issues/comments` from
in-memory fixtures, the way GitHub does: `since` (updated_at >= since), `sort`,
`direction`, `state`, `per_page` (at most 100) and `page` with a `Link` header, an ETag
on every 200 and 304 Not Modified when `If-None-Match` matches, and the
`x-ratelimit-*` headers. Faults queued by the test (5xx, primary and secondary rate
limits, a plain-text 429, connection resets, slow answers (a stall, past the client's
timeout), truncated bodies, empty pages, a spent quota) are applied to the next matching
requests, in order. With `fixtures.random_faults` (`RandomFaults(fault_mix(...),
rate=0.3, seed=1)`) every other request fails at random, seeded, and the faults applied
are counted. Every request is recorded.

From a test or a script:

    fixtures = synthetic_fixtures(["volcengine/verl"])
    with running_fake_github(fixtures) as base_url:
        ...  # GithubClient(base_url)

or `python fakes/github_server.py` to serve synthetic data of the seven
frameworks until interrupted.
"""

from __future__ import annotations

import hashlib
import json
import socket
import struct
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit

from fakes.serving import FAKE_HOST, RandomFaults, serving

MAX_PER_PAGE = 100
DEFAULT_PER_PAGE = 30
SECONDARY_MESSAGE = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."

FaultKind = Literal[
    "status", "primary", "secondary", "plain_429", "reset", "slow", "truncated", "empty_page", "spent", "normal"
]


@dataclass
class Fault:
    """What to do to one request instead of (or before) answering it normally."""

    kind: FaultKind
    status: int = 500
    retry_after: int | None = None
    reset_in_s: float = 1.0
    delay_s: float = 0.0
    #: Applies only to requests whose path contains this (None: to the next request).
    path: str | None = None

    @classmethod
    def server_error(cls, status: int = 500, path: str | None = None) -> Fault:
        return cls("status", status=status, path=path)

    @classmethod
    def primary_limit(cls, reset_in_s: float = 1.0, status: int = 403, path: str | None = None) -> Fault:
        """403 "API rate limit exceeded" with `x-ratelimit-remaining: 0`."""
        return cls("primary", status=status, reset_in_s=reset_in_s, path=path)

    @classmethod
    def secondary_limit(cls, retry_after: int | None = None, status: int = 403, path: str | None = None) -> Fault:
        """403 (or 429) "secondary rate limit", with or without `Retry-After`."""
        return cls("secondary", status=status, retry_after=retry_after, path=path)

    @classmethod
    def connection_reset(cls, path: str | None = None) -> Fault:
        """Close the socket (RST) without answering."""
        return cls("reset", path=path)

    @classmethod
    def slow(cls, delay_s: float, path: str | None = None) -> Fault:
        """Answer normally after `delay_s` seconds."""
        return cls("slow", delay_s=delay_s, path=path)

    @classmethod
    def spent_quota(cls, reset_in_s: float = 1.0, path: str | None = None) -> Fault:
        """Answer normally, but report `x-ratelimit-remaining: 0` until `reset_in_s`."""
        return cls("spent", reset_in_s=reset_in_s, path=path)

    @classmethod
    def plain_429(cls, path: str | None = None) -> Fault:
        """429 with a plain-text body and no Retry-After (a proxy in front of the API)."""
        return cls("plain_429", status=429, path=path)

    @classmethod
    def truncated(cls, path: str | None = None) -> Fault:
        """A 200 whose JSON body stops half-way."""
        return cls("truncated", path=path)

    @classmethod
    def empty_page(cls, path: str | None = None) -> Fault:
        """A 200 with no items but the page's Link header. Applied only to a page of a list
        of several pages: on a one-page list an empty answer would be an empty list."""
        return cls("empty_page", path=path)

    @classmethod
    def normal(cls, path: str | None = None) -> Fault:
        """Answer normally: a placeholder so that the next fault hits a later request."""
        return cls("normal", path=path)

    @property
    def label(self) -> str:
        if self.kind in ("status", "plain_429"):
            return f"{self.status}" + (" plain text" if self.kind == "plain_429" else "")
        if self.kind == "secondary":
            return f"{self.status} secondary limit" + (" Retry-After" if self.retry_after is not None else "")
        if self.kind == "primary":
            return f"{self.status} primary limit"
        return {"slow": "stall", "reset": "connection reset"}.get(self.kind, self.kind.replace("_", " "))


def fault_mix(*, stall_s: float, retry_after_s: int = 1, reset_in_s: float = 0.0) -> list[Fault]:
    """One of each fault GitHub (or the way to it) is known for, for `RandomFaults`: a
    plain-text 429; 403 and 429 secondary limits with and without Retry-After; a 403
    primary limit resetting in `reset_in_s`; 500, 502, 503; a reset connection; a stall of
    `stall_s` (longer than the client's timeout: a read timeout); a truncated body; an
    empty page."""
    return [
        Fault.plain_429(),
        Fault.secondary_limit(status=403),
        Fault.secondary_limit(retry_after=retry_after_s, status=403),
        Fault.secondary_limit(status=429),
        Fault.secondary_limit(retry_after=retry_after_s, status=429),
        Fault.primary_limit(reset_in_s=reset_in_s),
        Fault.server_error(500),
        Fault.server_error(502),
        Fault.server_error(503),
        Fault.connection_reset(),
        Fault.slow(stall_s),
        Fault.truncated(),
        Fault.empty_page(),
    ]


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]  # lower-case names

    @property
    def url_path_and_query(self) -> str:
        return self.path + ("?" + urlencode(self.query) if self.query else "")


@dataclass
class GithubFixtures:
    """The fake server's state: repositories' items, queued faults, recorded requests."""

    issues: dict[str, list[dict]] = field(default_factory=dict)  # "owner/name" -> /issues items
    comments: dict[str, list[dict]] = field(default_factory=dict)  # "owner/name" -> /issues/comments items
    faults: list[Fault] = field(default_factory=list)
    random_faults: RandomFaults[Fault] | None = None
    requests: list[RecordedRequest] = field(default_factory=list)
    rate_limit: int = 5000
    rate_used: int = 0
    rate_reset: int = field(default_factory=lambda: int(time.time()) + 3600)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add_repo(self, repo: str) -> None:
        self.issues.setdefault(repo, [])
        self.comments.setdefault(repo, [])

    def add_issues(self, repo: str, *items: dict) -> None:
        with self.lock:
            self.add_repo(repo)
            self.issues[repo].extend(items)

    def add_comments(self, repo: str, *items: dict) -> None:
        with self.lock:
            self.add_repo(repo)
            self.comments[repo].extend(items)

    def update_issue(self, repo: str, number: int, **changes: Any) -> None:
        with self.lock:
            for item in self.issues[repo]:
                if item["number"] == number:
                    item.update(changes)
                    return
        raise KeyError(f"{repo}#{number}")

    def queue(self, *faults: Fault) -> None:
        with self.lock:
            self.faults.extend(faults)

    def take_fault(self, path: str) -> Fault | None:
        with self.lock:
            for index, fault in enumerate(self.faults):
                if fault.path is None or fault.path in path:
                    return self.faults.pop(index)
        return self.random_faults.draw() if self.random_faults else None

    def applied(self, fault: Fault) -> None:
        """Count `fault` as injected, where it was drawn at random."""
        if self.random_faults is not None:
            self.random_faults.record(fault)

    def record(self, request: RecordedRequest) -> None:
        with self.lock:
            self.requests.append(request)

    def requests_to(self, path_part: str = "") -> list[RecordedRequest]:
        with self.lock:
            return [r for r in self.requests if path_part in r.path]

    def clear_requests(self) -> None:
        with self.lock:
            self.requests.clear()

    def repo_items(self, repo: str, endpoint: Literal["issues", "comments"]) -> list[dict] | None:
        table = self.issues if endpoint == "issues" else self.comments
        with self.lock:
            for name, items in table.items():
                if name.lower() == repo.lower():  # GitHub ignores the case of owner/name
                    return [dict(item) for item in items]
        return None


# -- item builders ----------------------------------------------------------------------


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def issue_item(
    repo: str,
    number: int,
    *,
    updated_at: datetime,
    created_at: datetime | None = None,
    title: str | None = None,
    body: str | None = "",
    state: Literal["open", "closed"] = "open",
    user: str | None = "alice",
    author_association: str = "NONE",
    labels: Iterable[str] = (),
    comments: int = 0,
    closed_at: datetime | None = None,
    pull_request: bool = False,
    merged_at: datetime | None = None,
) -> dict:
    """An item of `GET /repos/{owner}/{repo}/issues`, with the fields GitHub sends that matter here."""
    created_at = created_at or updated_at
    kind = "pull" if pull_request else "issues"
    item: dict[str, Any] = {
        "url": f"https://api.github.com/repos/{repo}/issues/{number}",
        "html_url": f"https://github.com/{repo}/{kind}/{number}",
        "id": 10_000_000 + number,
        "number": number,
        "title": title if title is not None else f"Thread {number}",
        "user": {"login": user, "type": "User"} if user else None,
        "labels": [{"name": name, "color": "ededed"} for name in labels],
        "state": state,
        "comments": comments,
        "created_at": iso(created_at),
        "updated_at": iso(updated_at),
        "closed_at": iso(closed_at) if closed_at else None,
        "author_association": author_association,
        "body": body,
    }
    if pull_request:
        item["pull_request"] = {
            "url": f"https://api.github.com/repos/{repo}/pulls/{number}",
            "html_url": f"https://github.com/{repo}/pull/{number}",
            "merged_at": iso(merged_at) if merged_at else None,
        }
    return item


def comment_item(
    repo: str,
    comment_id: int,
    issue_number: int,
    *,
    updated_at: datetime,
    created_at: datetime | None = None,
    body: str | None = "LGTM",
    user: str | None = "bob",
    author_association: str = "MEMBER",
) -> dict:
    """An item of `GET /repos/{owner}/{repo}/issues/comments`."""
    return {
        "url": f"https://api.github.com/repos/{repo}/issues/comments/{comment_id}",
        "html_url": f"https://github.com/{repo}/issues/{issue_number}#issuecomment-{comment_id}",
        "issue_url": f"https://api.github.com/repos/{repo}/issues/{issue_number}",
        "id": comment_id,
        "user": {"login": user, "type": "User"} if user else None,
        "created_at": iso(created_at or updated_at),
        "updated_at": iso(updated_at),
        "author_association": author_association,
        "body": body,
    }


def synthetic_fixtures(
    repos: Iterable[str],
    *,
    threads_per_repo: int = 120,
    comments_per_thread: int = 2,
    start: datetime = datetime(2025, 1, 1, tzinfo=UTC),
    step: timedelta = timedelta(hours=7),
) -> GithubFixtures:
    """Deterministic issues, pull requests (every third, half of them merged) and comments."""
    fixtures = GithubFixtures()
    for repo_index, repo in enumerate(repos):
        fixtures.add_repo(repo)
        comment_id = (repo_index + 1) * 10_000_000
        for number in range(1, threads_per_repo + 1):
            created = start + step * number
            updated = created + timedelta(hours=3)
            pull = number % 3 == 0
            merged = pull and number % 2 == 0
            closed = merged or number % 5 == 0
            fixtures.add_issues(
                repo,
                issue_item(
                    repo,
                    number,
                    created_at=created,
                    updated_at=updated,
                    title=f"{'Add' if pull else 'Support'} method {number} (arXiv:2501.{number:05d})",
                    body=f"Proposal {number}: see https://arxiv.org/abs/2501.{number:05d}",
                    state="closed" if closed else "open",
                    user=f"user{number % 7}",
                    labels=["enhancement"] if number % 4 == 0 else [],
                    comments=comments_per_thread,
                    closed_at=updated if closed else None,
                    pull_request=pull,
                    merged_at=updated if merged else None,
                ),
            )
            for position in range(comments_per_thread):
                comment_id += 1
                at = created + timedelta(minutes=10 * (position + 1))
                fixtures.add_comments(repo, comment_item(repo, comment_id, number, updated_at=at, user=f"maint{position}"))
    return fixtures


# -- the server -------------------------------------------------------------------------


def _parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as GitHub: resets then hit pooled connections too
    server: _FakeGithubServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read `requests`
        pass

    def do_GET(self) -> None:
        fixtures = self.server.fixtures
        parts = urlsplit(self.path)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        fixtures.record(
            RecordedRequest("GET", parts.path, query, {name.lower(): value for name, value in self.headers.items()})
        )
        fault = fixtures.take_fault(parts.path)
        spent_until: int | None = None
        if fault is not None and fault.kind not in ("truncated", "empty_page", "normal"):
            fixtures.applied(fault)
            if fault.kind == "reset":
                # SO_LINGER 0: close() sends RST, the client sees a reset without an answer.
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.close_connection = True
                self.connection.close()
                return
            if fault.kind == "slow":
                time.sleep(fault.delay_s)
            elif fault.kind == "status":
                self._json(fault.status, {"message": "Server Error" if fault.status == 500 else "Bad Gateway or Unavailable"})
                return
            elif fault.kind == "plain_429":
                self._send(429, b"Rate exceeded.", {"Content-Type": "text/plain"})
                return
            elif fault.kind == "primary":
                reset = int(time.time() + fault.reset_in_s)
                message = "API rate limit exceeded for 127.0.0.1. (But here's the good news: Authenticated requests get a higher rate limit.)"
                self._json(fault.status, {"message": message}, remaining=0, reset=reset)
                return
            elif fault.kind == "secondary":
                extra = {"Retry-After": str(fault.retry_after)} if fault.retry_after is not None else {}
                self._json(fault.status, {"message": SECONDARY_MESSAGE}, extra=extra)
                return
            elif fault.kind == "spent":
                spent_until = int(time.time() + fault.reset_in_s)

        segments = parts.path.strip("/").split("/")
        if len(segments) == 4 and segments[0] == "repos" and segments[3] == "issues":
            endpoint: Literal["issues", "comments"] = "issues"
        elif len(segments) == 5 and segments[0] == "repos" and segments[3:] == ["issues", "comments"]:
            endpoint = "comments"
        else:
            self._json(404, {"message": "Not Found"})
            return
        items = fixtures.repo_items(f"{segments[1]}/{segments[2]}", endpoint)
        if items is None:
            self._json(404, {"message": "Not Found"})
            return
        try:
            page_items, links = self._page(items, endpoint, query, parts.path)
        except ValueError as error:
            self._json(422, {"message": f"Validation Failed: {error}"})
            return
        body = json.dumps(page_items).encode()
        etag = f'W/"{hashlib.sha1(body).hexdigest()}"'
        headers = {"ETag": etag}
        if links:
            headers["Link"] = ", ".join(f'<{url}>; rel="{rel}"' for rel, url in links.items())
        if self.headers.get("If-None-Match") == etag:
            # GitHub does not count a 304 against the quota.
            self._send(304, b"", headers, count=False, remaining=0 if spent_until else None, reset=spent_until)
            return
        if fault is not None and fault.kind == "truncated":
            fixtures.applied(fault)
            body = body[: len(body) // 2]
        elif fault is not None and fault.kind == "empty_page" and links and page_items:
            fixtures.applied(fault)
            body = b"[]"
            headers["ETag"] = f'W/"{hashlib.sha1(body).hexdigest()}"'
        self._send(200, body, headers, remaining=0 if spent_until else None, reset=spent_until)

    def _page(self, items: list[dict], endpoint: str, query: dict[str, str], path: str) -> tuple[list[dict], dict[str, str]]:
        if endpoint == "issues" and query.get("state", "open") != "all":
            wanted = query.get("state", "open")
            items = [item for item in items if item["state"] == wanted]
        if since := query.get("since"):
            moment = _parse_time(since)
            items = [item for item in items if _parse_time(item["updated_at"]) >= moment]
        sort = query.get("sort", "created")
        if sort not in ("created", "updated"):
            raise ValueError(f"sort={sort}")
        default_direction = "desc" if endpoint == "issues" else "asc"
        descending = query.get("direction", default_direction) == "desc"
        # Ties broken by id, as a database would, so that pages are stable.
        items.sort(key=lambda item: (item[f"{sort}_at"], item["id"]), reverse=descending)
        per_page = min(int(query.get("per_page", DEFAULT_PER_PAGE)), MAX_PER_PAGE)
        page = int(query.get("page", 1))
        if per_page < 1 or page < 1:
            raise ValueError("per_page and page must be positive")
        last = max(1, -(-len(items) // per_page))
        host = self.headers.get("Host", f"{FAKE_HOST}:{self.server.server_address[1]}")

        def page_url(number: int) -> str:
            return f"http://{host}{path}?{urlencode({**query, 'page': number})}"

        links = {}
        if page < last:
            links["next"] = page_url(page + 1)
            links["last"] = page_url(last)
        if page > 1:
            links["first"] = page_url(1)
            links["prev"] = page_url(min(page - 1, last))
        return items[(page - 1) * per_page : page * per_page], links

    def _json(self, status: int, payload: dict, *, remaining: int | None = None, reset: int | None = None, extra: dict | None = None) -> None:
        payload = {**payload, "documentation_url": "https://docs.github.com/rest", "status": str(status)}
        self._send(status, json.dumps(payload).encode(), extra or {}, remaining=remaining, reset=reset)

    def _send(
        self,
        status: int,
        body: bytes,
        headers: dict[str, str],
        *,
        count: bool = True,
        remaining: int | None = None,
        reset: int | None = None,
    ) -> None:
        fixtures = self.server.fixtures
        with fixtures.lock:
            if count:
                fixtures.rate_used += 1
            limit = fixtures.rate_limit if "authorization" in {k.lower() for k in self.headers} else 60
            left = max(limit - fixtures.rate_used, 0) if remaining is None else remaining
            reset_at = fixtures.rate_reset if reset is None else reset
            used = fixtures.rate_used
        self.send_response(status)
        if "Content-Type" not in headers:
            self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("x-ratelimit-limit", str(limit))
        self.send_header("x-ratelimit-remaining", str(left))
        self.send_header("x-ratelimit-reset", str(reset_at))
        self.send_header("x-ratelimit-used", str(used))
        self.send_header("x-ratelimit-resource", "core")
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if body:
            self.wfile.write(body)


class _FakeGithubServer(ThreadingHTTPServer):
    daemon_threads = True  # a slow answer must not hold up shutdown

    def __init__(self, fixtures: GithubFixtures) -> None:
        super().__init__((FAKE_HOST, 0), _Handler)
        self.fixtures = fixtures

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Faults break connections on purpose (resets, clients timing out): not errors.
        pass


@contextmanager
def running_fake_github(fixtures: GithubFixtures | None = None) -> Iterator[str]:
    """Serve `fixtures` on a free port of 127.0.0.1; yields the base URL (no trailing slash)."""
    with serving(_FakeGithubServer(fixtures if fixtures is not None else GithubFixtures())) as base_url:
        yield base_url


if __name__ == "__main__":
    from orchestration.settings import frameworks

    with running_fake_github(synthetic_fixtures(f.repo for f in frameworks())) as url:
        print(f"fake GitHub API at {url} (GITHUB_API_URL={url}); Ctrl-C stops it", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
