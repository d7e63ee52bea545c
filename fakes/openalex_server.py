"""A fake OpenAlex API on 127.0.0.1: `GET /works/doi:10.48550/arXiv.<id>`.

Answers from in-memory works (arXiv id → authorships), 404 for unknown works, and
applies queued statuses (429, 500, …) to the next requests in order. Every request is
recorded with its query, so tests can check the key is sent and nothing is asked twice.

    fixtures = OpenAlexFixtures()
    fixtures.works["2503.14476"] = [authorship("Qiying Yu", "ByteDance Seed")]
    with running_fake_openalex(fixtures) as api_url:
        ...  # OpenAlexClient(api_url, "key")
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, unquote, urlsplit

from fakes.serving import FAKE_HOST, serving

_PREFIX = "/works/doi:10.48550/arXiv."


def authorship(author: str, *institutions: str, raw: tuple[str, ...] = ()) -> dict:
    """One element of a work's `authorships`, with the fields the tracker reads."""
    return {
        "author": {"id": "https://openalex.org/A1", "display_name": author},
        "institutions": [{"id": "https://openalex.org/I1", "display_name": name} for name in institutions],
        "raw_affiliation_strings": list(raw),
    }


@dataclass
class OpenAlexFixtures:
    works: dict[str, list[dict]] = field(default_factory=dict)
    statuses: list[int] = field(default_factory=list)
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def queue(self, *statuses: int) -> None:
        with self.lock:
            self.statuses.extend(statuses)


def _handler(fixtures: OpenAlexFixtures) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: object) -> None:  # keep test output quiet
            pass

        def _send(self, status: int, payload: dict) -> None:
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802  (http.server's name)
            parts = urlsplit(self.path)
            path = unquote(parts.path)
            with fixtures.lock:
                fixtures.requests.append((path, dict(parse_qsl(parts.query))))
                status = fixtures.statuses.pop(0) if fixtures.statuses else None
            if status is not None:
                self._send(status, {"error": "queued fault", "message": f"status {status}"})
                return
            if not path.startswith(_PREFIX):
                self._send(404, {"error": "not found"})
                return
            arxiv_id = path[len(_PREFIX) :]
            with fixtures.lock:
                authorships = fixtures.works.get(arxiv_id)
            if authorships is None:
                self._send(404, {"error": "Not Found", "message": f"work {arxiv_id} not found"})
                return
            self._send(200, {"id": f"https://openalex.org/W{abs(hash(arxiv_id))}", "authorships": authorships})

    return Handler


@contextmanager
def running_fake_openalex(fixtures: OpenAlexFixtures) -> Iterator[str]:
    with serving(ThreadingHTTPServer((FAKE_HOST, 0), _handler(fixtures))) as base_url:
        yield base_url
