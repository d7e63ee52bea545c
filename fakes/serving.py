"""What every fake server shares: the loopback address it listens on, running it in a
thread for the length of a `with` block, faults injected at random (seeded), and a
server that accepts connections and never answers."""

from __future__ import annotations

import random
import socket
import socketserver
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

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


class InjectedFault(Protocol):
    @property
    def label(self) -> str: ...


F = TypeVar("F", bound=InjectedFault)


@dataclass
class RandomFaults(Generic[F]):
    """Fails `rate` of the requests at random with one of `kinds`, drawn from a generator
    seeded with `seed`: the same requests in the same order fail the same way. A fake
    draws once per request and records (`record`) the faults it applied, by label."""

    kinds: Sequence[F]
    rate: float = 0.3
    seed: int = 0
    injected: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self._random = random.Random(self.seed)
        self._lock = threading.Lock()

    def draw(self) -> F | None:
        with self._lock:
            if self._random.random() >= self.rate:
                return None
            return self._random.choice(list(self.kinds))

    def record(self, fault: F) -> None:
        with self._lock:
            self.injected[fault.label] += 1

    @property
    def total(self) -> int:
        return sum(self.injected.values())


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (just released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((FAKE_HOST, 0))
        return probe.getsockname()[1]


@contextmanager
def silent_server() -> Iterator[str]:
    """A port that accepts connections (the kernel completes the handshake) and never
    answers: a stalled server. Yields its base URL (http://127.0.0.1:port)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind((FAKE_HOST, 0))
        listener.listen(64)
        yield f"http://{FAKE_HOST}:{listener.getsockname()[1]}"
