"""A fake arXiv API on 127.0.0.1: `GET /api/query` the way export.arxiv.org answers it.

Answers `search_query` by its `submittedDate:[YYYYMMDDHHMM TO YYYYMMDDHHMM]` clause (the
rest of the query is recorded, not evaluated), pages with `start` and `max_results`, and
writes Atom 1.0 with the opensearch totals and the arxiv namespace, from fixture entries
the test adds. Like arXiv, it lists an entry only once it is announced: an entry may
carry an announcement day later than its submission, and `fixtures.today` (None: every
entry is announced) says which day it is. Like arXiv, it refuses a request whose start +
max_results exceeds `fixtures.result_cap` (HTTP 400). Faults queued by the test are
applied to the next requests, in order: 500/502/503, plain-text 429 and 403 with or
without Retry-After, an empty page while the total says more, arXiv's HTTP-200 error
feed, truncated XML, a dropped connection, a slow answer (a stall, past the client's
timeout), a new announcement day before answering, or a normal answer (to let a later
fault hit a later request). With `fixtures.random_faults` (`RandomFaults(fault_mix(...),
rate=0.3, seed=1)`) every other request fails at random, seeded, and the faults applied
are counted. Every request is recorded with its arrival time.

    fixtures = ArxivFixtures()
    fixtures.add(arxiv_entry("2501.00001", published=datetime(2025, 1, 2, tzinfo=UTC)))
    with running_fake_arxiv(fixtures) as api_url:
        ...  # LiveArxivClient(api_url, ...)
"""

from __future__ import annotations

import re
import socket
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal, NamedTuple
from urllib.parse import parse_qsl, urlsplit
from xml.sax.saxutils import escape, quoteattr

from fakes.serving import FAKE_HOST, RandomFaults, serving

_SUBMITTED = re.compile(r"submittedDate:\[(\d{12}) TO (\d{12})\]")

#: arXiv's API pages no further than this (start + max_results).
ARXIV_RESULT_CAP = 30_000

FaultKind = Literal["status", "empty_page", "error_feed", "truncated", "drop", "slow", "announce", "normal"]

_STATUS_BODIES = {
    429: (b"Rate exceeded.", "text/plain"),
    403: (b"<html><body><h1>403 Forbidden</h1></body></html>", "text/html"),
}


@dataclass(frozen=True)
class Fault:
    """What to do to one request instead of (or before) answering it normally."""

    kind: FaultKind
    status: int = 503
    retry_after: int | None = None
    delay_s: float = 0.0
    day: date | None = None

    @classmethod
    def unavailable(cls) -> Fault:
        """HTTP 503 with an HTML body, as arXiv's front end sends."""
        return cls("status", 503)

    @classmethod
    def server_error(cls, status: int = 500) -> Fault:
        """HTTP `status` (500, 502, 503) with an HTML body."""
        return cls("status", status)

    @classmethod
    def rate_limited(cls, retry_after: int | None = None) -> Fault:
        """HTTP 429 with a plain-text body, without Retry-After unless given."""
        return cls("status", 429, retry_after=retry_after)

    @classmethod
    def forbidden(cls, retry_after: int | None = None) -> Fault:
        """HTTP 403 (arXiv refusing a client it finds too fast), with or without Retry-After."""
        return cls("status", 403, retry_after=retry_after)

    @classmethod
    def empty_page(cls) -> Fault:
        """HTTP 200 with the right totalResults but no entries."""
        return cls("empty_page")

    @classmethod
    def error_feed(cls) -> Fault:
        """HTTP 200 with arXiv's error feed: one entry titled "Error"."""
        return cls("error_feed")

    @classmethod
    def truncated(cls) -> Fault:
        """HTTP 200 whose XML stops half-way."""
        return cls("truncated")

    @classmethod
    def drop(cls) -> Fault:
        """Close the connection (RST) without answering."""
        return cls("drop")

    @classmethod
    def slow(cls, delay_s: float) -> Fault:
        """Answer normally after `delay_s` seconds (longer than the client's timeout: a stall)."""
        return cls("slow", delay_s=delay_s)

    @classmethod
    def announce(cls, day: date) -> Fault:
        """Set `today` to `day` first (entries announced by then appear), then answer normally."""
        return cls("announce", day=day)

    @classmethod
    def normal(cls) -> Fault:
        """Answer normally: a placeholder so that the next fault hits a later request."""
        return cls("normal")

    @property
    def label(self) -> str:
        if self.kind == "status":
            text = " plain text" if self.status == 429 else ""
            return f"{self.status}{text}" + (" Retry-After" if self.retry_after is not None else "")
        return {"slow": "stall", "drop": "connection reset", "error_feed": "HTTP-200 error feed"}.get(
            self.kind, self.kind.replace("_", " ")
        )


