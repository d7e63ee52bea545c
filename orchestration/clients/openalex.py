"""OpenAlex: author affiliations of arXiv papers, looked up by the arXiv DOI.

`GET {api}/works/doi:10.48550/arXiv.<id>?api_key=…` is a singleton lookup (free of
OpenAlex's usage cost). The client is polite: at most one request per `min_interval_s`,
the shared retries (orchestration/clients/http_retry.py) on 429/403 (OpenAlex's rate
limits, Retry-After honoured), 5xx, broken connections and cut-off answers, within a
deadline per lookup batch, and a hard cap of requests per run. The key lives only in the
query string sent to OpenAlex (the only place OpenAlex reads it): never in errors or
stored rows, and redacted from httpx's request log (`orchestration.clients.redaction`).
Answers are cached in
the warehouse by the caller (`raw.openalex_works`), so a paper is asked about once.
"""

from __future__ import annotations

import abc
import json
import logging
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime

import httpx
import polars as pl
from orchestration.clients.http_retry import Deadline, GaveUp, Pacer, RetryableFault, RetryPolicy, retry_after_s
from orchestration.clients.redaction import redact_httpx_logs
from orchestration.tables import RAW_OPENALEX_WORKS

DEFAULT_API_URL = "https://api.openalex.org"
ARXIV_DOI_PREFIX = "10.48550/arXiv."


_RETRIED = frozenset({403, 429, 500, 502, 503, 504})

_AUTHORSHIPS = pl.List(
    pl.Struct(
        {
            "author": pl.Struct({"display_name": pl.Utf8}),
            "institutions": pl.List(pl.Struct({"display_name": pl.Utf8})),
            "raw_affiliation_strings": pl.List(pl.Utf8),
        }
    )
)

Logger = logging.Logger | logging.LoggerAdapter
_log = logging.getLogger(__name__)


class OpenAlexError(RuntimeError):
    """OpenAlex kept failing (or refused) after bounded retries; the message names the
    status and the path, never the key."""


def openalex_affiliations(works: pl.DataFrame) -> pl.DataFrame:
    """One row per (paper, author, affiliation) in cached OpenAlex answers: institution
    names and raw affiliation strings, with `source` = openalex."""
    rows = (
        works.filter(pl.col("status") == 200)
        .select("arxiv_id", authorship=pl.col("authorships").str.json_decode(_AUTHORSHIPS))
        .explode("authorship")
        .drop_nulls("authorship")
        .select(
            "arxiv_id",
            author=pl.col("authorship").struct.field("author").struct.field("display_name"),
            affiliation=pl.concat_list(
                pl.col("authorship").struct.field("institutions").list.eval(pl.element().struct.field("display_name")),
                pl.col("authorship").struct.field("raw_affiliation_strings"),
            ),
        )
        .explode("affiliation")
        .drop_nulls("affiliation")
        .filter(pl.col("affiliation").str.strip_chars() != "")
    )
    return rows.unique(maintain_order=True).with_columns(source=pl.lit("openalex"))


class AffiliationLookup(abc.ABC):
    """Where affiliations of papers are looked up (OpenAlex, or a fake in tests)."""

    @abc.abstractmethod
    def works(self, arxiv_ids: Iterable[str], log: Logger | None = None) -> pl.DataFrame:
        """Answers (RAW_OPENALEX_WORKS.schema) for as many of `arxiv_ids` as this run may ask about."""


class OpenAlexClient(AffiliationLookup):
    def __init__(
        self,
        api_url: str = DEFAULT_API_URL,
        api_key: str | None = None,
        *,
        min_interval_s: float = 0.1,
        max_requests: int = 1000,
        max_retries: int = 4,
        backoff_s: float = 1.0,
        timeout_s: float = 30.0,
        deadline_minutes: float = 30.0,
        user_agent: str = "inclusion-tracker/0.1",
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.api_url = api_url.rstrip("/")
        self._api_key = api_key or None
        self.max_requests = max_requests
        self.timeout_s = timeout_s
        self.deadline_minutes = deadline_minutes
        self.clock = clock
        self.requests = 0
        self.pacer = Pacer(min_interval_s, sleep=sleep, clock=clock)
        self.retry_policy = RetryPolicy(max_retries=max_retries, backoff_s=backoff_s, sleep=sleep)
        self._http = httpx.Client(
            timeout=timeout_s, headers={"User-Agent": user_agent, "Accept": "application/json"}, transport=transport
        )
        if self._api_key:
            redact_httpx_logs()  # httpx logs each request's URL, and the key is in its query

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> OpenAlexClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def retries(self) -> int:
        return self.retry_policy.retries

    def deadline(self) -> Deadline:
        return Deadline(self.deadline_minutes, self.clock, "deadline_minutes of the openalex resource")

    def _attempt(self, path: str, params: dict[str, str], deadline: Deadline) -> httpx.Response:
        """One lookup: a 200 with JSON, or a 404; RetryableFault for what may pass."""
        with self.pacer.turn():
            self.requests += 1
            try:
                response = self._http.get(self.api_url + path, params=params, timeout=deadline.timeout(self.timeout_s))
            except httpx.TransportError as error:  # its text may hold the URL, and so the key
                raise RetryableFault(type(error).__name__) from None
        if response.status_code == 200:
            try:
                response.json()
            except ValueError:
                raise RetryableFault("a 200 whose body is not JSON", status=200) from None
            return response
        if response.status_code == 404:
            return response
        if response.status_code in _RETRIED:
            raise RetryableFault(
                f"HTTP {response.status_code}",
                wait_s=retry_after_s(response.headers.get("retry-after")),
                status=response.status_code,
            )
        raise OpenAlexError(f"OpenAlex {path}: HTTP {response.status_code}")

    def work(self, arxiv_id: str, deadline: Deadline | None = None, log: Logger | None = None) -> dict:
        """The cached-answer row of one paper (RAW_OPENALEX_WORKS.schema as a dict)."""
        path = f"/works/doi:{ARXIV_DOI_PREFIX}{arxiv_id}"
        params = {"select": "id,authorships"}
        if self._api_key:
            params["api_key"] = self._api_key
        deadline = deadline or self.deadline()
        try:
            response = self.retry_policy.call(
                lambda: self._attempt(path, params, deadline), deadline, what=f"OpenAlex {path}", log=log or _log
            )
        except GaveUp as gave_up:
            raise OpenAlexError(f"OpenAlex {path}: {gave_up.summary}") from None
        if response.status_code == 404:
            return {"arxiv_id": arxiv_id, "status": 404, "fetched_at": datetime.now(UTC), "authorships": "[]"}
        return {
            "arxiv_id": arxiv_id,
            "status": 200,
            "fetched_at": datetime.now(UTC),
            "authorships": json.dumps(response.json().get("authorships") or []),
        }

    def works(self, arxiv_ids: Iterable[str], log: Logger | None = None) -> pl.DataFrame:
        rows = []
        wanted = list(dict.fromkeys(arxiv_ids))
        deadline = self.deadline()
        for arxiv_id in wanted:
            if self.requests >= self.max_requests:
                if log:
                    log.info(
                        f"openalex: request cap of {self.max_requests} reached; "
                        f"{len(wanted) - len(rows)} papers wait for the next run"
                    )
                break
            try:
                rows.append(self.work(arxiv_id, deadline, log))
            except OpenAlexError as error:
                # Keep what was fetched (the caller caches it); the rest waits for the next run.
                if log:
                    log.warning(f"openalex: {error}; {len(wanted) - len(rows)} papers left for the next run")
                break
        return pl.DataFrame(rows, schema=RAW_OPENALEX_WORKS.schema)
