"""Issues, pull requests and comments of the frameworks: the GitHub REST API, or a snapshot.

`GithubClient` is a small, polite REST client: conditional requests (ETags), `Link`
pagination (httpx's parsing), primary and secondary rate limits, and the retries of the
shared policy (orchestration/clients/http_retry.py) within a deadline per refresh. The
token lives only in the `Authorization` header: never in URLs, logs, errors or stored keys.

`ThreadSource` is what the assets call; `GithubApiThreads` reads the live API with
`since` watermarks, `SnapshotThreads` the recorded `<owner>__<repo>.threads.jsonl.gz`.
"""

from __future__ import annotations

import abc
import hashlib
import logging
import os
import time
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import polars as pl

from orchestration.clients.http_retry import Deadline, GaveUp, RetryableFault, RetryPolicy, retry_after_s
from orchestration.clients.thread_records import (
    comment_records,
    comment_ref,
    empty_comments,
    empty_quarantine,
    empty_threads,
    snapshot_thread_frames,
    thread_records,
    thread_ref,
)
from orchestration.clients.snapshot_files import gunzipped, json_lines
from orchestration.settings import Framework
from orchestration.tables import RAW_GITHUB_COMMENTS, RAW_GITHUB_THREADS

_log = logging.getLogger(__name__)

DEFAULT_API_URL = "https://api.github.com"
API_VERSION = "2022-11-28"
PER_PAGE = 100  # GitHub's maximum page size for lists

#: Upper bound of one connect attempt (the read timeout is `timeout_s`).
CONNECT_TIMEOUT_S = 5.0
_SNAPSHOT_HINT = "read recorded data with TRACKER_SNAPSHOT_DIR / --snapshot"

_RETRIED_STATUSES = frozenset({500, 502, 503, 504})

Logger = logging.Logger | logging.LoggerAdapter  # Dagster's context.log quacks alike


