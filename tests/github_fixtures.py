"""Pytest fixtures around the fake GitHub server; import them into a test module:

    from tests.github_fixtures import FakeGithub, fake_github  # noqa: F401
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from fakes.github_server import GithubFixtures, running_fake_github


@dataclass
class FakeGithub:
    url: str
    fixtures: GithubFixtures


@pytest.fixture
def fake_github() -> Iterator[FakeGithub]:
    """A running fake GitHub API with empty fixtures: the test adds items and faults."""
    fixtures = GithubFixtures()
    with running_fake_github(fixtures) as url:
        yield FakeGithub(url, fixtures)