def fault_mix(*, stall_s: float, retry_after_s: int = 1) -> list[Fault]:
    """One of each fault arXiv (or the way to it) is known for, for `RandomFaults`: plain-
    text 429 and 403, with and without Retry-After; 500, 502, 503; a reset connection; a
    stall of `stall_s` (longer than the client's timeout: a read timeout); a truncated
    body; an empty page; the HTTP-200 error feed."""
    return [
        Fault.rate_limited(),
        Fault.rate_limited(retry_after=retry_after_s),
        Fault.forbidden(),
        Fault.forbidden(retry_after=retry_after_s),
        Fault.server_error(500),
        Fault.server_error(502),
        Fault.unavailable(),
        Fault.drop(),
        Fault.slow(stall_s),
        Fault.truncated(),
        Fault.empty_page(),
        Fault.error_feed(),
    ]


@dataclass(frozen=True)
class RecordedRequest:
    query: dict[str, str]
    headers: dict[str, str]  # lower-case names
    at: float  # time.monotonic() on arrival


class ListedEntry(NamedTuple):
    published: datetime  # first submission
    xml: str  # the <entry> element
    announced: date | None  # first day arXiv lists it; None: listed at once


@dataclass
class ArxivFixtures:
    """The fake server's state: entries (as Atom XML), the day it is, queued faults, faults
    at random (`random_faults`, for requests no queued fault is left for), recorded requests."""

    entries: list[ListedEntry] = field(default_factory=list)
    today: date | None = None  # None: every entry is announced
    result_cap: int = ARXIV_RESULT_CAP
    faults: list[Fault] = field(default_factory=list)
    random_faults: RandomFaults[Fault] | None = None
    requests: list[RecordedRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, published: datetime, entry_xml: str, *, announced: date | None = None) -> None:
        with self.lock:
            self.entries.append(ListedEntry(published, entry_xml, announced))
            self.entries.sort(key=lambda entry: entry.published)

    def replace(self, arxiv_id: str, entry_xml: str) -> None:
        """Serve `entry_xml` in place of the entry whose id is `arxiv_id` (a revised or broken record)."""
        with self.lock:
            (index,) = [i for i, entry in enumerate(self.entries) if f"/abs/{arxiv_id}v" in entry.xml]
            self.entries[index] = self.entries[index]._replace(xml=entry_xml)

    def queue(self, *faults: Fault) -> None:
        with self.lock:
            self.faults.extend(faults)

    def take_fault(self) -> Fault | None:
        with self.lock:
            if self.faults:
                return self.faults.pop(0)
        return self.random_faults.draw() if self.random_faults else None

    def applied(self, fault: Fault) -> None:
        """Count `fault` as injected, where it was drawn at random."""
        if self.random_faults is not None:
            self.random_faults.record(fault)

    def record(self, request: RecordedRequest) -> None:
        with self.lock:
            self.requests.append(request)

    def submitted_between(self, first: datetime, last: datetime) -> list[str]:
        """The announced entries submitted in the range, in order of submission."""
        with self.lock:
            return [
                entry.xml
                for entry in self.entries
                if first <= entry.published <= last
                and (entry.announced is None or self.today is None or entry.announced <= self.today)
            ]


# -- entry builder ----------------------------------------------------------------------


def arxiv_entry(
    arxiv_id: str,
    published: datetime,
    *,
    version: int = 1,
    updated: datetime | None = None,
    title: str | None = None,
    summary: str = "We propose a reinforcement learning method for language models.",
    authors: tuple[str, ...] | tuple[tuple[str, str | None], ...] = ("Ada Lovelace", "Alan Turing"),
    primary_category: str = "cs.LG",
    categories: tuple[str, ...] = ("cs.LG", "cs.CL"),
    comment: str | None = None,
    journal_ref: str | None = None,
    doi: str | None = None,
    published_text: str | None = None,
) -> str:
    """One `<entry>` of an arXiv API response. An author may be `(name, affiliation)`;
    `published_text` overrides the published element's text (to write a bad date)."""
    versioned = f"{arxiv_id}v{version}"
    updated = updated or published
    author_xml = []
    for author in authors:
        name, affiliation = (author, None) if isinstance(author, str) else author
        inner = f"<name>{escape(name)}</name>"
        if affiliation:
            inner += f"<arxiv:affiliation>{escape(affiliation)}</arxiv:affiliation>"
        author_xml.append(f"<author>{inner}</author>")
    optional = [
        f"<arxiv:comment>{escape(comment)}</arxiv:comment>" if comment else "",
        f"<arxiv:journal_ref>{escape(journal_ref)}</arxiv:journal_ref>" if journal_ref else "",
        f"<arxiv:doi>{escape(doi)}</arxiv:doi>" if doi else "",
    ]
    category_xml = "".join(
        f'<category term={quoteattr(term)} scheme="http://arxiv.org/schemas/atom"/>' for term in categories
    )
    return (
        "<entry>"
        f"<id>http://arxiv.org/abs/{versioned}</id>"
        f"<updated>{updated.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}</updated>"
        f"<published>{escape(published_text) if published_text is not None else f'{published.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}'}</published>"
        f"<title>{escape(title if title is not None else f'Method {arxiv_id}')}</title>"
        f"<summary>{escape(summary)}</summary>"
        + "".join(author_xml)
        + "".join(optional)
        + f'<link href="http://arxiv.org/abs/{versioned}" rel="alternate" type="text/html"/>'
        f'<link title="pdf" href="http://arxiv.org/pdf/{versioned}" rel="related" type="application/pdf"/>'
        f'<arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="{primary_category}" '
        'scheme="http://arxiv.org/schemas/atom"/>'
        + category_xml
        + "</entry>"
    )


