"""What every fake server shares: the loopback address it listens on, and running it in a
thread for the length of a `with` block."""

from __future__ import annotations

import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager

FAKE_HOST = "127.0.0.1"


@contextmanager
def serving(server: socketserver.TCPServer) -> Iterator[str]:
    """Serve in a daemon thread; yields the base URL (http://127.0.0.1:port); shuts the
    server down and closes its socket afterwards."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://{FAKE_HOST}:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
