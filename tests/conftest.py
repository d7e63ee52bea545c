"""Fixtures shared by the test modules."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from fakes.arxiv_server import ArxivFixtures, running_fake_arxiv


@dataclass
class FakeArxiv:
    url: str
    fixtures: ArxivFixtures


@pytest.fixture
def fake_arxiv() -> Iterator[FakeArxiv]:
    """A running fake arXiv API with no entries: the test adds entries and faults."""
    fixtures = ArxivFixtures()
    with running_fake_arxiv(fixtures) as url:
        yield FakeArxiv(url, fixtures)


@pytest.fixture
def unused_port() -> int:
    """A port of 127.0.0.1 that nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