def atom_feed(query: str, entries: list[str], total: int, start: int) -> str:
    """An arXiv API response: feed header with the opensearch counts, then the entries."""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom">'
        f'<link href={quoteattr("http://arxiv.org/api/query?search_query=" + query)} rel="self" type="application/atom+xml"/>'
        f"<title type=\"html\">ArXiv Query: {escape(query)}</title>"
        "<id>http://arxiv.org/api/fake</id>"
        f"<updated>{datetime.now(UTC):%Y-%m-%dT%H:%M:%SZ}</updated>"
        f"<opensearch:totalResults>{total}</opensearch:totalResults>"
        f"<opensearch:startIndex>{start}</opensearch:startIndex>"
        f"<opensearch:itemsPerPage>{len(entries)}</opensearch:itemsPerPage>"
        + "".join(entries)
        + "</feed>\n"
    )


def error_feed(message: str) -> str:
    """arXiv's answer to a malformed query: HTTP 200, one entry titled "Error"."""
    entry = (
        "<entry><id>http://arxiv.org/api/errors#incorrect_id_format_for_1234.12345v</id>"
        "<title>Error</title>"
        f"<summary>{escape(message)}</summary>"
        "<updated>2026-01-01T00:00:00-05:00</updated>"
        '<link href="http://arxiv.org/api/errors#incorrect_id_format" rel="alternate" type="text/html"/>'
        "<author><name>arXiv api core</name></author></entry>"
    )
    return atom_feed("error", [entry], total=1, start=0)


# -- the server -------------------------------------------------------------------------


def _window(search_query: str) -> tuple[datetime, datetime] | None:
    match = _SUBMITTED.search(search_query)
    if match is None:
        return None
    first, last = (datetime.strptime(text, "%Y%m%d%H%M").replace(tzinfo=UTC) for text in match.groups())
    return first, last.replace(second=59)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _FakeArxivServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read `requests`
        pass

    def do_GET(self) -> None:
        fixtures = self.server.fixtures
        parts = urlsplit(self.path)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        fixtures.record(RecordedRequest(query, {k.lower(): v for k, v in self.headers.items()}, time.monotonic()))
        if parts.path != "/api/query":
            self._send(404, b"Not Found", "text/plain")
            return
        fault = fixtures.take_fault()
        if fault is not None:
            if fault.kind == "drop":
                fixtures.applied(fault)
                # SO_LINGER 0: close() sends RST, the client sees a reset without an answer.
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.close_connection = True
                self.connection.close()
                return
            if fault.kind == "status":
                fixtures.applied(fault)
                body, content_type = _STATUS_BODIES.get(
                    fault.status, (f"<html><body><h1>{fault.status} Error</h1></body></html>".encode(), "text/html")
                )
                extra = {"Retry-After": str(fault.retry_after)} if fault.retry_after is not None else {}
                self._send(fault.status, body, content_type, extra)
                return
            if fault.kind == "error_feed":
                fixtures.applied(fault)
                self._send(200, error_feed("incorrect id format for 1234.12345v").encode(), "application/atom+xml")
                return
            if fault.kind == "slow":
                fixtures.applied(fault)
                time.sleep(fault.delay_s)
            if fault.kind == "announce":
                with fixtures.lock:
                    fixtures.today = fault.day

        search_query = query.get("search_query", "")
        try:
            start = int(query.get("start", 0))
            max_results = int(query.get("max_results", 10))
        except ValueError:
            self._send(400, b"start and max_results must be integers", "text/plain")
            return
        if start + max_results > fixtures.result_cap:
            self._send(400, f"start + max_results must not exceed {fixtures.result_cap}".encode(), "text/plain")
            return
        window = _window(search_query)
        matching = fixtures.submitted_between(*window) if window else []
        page = matching[start : start + max_results]
        if fault is not None and fault.kind == "empty_page" and page:
            fixtures.applied(fault)
            page = []
        body = atom_feed(search_query, page, total=len(matching), start=start).encode()
        if fault is not None and fault.kind == "truncated":
            fixtures.applied(fault)
            body = body[: len(body) // 2]
        self._send(200, body, "application/atom+xml; charset=utf-8")

    def _send(self, status: int, body: bytes, content_type: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


class _FakeArxivServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, fixtures: ArxivFixtures):
        super().__init__((FAKE_HOST, 0), _Handler)
        self.fixtures = fixtures

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Faults break connections on purpose (resets, clients timing out on a stall): not errors.
        pass


@contextmanager
def running_fake_arxiv(fixtures: ArxivFixtures) -> Iterator[str]:
    """Serve `fixtures` on a free port of 127.0.0.1; yields the API URL (…/api/query)."""
    with serving(_FakeArxivServer(fixtures)) as base_url:
        yield f"{base_url}/api/query"
