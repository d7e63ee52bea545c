"""A git remote over HTTP on 127.0.0.1: GitRemote's bare repositories, served with git's
"dumb" HTTP protocol (plain files, as a static web server serves a bare repository).

Like GitHub, it can require credentials (`fixtures.require_authorization`): a request
without the expected `Authorization` header gets 401. Every request is recorded with its
headers, so a test can check what git sent and to whom.

    fixtures = GitHttpFixtures(root=tmp_path / "remotes", require_authorization="Basic ...")
    with running_git_http_server(fixtures) as base_url:
        GitMirrorCommits(mirrors, f"{base_url}/{{repo}}.git", token="…")
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from fakes.serving import FAKE_HOST, serving


@dataclass
class GitHttpFixtures:
    root: Path
    #: The `Authorization` header value every request must carry (None: no credentials).
    require_authorization: str | None = None
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


def _handler(fixtures: GitHttpFixtures) -> type[SimpleHTTPRequestHandler]:
    class Handler(SimpleHTTPRequestHandler):
        def log_message(self, *_: object) -> None:  # keep test output quiet
            pass

        def do_GET(self) -> None:  # noqa: N802  (http.server's name)
            with fixtures.lock:
                fixtures.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
            if fixtures.require_authorization and self.headers.get("Authorization") != fixtures.require_authorization:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="fake git"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            path = urlsplit(self.path).path
            if path.endswith("/info/refs"):  # what a push to a dumb remote would have updated
                repository = fixtures.root / path.removeprefix("/").removesuffix("/info/refs")
                subprocess.run(["git", "--git-dir", str(repository), "update-server-info"], check=True)
            self.path = path  # the smart-protocol probe's ?service=… is ignored: a dumb server
            super().do_GET()

    return Handler


@contextmanager
def running_git_http_server(fixtures: GitHttpFixtures) -> Iterator[str]:
    handler = partial(_handler(fixtures), directory=str(fixtures.root))
    with serving(ThreadingHTTPServer((FAKE_HOST, 0), handler)) as base_url:
        yield base_url