class GithubError(RuntimeError):
    """GitHub answered with an error (or not at all). The message names the status, the
    URL (never a token) and GitHub's own message."""

    def __init__(self, message: str, *, status: int | None = None, url: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.url = url


class RateLimitExceeded(GithubError):
    """A rate limit would need a longer wait than the configured maximum."""


class SourceUnavailableError(GithubError):
    """GitHub could not be reached (or kept failing) after bounded retries."""


def _header_int(response: httpx.Response, name: str) -> int | None:
    value = response.headers.get(name)
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _github_message(response: httpx.Response) -> str:
    """GitHub's `message` field (JSON errors), else the start of the body."""
    try:
        payload = response.json()
    except ValueError:
        return response.text[:200].strip() or response.reason_phrase
    if isinstance(payload, dict) and payload.get("message"):
        return str(payload["message"])
    return response.reason_phrase


def _next_url(response: httpx.Response) -> str | None:
    return response.links.get("next", {}).get("url")


@dataclass(frozen=True)
class _Answer:
    """A list page as received: 304 (no items) or 200 with its items and links."""

    status: int
    items: list[dict]
    next_url: str | None
    etag: str | None


def _utc_text(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


class GithubClient:
    """GET lists from the GitHub REST API, page by page, politely.

    `etags` maps a first-page URL (with its query) to the ETag of its last 200 answer;
    pass a persistent mapping to make the next run's unchanged lists cost one 304 each.
    `sleep` and `clock` are injectable so that tests need not wait.
    """

    def __init__(
        self,
        api_url: str = DEFAULT_API_URL,
        token: str | None = None,
        *,
        etags: MutableMapping[str, str] | None = None,
        max_rate_limit_wait_s: float = 900,
        secondary_wait_s: float = 60,
        max_retries: int = 5,
        backoff_s: float = 1.0,
        timeout_s: float = 30,
        deadline_minutes: float = 30,
        user_agent: str = "inclusion-tracker/0.1",
        log: Logger | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        base = httpx.URL(api_url.rstrip("/"))
        # Credentials in the URL would leak into every message that names it.
        self.api_url = str(base.copy_with(username=None, password=None))
        self._origin = (base.scheme, base.host, base.port)
        self._token = token or None
        self.etags: MutableMapping[str, str] = etags if etags is not None else {}
        self.max_rate_limit_wait_s = max_rate_limit_wait_s
        self.secondary_wait_s = secondary_wait_s
        self.timeout_s = timeout_s
        self.deadline_minutes = deadline_minutes
        self.log = log
        self.sleep = sleep
        self.clock = clock
        self.retry_policy = RetryPolicy(max_retries=max_retries, backoff_s=backoff_s, sleep=sleep)
        self.requests = 0
        self.not_modified = 0
        self._resume_at: float | None = None  # a 200 said "0 requests left": wait before the next
        self._answered = False  # has GitHub answered once in this client's life?
        self._warned_unauthenticated = False
        headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": user_agent,
        }
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        self._http = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, CONNECT_TIMEOUT_S)),
            transport=transport,
            follow_redirects=False,  # a redirect could carry the Authorization header elsewhere
        )

    def __repr__(self) -> str:
        return f"GithubClient({self.api_url!r}, authenticated={self._token is not None})"

    @property
    def retries(self) -> int:
        return self.retry_policy.retries

    def deadline(self) -> Deadline:
        """A new deadline of `deadline_minutes`: one per refresh."""
        return Deadline(self.deadline_minutes, self.clock, "deadline_minutes of the framework_sources resource")

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> GithubClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- public ------------------------------------------------------------------------

    def url(self, path: str, params: dict[str, Any] | None = None) -> str:
        """The full URL of `path` with `params` (the key of its ETag)."""
        clean = {k: v for k, v in (params or {}).items() if v is not None}
        return str(httpx.URL(self.api_url + "/" + path.lstrip("/"), params=clean))

    def get_pages(
        self, path: str, params: dict, *, log: Logger | None = None, deadline: Deadline | None = None
    ) -> list[dict] | None:
        """All items of a list endpoint, following `Link: rel="next"`; None when the first
        page answered 304 Not Modified to its stored ETag (nothing changed). Every request
        and wait ends by `deadline` (default: a new one of `deadline_minutes`)."""
        log = log or self.log or _log
        deadline = deadline or self.deadline()
        self._warn_if_unauthenticated(log)
        first_url = self.url(path, params)
        conditional = {"If-None-Match": self.etags[first_url]} if first_url in self.etags else {}
        answer = self._get(first_url, conditional, log, deadline, followed=False)
        if answer.status == 304:
            self.not_modified += 1
            return None
        items = answer.items
        per_page = int(params.get("per_page", 30))
        # Trust a first-page ETag only for a list that fits on one page with room to
        # spare: sorted by `updated` ascending, a change lands at the end, so a later
        # page (or a page that just overflowed) can change while page one stays equal.
        if answer.etag and answer.next_url is None and len(items) < per_page:
            self.etags[first_url] = answer.etag
        else:
            self.etags.pop(first_url, None)
        next_url = answer.next_url
        while next_url:
            url = self._same_origin(next_url)
            answer = self._get(url, {}, log, deadline, followed=True)
            if answer.status == 304:  # never asked conditionally: a confused server
                raise GithubError(f"GitHub 304 for an unconditional request: {url}", status=304, url=url)
            items.extend(answer.items)
            next_url = answer.next_url
        return items

    # -- internals ---------------------------------------------------------------------

    def _redact(self, text: str) -> str:
        return text.replace(self._token, "***") if self._token else text

    def _warn_if_unauthenticated(self, log: Logger) -> None:
        if self._token is None and not self._warned_unauthenticated:
            self._warned_unauthenticated = True
            log.warning(
                "GitHub: no token (GITHUB_TOKEN unset): unauthenticated requests are limited "
                "to 60 per hour; set GITHUB_TOKEN for 5,000"
            )

    def _same_origin(self, url: str) -> str:
        parsed = httpx.URL(url)
        if (parsed.scheme, parsed.host, parsed.port) != self._origin:
            # Following it would send the token to another host.
            raise GithubError(f"GitHub pagination link leaves {self.api_url}: {self._redact(str(parsed.copy_with(query=None)))}")
        return url

    def _items(self, response: httpx.Response, url: str) -> list[dict]:
        try:
            payload = response.json()
        except ValueError as error:  # cut off in transit
            raise RetryableFault(f"a {response.status_code} whose body is not JSON ({error})", status=response.status_code) from None
        if not isinstance(payload, list):
            raise GithubError(f"GitHub {response.status_code} for {url}: expected a list, got {type(payload).__name__}", status=response.status_code, url=url)
        return payload

    def _wait_for_quota(self, url: str, deadline: Deadline, log: Logger) -> None:
        """Before a request: wait for the reset a 200 announced with "0 requests left"."""
        if self._resume_at is None:
            return
        resume_at, self._resume_at = self._resume_at, None
        wait = resume_at - self.clock()
        if wait > self.max_rate_limit_wait_s:
            raise self._too_long(resume_at, url, None, "primary")
        if wait >= deadline.remaining():
            raise RateLimitExceeded(
                f"GitHub rate limit for {url} resets at {_utc_text(resume_at)} (in {wait:.0f} s), past this refresh's "
                f"deadline of {deadline.minutes:g} min; retry later, or raise {deadline.setting}",
                url=url,
            )
        if wait > 0:
            log.warning(f"GitHub: rate limit spent, resets at {_utc_text(resume_at)}; waiting {wait:.1f} s")
            self.sleep(wait)

    def _too_long(self, reset_at: float, url: str, status: int | None, what: str) -> RateLimitExceeded:
        wait = reset_at - self.clock()
        auth = (
            "the token's quota is spent"
            if self._token
            else "unauthenticated requests get 60 per hour: set GITHUB_TOKEN for 5,000"
        )
        return RateLimitExceeded(
            f"GitHub {what} rate limit for {url}: it resets at {_utc_text(reset_at)} (in {wait:.0f} s), "
            f"more than the allowed wait of {self.max_rate_limit_wait_s:.0f} s; {auth}, "
            "or raise max_rate_limit_wait_s",
            status=status,
            url=url,
        )

    def _attempt(
        self, url: str, headers: dict[str, str], deadline: Deadline, log: Logger, *, followed: bool, secondary_hits: list[int]
    ) -> _Answer:
        """One GET: the page, or RetryableFault for what asking again may cure. `secondary_hits`
        counts the secondary limits met by this logical GET (each asks for a longer pause)."""
        self._wait_for_quota(url, deadline, log)
        self.requests += 1
        timeout = deadline.timeout(self.timeout_s)
        try:
            response = self._http.get(
                url, headers=headers, timeout=httpx.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT_S))
            )
        except (httpx.ConnectError, httpx.ConnectTimeout) as error:
            detail = f"{type(error).__name__}: {self._redact(str(error)) or 'no detail'}"
            if not self._answered:  # nothing listens there, or no network: say so at once
                raise SourceUnavailableError(
                    f"cannot connect to GitHub at {url} ({detail}); check GITHUB_API_URL and the network, or {_SNAPSHOT_HINT}",
                    url=url,
                ) from None
            raise RetryableFault(detail) from None
        except httpx.TransportError as error:  # read timeouts, resets, broken responses
            raise RetryableFault(f"{type(error).__name__}: {self._redact(str(error)) or 'no detail'}") from None
        self._answered = True

        status = response.status_code
        if status in (200, 304):
            if _header_int(response, "x-ratelimit-remaining") == 0 and (reset := _header_int(response, "x-ratelimit-reset")):
                self._resume_at = reset + 1.0
            if status == 304:
                return _Answer(304, [], None, None)
            items, next_url = self._items(response, url), _next_url(response)
            if not items and (next_url or followed):
                # GitHub links pages from its count of the list: a linked page is never empty.
                raise RetryableFault("an empty page where the Link header promised items", status=status)
            return _Answer(200, items, next_url, response.headers.get("etag"))

        message = self._redact(_github_message(response))
        remaining = _header_int(response, "x-ratelimit-remaining")
        reset = _header_int(response, "x-ratelimit-reset")
        retry_after = retry_after_s(response.headers.get("retry-after"))

        if status in (403, 429) and remaining == 0:
            # Primary limit: the hourly quota is spent until `x-ratelimit-reset`.
            reset_at = (reset + 1.0) if reset is not None else self.clock() + self.secondary_wait_s
            if reset_at - self.clock() > self.max_rate_limit_wait_s:
                raise self._too_long(reset_at, url, status, "primary")
            raise RetryableFault(
                f"primary rate limit spent ({status}), resets at {_utc_text(reset_at)}",
                wait_s=max(reset_at - self.clock(), 1.0),
                status=status,
            )

        if status == 429 or (status == 403 and (retry_after is not None or "rate limit" in message.lower())):
            # Secondary limit (too many requests too fast): GitHub asks for at least
            # a minute's pause, longer each time it repeats.
            secondary_hits[0] += 1
            wait = max(retry_after or 0, self.secondary_wait_s) * 2 ** (secondary_hits[0] - 1)
            if wait > self.max_rate_limit_wait_s:
                raise RateLimitExceeded(
                    f"GitHub {status} for {url}: secondary rate limit ({message}) after {secondary_hits[0]} attempt(s); "
                    f"the next wait would be {wait:.0f} s (allowed: {self.max_rate_limit_wait_s:.0f} s); "
                    "make fewer concurrent requests, retry later, or raise max_rate_limit_wait_s",
                    status=status,
                    url=url,
                )
            raise RetryableFault(f"secondary rate limit ({status}: {message})", wait_s=wait, status=status)

        if status in _RETRIED_STATUSES:
            raise RetryableFault(f"HTTP {status}: {message}", status=status)

        hint = {
            401: "; the token is invalid or expired (GITHUB_TOKEN)",
            403: "; the token may lack access to this repository",
            404: "; check the repository name in orchestration/config/frameworks.toml",
        }.get(status, "")
        raise GithubError(f"GitHub {status} for {url}: {message}{hint}", status=status, url=url)

    def _get(self, url: str, headers: dict[str, str], log: Logger, deadline: Deadline, *, followed: bool) -> _Answer:
        """One page, retried by the shared policy: rate limits waited out, transient
        failures retried, all within `deadline`."""
        secondary_hits = [0]  # a repeated secondary limit asks for a longer pause each time
        try:
            return self.retry_policy.call(
                lambda: self._attempt(url, headers, deadline, log, followed=followed, secondary_hits=secondary_hits),
                deadline,
                what=f"GitHub {url}",
                log=log,
            )
        except GaveUp as gave_up:
            status = gave_up.fault.status
            if status in (403, 429):
                raise RateLimitExceeded(
                    f"GitHub {status} for {url}: still rate limited after {gave_up.summary}; make fewer concurrent "
                    "requests, retry later, or raise max_rate_limit_wait_s",
                    status=status,
                    url=url,
                ) from None
            raise SourceUnavailableError(
                f"GitHub request {url} failed: {gave_up.summary}; retry later, or {_SNAPSHOT_HINT}", status=status, url=url
            ) from None


