"""arXiv sources: the live API (httpx, polite and patient) and recorded responses on disk.

Both return an `ArxivFetch` for a window of days through the same parser
(`orchestration.clients.arxiv_feed.parse_feed`) and the same day filter, so a snapshot run fills the
warehouse exactly as the live harvest would.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Protocol

import httpx
import polars as pl

from orchestration.clients.arxiv_feed import (
    ArxivFeedError,
    FeedPage,
    empty_entries,
    empty_quarantine,
    parse_feed,
)
from orchestration.clients.http_retry import Deadline, GaveUp, Pacer, RetryableFault, RetryPolicy, raise_if_retryable_status
from orchestration.settings import ARXIV_MAX_PAGE_SIZE, ArxivQuery

USER_AGENT = "inclusion-tracker/0.1 (research metadata harvest; https://github.com/inclusion-tracker)"
SNAPSHOT_HINT = "set TRACKER_SNAPSHOT_DIR or pass --snapshot DIR to read recorded data instead"

#: arXiv refuses a request whose start + max_results exceeds this: no query can page further.
ARXIV_RESULT_CAP = 30_000


class Log(Protocol):
    def info(self, msg: str) -> None: ...
    def warning(self, msg: str) -> None: ...


class SourceUnavailableError(RuntimeError):
    """arXiv cannot be reached at all (no network, wrong URL): fail fast, say what to do."""


class ArxivUnavailableError(RuntimeError):
    """arXiv kept failing after every retry."""


@dataclass(frozen=True)
class ArxivFetch:
    """What one window's harvest received.

    `entries` and `quarantine` are the window's, each entry once. `fetched` counts them
    (stored or quarantined). `received` counts the distinct entries arXiv delivered,
    whatever their day (by arXiv id; an entry whose id cannot be read counts by its raw
    text), to compare with `total_results`, what the feed said it holds: the sum of
    `opensearch:totalResults` over the queries. `outside_window` counts the entries
    returned whose first version falls outside the window; `duplicates` the entries
    returned twice (arXiv's paging shifts when papers are announced during a harvest).
    `requests` counts the requests sent, `retries` those that repeated a failed one.
    """

    entries: pl.DataFrame
    quarantine: pl.DataFrame
    fetched: int
    received: int
    total_results: int
    outside_window: int
    duplicates: int
    pages: int
    queries: int
    requests: int
    retries: int = 0

    @property
    def complete(self) -> bool:
        """Every entry the feed counted arrived (a later page may count papers announced meanwhile)."""
        return self.received >= self.total_results


class ArxivClient(ABC):
    @abstractmethod
    def fetch_window(self, first_day: date, last_day: date, log: Log) -> ArxivFetch:
        """Every entry first submitted from `first_day` to `last_day` (inclusive, UTC)."""


def _total_results(pages: list[FeedPage]) -> int:
    """What one query's feed counts: its latest page's totalResults, else the entries it delivered."""
    latest = next((page.total_results for page in reversed(pages) if page.total_results is not None), None)
    return latest if latest is not None else sum(page.entry_count for page in pages)


def _window_fetch(
    queries: list[list[FeedPage]], first_day: date, last_day: date, requests: int, retries: int = 0
) -> ArxivFetch:
    """Keep what belongs to the window, once: the filter shared by the live and snapshot clients.

    `queries` holds the pages of each query (a live sub-range, or a recorded file).
    """
    pages = [page for query_pages in queries for page in query_pages]
    entries = pl.concat([empty_entries(), *(page.entries for page in pages)])
    quarantine = pl.concat([empty_quarantine(), *(page.quarantine for page in pages)])
    # One key per paper received: its id, or the raw text of an entry whose id cannot be read.
    received = pl.concat(
        [entries.select(key="arxiv_id"), quarantine.select(key=pl.coalesce("arxiv_id", "raw_text"))]
    )["key"].n_unique()
    in_window = entries.filter(pl.col("published_at").dt.date().is_between(first_day, last_day))
    distinct = in_window.unique(["arxiv_id", "version"], keep="first", maintain_order=True)
    # An entry too broken to date stays with the window that received it.
    quarantine_in_window = quarantine.filter(
        pl.col("published_day").is_null() | pl.col("published_day").is_between(first_day, last_day)
    )
    outside = entries.height - in_window.height + quarantine.height - quarantine_in_window.height
    quarantine_distinct = quarantine_in_window.unique(keep="first", maintain_order=True)
    return ArxivFetch(
        entries=distinct,
        quarantine=quarantine_distinct,
        fetched=distinct.height + quarantine_distinct.height,
        received=received,
        total_results=sum(_total_results(query_pages) for query_pages in queries),
        outside_window=outside,
        duplicates=in_window.height - distinct.height + quarantine_in_window.height - quarantine_distinct.height,
        pages=len(pages),
        queries=len(queries),
        requests=requests,
        retries=retries,
    )


def build_search_query(query: ArxivQuery, first_day: date, last_day: date) -> str:
    """The arXiv `search_query` for a window: categories AND keywords AND submittedDate."""
    categories = " OR ".join(f"cat:{category}" for category in query.categories)
    keywords = " OR ".join(
        f'{field}:"{keyword}"' if " " in keyword else f"{field}:{keyword}"
        for keyword in query.keywords
        for field in ("ti", "abs")
    )
    submitted = f"submittedDate:[{first_day:%Y%m%d}0000 TO {last_day:%Y%m%d}2359]"
    return f"({categories}) AND ({keywords}) AND {submitted}"


class LiveArxivClient(ArxivClient):
    """The arXiv API: one request at a time, `min_interval_s` apart, retried by the shared
    policy (orchestration/clients/http_retry.py) within the fetch's deadline.

    A window whose first page counts more results than `result_cap` (arXiv pages no
    further than 30,000) is split in halves, recursively, down to single days; each
    sub-range is then paged to its end.

    Retried: HTTP 429 and 403 (arXiv's answers to a client it finds too fast, often plain
    text, with or without Retry-After, which is honoured), 5xx, timeouts and dropped
    connections, truncated XML, arXiv's HTTP-200 error feed, and an empty page while
    `totalResults` says more. A connection refused or an unknown host before arXiv
    answered once is not retried: arXiv is unreachable from here, and the error says how
    to run from recorded data instead.
    """

    def __init__(
        self,
        api_url: str,
        query: ArxivQuery,
        *,
        page_size: int | None = None,
        min_interval_s: float = 3.0,
        max_retries: int = 5,
        backoff_s: float = 5.0,
        timeout_s: float = 60.0,
        deadline_minutes: float = 60.0,
        result_cap: int = ARXIV_RESULT_CAP,
        user_agent: str = USER_AGENT,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ):
        page_size = page_size or query.page_size
        if not 1 <= page_size <= ARXIV_MAX_PAGE_SIZE:
            raise ValueError(f"page_size must be from 1 to {ARXIV_MAX_PAGE_SIZE}, got {page_size}")
        self.api_url = api_url
        self.query = query
        self.page_size = page_size
        self.timeout_s = timeout_s
        self.deadline_minutes = deadline_minutes
        self.result_cap = result_cap
        self.user_agent = user_agent
        self._transport = transport
        self._clock = clock
        self.pacer = Pacer(min_interval_s, sleep=sleep, clock=clock)
        self.retry_policy = RetryPolicy(max_retries=max_retries, backoff_s=backoff_s, sleep=sleep)
        self._answered = False  # has arXiv answered once in this client's life?
        self.requests = 0

    @property
    def min_interval_s(self) -> float:
        return self.pacer.interval_s

    @property
    def retries(self) -> int:
        return self.retry_policy.retries

    def _attempt(self, http: httpx.Client, params: dict, start: int, search_query: str, deadline: Deadline) -> FeedPage:
        """One request for one page: the parsed page, or RetryableFault."""
        with self.pacer.turn():
            self.requests += 1
            try:
                response = http.get(self.api_url, params=params, timeout=deadline.timeout(self.timeout_s))
            except (httpx.ConnectError, httpx.ConnectTimeout) as error:
                if not self._answered:
                    raise SourceUnavailableError(
                        f"cannot reach arXiv at {self.api_url} ({error.__class__.__name__}: {error}); {SNAPSHOT_HINT}"
                    ) from error
                raise RetryableFault(f"{error.__class__.__name__}: {error}") from None
            except httpx.TransportError as error:  # timeouts, resets, a server that hung up
                raise RetryableFault(f"{error.__class__.__name__}: {error}") from None
        self._answered = True
        raise_if_retryable_status(response.status_code, response.headers, response.text.strip()[:200])
        if response.status_code != 200:
            raise ArxivUnavailableError(
                f"arXiv answered HTTP {response.status_code} to {response.url}: {response.text.strip()[:200]}"
            )
        try:
            page = parse_feed(response.content, str(response.url))
        except ArxivFeedError as error:  # cut off in transit, or arXiv's error feed
            raise RetryableFault(str(error)) from None
        if page.entry_count == 0 and page.total_results is not None and start < page.total_results:
            raise RetryableFault(f"empty page at start={start} although totalResults={page.total_results}")
        return page

    def _page(self, http: httpx.Client, search_query: str, start: int, deadline: Deadline, log: Log) -> FeedPage:
        """One page, retried until it parses and is not empty while more are promised."""
        params = {
            "search_query": search_query,
            "start": start,
            "max_results": min(self.page_size, self.result_cap - start),
            "sortBy": "submittedDate",
            "sortOrder": "ascending",
        }
        try:
            return self.retry_policy.call(
                lambda: self._attempt(http, params, start, search_query, deadline),
                deadline,
                what=f"arXiv start={start}",
                log=log,
            )
        except GaveUp as gave_up:
            raise ArxivUnavailableError(
                f"arXiv failed at start={start} of {search_query!r}: {gave_up.summary}; retry later, or read recorded "
                "data with --snapshot"
            ) from None

    def _query_pages(
        self, http: httpx.Client, first_day: date, last_day: date, deadline: Deadline, log: Log
    ) -> list[list[FeedPage]]:
        """The pages of each query that together cover the days, none counting more than the cap."""
        search_query = build_search_query(self.query, first_day, last_day)
        page = self._page(http, search_query, 0, deadline, log)
        if page.total_results is not None and page.total_results > self.result_cap:
            if first_day == last_day:
                raise ArxivUnavailableError(
                    f"arXiv counts {page.total_results} results for the single day {first_day}, more than the "
                    f"{self.result_cap} one query can page through; narrow the query in orchestration/config/arxiv.toml"
                )
            middle = first_day + (last_day - first_day) // 2
            log.info(
                f"arXiv: {page.total_results} results for {first_day} .. {last_day} exceed the cap of "
                f"{self.result_cap}; splitting at {middle}"
            )
            return [
                *self._query_pages(http, first_day, middle, deadline, log),
                *self._query_pages(http, middle + timedelta(days=1), last_day, deadline, log),
            ]
        pages = [page]
        start = 0
        while True:
            total = page.total_results if page.total_results is not None else start + page.entry_count
            log.info(
                f"arXiv: {first_day} .. {last_day} page {len(pages)}, entries {start}..{start + page.entry_count} of {total}"
            )
            start += page.entry_count
            # A total grown past the cap during the harvest (papers announced meanwhile)
            # cannot be paged further: the harvest check reports what is missing.
            if page.entry_count == 0 or start >= min(total, self.result_cap):
                return [pages]
            page = self._page(http, search_query, start, deadline, log)
            pages.append(page)

    def fetch_window(self, first_day: date, last_day: date, log: Log) -> ArxivFetch:
        headers = {"User-Agent": self.user_agent}
        self.requests = 0
        retries = self.retries
        deadline = Deadline(self.deadline_minutes, self._clock, "deadline_minutes of the arxiv resource")
        with httpx.Client(
            headers=headers, timeout=self.timeout_s, transport=self._transport, follow_redirects=True
        ) as http:
            queries = self._query_pages(http, first_day, last_day, deadline, log)
        return _window_fetch(queries, first_day, last_day, self.requests, self.retries - retries)


class SnapshotArxivClient(ArxivClient):
    """Recorded arXiv API responses: every `<dir>/arxiv/*.xml`, filtered to the window.

    Each file is one recorded query: its totalResults is compared with its entries.
    """

    def __init__(self, snapshot_dir: str | Path):
        self.folder = Path(snapshot_dir) / "arxiv"

    def fetch_window(self, first_day: date, last_day: date, log: Log) -> ArxivFetch:
        files = sorted(self.folder.glob("*.xml"))
        if not files:
            raise SourceUnavailableError(f"no recorded arXiv responses (*.xml) in {self.folder}")
        queries = []
        for path in files:
            try:
                queries.append([parse_feed(path.read_bytes(), str(path))])
            except ArxivFeedError as error:
                raise SourceUnavailableError(f"recorded arXiv response {path} cannot be read: {error}") from error
        log.info(f"arXiv snapshot: {len(files)} file(s) in {self.folder}")
        return _window_fetch(queries, first_day, last_day, requests=0)
