"""Fixtures shared by the test modules."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, settings

from fakes.arxiv_server import ArxivFixtures, running_fake_arxiv
from fakes.postgres_cluster import PostgresServer, PostgresUnavailable, running_postgres
from fakes.s3_server import S3Server, S3Unavailable, running_s3
from fakes.serving import free_port

# Property-based tests (hypothesis): few examples and fixed seeds by default, so that the
# suite takes seconds and a failure reproduces; TRACKER_FUZZ_EXAMPLES=N runs N examples
# per property with fresh random seeds (README, "Bad input").
settings.register_profile(
    "ci", max_examples=30, derandomize=True, database=None, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "fuzz",
    max_examples=int(os.environ.get("TRACKER_FUZZ_EXAMPLES") or 1),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("fuzz" if os.environ.get("TRACKER_FUZZ_EXAMPLES") else "ci")


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
    return free_port()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A real PostgreSQL server for the session (installed with apt when absent); the
    tests that need it skip, with the reason, only where it cannot be had."""
    try:
        with running_postgres() as server:
            yield server
    except PostgresUnavailable as error:
        pytest.skip(f"no PostgreSQL server: {error}")


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3Server]:
    """An S3-compatible store (moto's server) for the session; give each test its own bucket."""
    try:
        with running_s3() as server:
            yield server
    except S3Unavailable as error:
        pytest.skip(f"no S3-compatible server: {error}")


@pytest.fixture
def postgres_database(postgres_server: PostgresServer, request: pytest.FixtureRequest) -> str:
    """The URL of a new empty database on the session's server, one per test."""
    return postgres_server.create_database(f"t{abs(hash(request.node.nodeid)) % 10**12}_{os.getpid()}")