# -- thread sources ---------------------------------------------------------------------


@dataclass
class ThreadBatch:
    """What one refresh of one framework's threads returned."""

    threads: pl.DataFrame  # RAW_GITHUB_THREADS.schema
    comments: pl.DataFrame  # RAW_GITHUB_COMMENTS.schema
    requests: int
    not_modified: int
    #: True when the frames are the framework's whole history (replace its rows), False
    #: for the changes since the watermarks (upsert by number / comment_id).
    complete_history: bool
    #: Items that could not be read (RAW_QUARANTINE.schema), and the quarantine keys
    #: (`source_ref`) this batch settles: its quarantined items' and its rows'.
    quarantine: pl.DataFrame = field(default_factory=empty_quarantine)
    settled_refs: list[str] = field(default_factory=list)
    #: Items received from the API (rows + older copies of a row + quarantined).
    received: int = 0
    retries: int = 0  # requests that repeated a failed one


class ThreadSource(abc.ABC):
    @abc.abstractmethod
    def refresh(
        self,
        framework: Framework,
        threads_since: datetime | None,
        comments_since: datetime | None,
        log: Logger | None = None,
    ) -> ThreadBatch:
        """Threads updated at or after `threads_since` and comments updated at or after
        `comments_since` (everything where None)."""


def watermark(max_updated_at: datetime | None, overlap: timedelta = timedelta(hours=1)) -> datetime | None:
    """The `since` of the next refresh: the newest stored update minus an overlap.

    The overlap re-reads recent items, so that an item updated while the last refresh
    paged (or with a clock skew) is not missed; upserts make the re-read harmless.
    """
    if max_updated_at is None:
        return None
    if max_updated_at.tzinfo is None:  # stored times are UTC
        max_updated_at = max_updated_at.replace(tzinfo=UTC)
    return max_updated_at - overlap


def since_param(moment: datetime | None) -> str | None:
    """`since` as GitHub wants it: ISO 8601 UTC, whole seconds (rounded down: inclusive)."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class GithubApiThreads(ThreadSource):
    """Threads and comments from the GitHub REST API, incrementally.

    Two list requests per refresh (more only where more than a page changed); with
    stored ETags an unchanged framework costs two 304s, which GitHub does not count
    against the rate limit.
    """

    def __init__(self, client: GithubClient) -> None:
        self.client = client

    def refresh(
        self,
        framework: Framework,
        threads_since: datetime | None,
        comments_since: datetime | None,
        log: Logger | None = None,
    ) -> ThreadBatch:
        log = log or _log
        requests, not_modified, retries = self.client.requests, self.client.not_modified, self.client.retries
        deadline = self.client.deadline()  # one for the refresh's two lists
        repo = f"/repos/{framework.owner}/{framework.name}"
        issues = self.client.get_pages(
            f"{repo}/issues",
            {"state": "all", "sort": "updated", "direction": "asc", "per_page": PER_PAGE, "since": since_param(threads_since)},
            log=log,
            deadline=deadline,
        )
        comments = self.client.get_pages(
            f"{repo}/issues/comments",
            {"sort": "updated", "direction": "asc", "per_page": PER_PAGE, "since": since_param(comments_since)},
            log=log,
            deadline=deadline,
        )
        read = [
            records(items or [], framework.slug, framework.repo)
            for records, items in ((thread_records, issues), (comment_records, comments))
        ]
        threads, comment_rows = read[0].rows, read[1].rows
        quarantine = pl.concat([r.quarantine for r in read])
        batch = ThreadBatch(
            threads=threads,
            comments=comment_rows,
            requests=self.client.requests - requests,
            not_modified=self.client.not_modified - not_modified,
            # Without watermarks both lists were read whole: they replace what is stored
            # (which also drops rows a snapshot load left behind).
            complete_history=threads_since is None and comments_since is None and issues is not None and comments is not None,
            quarantine=quarantine,
            settled_refs=read[0].refs(lambda n: thread_ref(framework.repo, n), "number")
            + read[1].refs(lambda n: comment_ref(framework.repo, n), "comment_id"),
            received=sum(r.received for r in read),
            retries=self.client.retries - retries,
        )
        log.info(
            f"GitHub {framework.repo}: {threads.height} thread(s) since {since_param(threads_since) or 'the start'}, "
            f"{comment_rows.height} comment(s) since {since_param(comments_since) or 'the start'}"
            + (f", {quarantine.height} unreadable item(s) quarantined" if quarantine.height else "")
            + f"; {batch.requests} request(s) ({batch.retries} retried), {batch.not_modified} not modified"
        )
        if quarantine.height:
            log.warning(
                f"GitHub {framework.repo}: {quarantine.height} item(s) could not be read and went to raw.quarantine, "
                f"e.g. {quarantine['source_ref'][0]}: {quarantine['reason'][0]}"
            )
        return batch


class SnapshotThreads(ThreadSource):
    """Threads recorded in `<snapshot_dir>/github/<owner>__<name>.threads.jsonl.gz`.

    A snapshot is a fixed sample, not a feed: a refresh returns all of it
    (`complete_history`), whatever the watermarks say, unless the file is the one loaded
    last time. `fingerprints` plays the part of the API's ETags: it maps the file's URI to
    the SHA-256 of its bytes at the last load, and an unchanged file returns nothing. A
    fingerprint is kept only after the file was read whole (gzip CRC, every line), so a
    truncated or corrupt file is never taken for the loaded one: it is read, and fails
    naming the file.
    """

    def __init__(
        self, snapshot_dir: str | os.PathLike[str], fingerprints: MutableMapping[str, str] | None = None
    ) -> None:
        self.snapshot_dir = Path(snapshot_dir)
        self.fingerprints: MutableMapping[str, str] = fingerprints if fingerprints is not None else {}

    def path(self, framework: Framework) -> Path:
        return self.snapshot_dir / "github" / f"{framework.snapshot_stem}.threads.jsonl.gz"

    def refresh(
        self,
        framework: Framework,
        threads_since: datetime | None,
        comments_since: datetime | None,
        log: Logger | None = None,
    ) -> ThreadBatch:
        log = log or _log
        github_dir = self.snapshot_dir / "github"
        if not github_dir.is_dir():
            raise FileNotFoundError(f"snapshot folder {github_dir} not found (TRACKER_SNAPSHOT_DIR / --snapshot)")
        path = self.path(framework)
        if not path.is_file():
            # Not every recorded repository has threads: none recorded means none.
            log.info(f"snapshot {path} not found: no threads recorded for {framework.repo}")
            return ThreadBatch(empty_threads(), empty_comments(), 0, 0, complete_history=True)
        content = path.read_bytes()
        key, fingerprint = path.resolve().as_uri(), hashlib.sha256(content).hexdigest()
        if self.fingerprints.get(key) == fingerprint:
            log.info(f"snapshot {path.name}: unchanged since the last load; nothing to upsert")
            return ThreadBatch(empty_threads(), empty_comments(), 0, 0, complete_history=False)
        threads, comments = snapshot_thread_frames(
            json_lines(path, gunzipped(path, content), required=("number", "kind")), framework.slug
        )
        self.fingerprints[key] = fingerprint
        log.info(f"snapshot {path.name}: {threads.height} thread(s), {comments.height} comment(s)")
        return ThreadBatch(threads, comments, 0, 0, complete_history=True)
