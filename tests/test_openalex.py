"""The OpenAlex client against a fake server on 127.0.0.1: lookups by arXiv DOI, 404s,
retries, the request cap, the key kept out of errors, and parsing of authorships."""

import json
from datetime import UTC, datetime

import polars as pl
import pytest

from orchestration.clients.openalex import OpenAlexClient, OpenAlexError, openalex_affiliations
from orchestration.resources import OpenAlexSource
from fakes.openalex_server import OpenAlexFixtures, authorship, running_fake_openalex
from orchestration.tables import RAW_OPENALEX_WORKS

KEY = "test-openalex-key-not-logged"


@pytest.fixture
def fake_openalex():
    fixtures = OpenAlexFixtures()
    fixtures.works["2503.14476"] = [
        authorship("Qiying Yu", "ByteDance Seed", "Tsinghua University"),
        authorship("Mingxuan Wang", raw=("ByteDance Seed, Beijing",)),
    ]
    with running_fake_openalex(fixtures) as url:
        yield url, fixtures


def client(url: str, **options) -> OpenAlexClient:
    return OpenAlexClient(url, KEY, min_interval_s=0, backoff_s=0, sleep=lambda _s: None, **options)


def test_a_work_is_looked_up_by_its_arxiv_doi_with_the_key(fake_openalex):
    url, fixtures = fake_openalex
    with client(url) as openalex:
        works = openalex.works(["2503.14476"])
    assert works.schema == pl.Schema(RAW_OPENALEX_WORKS.schema)
    assert works["status"].to_list() == [200]
    (path, query), = fixtures.requests
    assert path == "/works/doi:10.48550/arXiv.2503.14476"
    assert query["api_key"] == KEY
    assert len(json.loads(works["authorships"][0])) == 2


def test_an_unknown_work_is_cached_as_404_without_affiliations(fake_openalex):
    url, _ = fake_openalex
    with client(url) as openalex:
        works = openalex.works(["2599.00001"])
    assert works.select("arxiv_id", "status", "authorships").rows() == [("2599.00001", 404, "[]")]
    assert openalex_affiliations(works).height == 0


def test_rate_limits_and_server_errors_are_retried(fake_openalex):
    url, fixtures = fake_openalex
    fixtures.queue(429, 500)
    with client(url, max_retries=3) as openalex:
        works = openalex.works(["2503.14476"])
    assert works["status"].to_list() == [200]
    assert len(fixtures.requests) == 3


def test_a_server_that_keeps_failing_raises_without_the_key(fake_openalex):
    url, fixtures = fake_openalex
    fixtures.queue(503, 503, 503)
    with client(url, max_retries=2) as openalex, pytest.raises(OpenAlexError) as raised:
        openalex.work("2503.14476")
    assert "HTTP 503" in str(raised.value)
    assert KEY not in str(raised.value)


def test_works_keeps_what_it_fetched_when_the_server_gives_up(fake_openalex):
    url, fixtures = fake_openalex
    fixtures.works["2504.05118"] = [authorship("A", "ByteDance Seed")]
    with client(url, max_retries=0) as openalex:
        first = openalex.works(["2503.14476"])
        fixtures.queue(500)
        rest = openalex.works(["2504.05118", "2503.14476"])
    assert first.height == 1
    assert rest.height == 0  # the first lookup failed: nothing more is asked this run


def test_the_request_cap_bounds_a_run(fake_openalex):
    url, fixtures = fake_openalex
    with client(url, max_requests=2) as openalex:
        works = openalex.works(["2503.14476", "2599.00001", "2599.00002"])
    assert works.height == 2
    assert len(fixtures.requests) == 2


def test_requests_are_spaced_by_the_minimum_interval(fake_openalex):
    url, _ = fake_openalex
    now = [0.0]
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        now[0] += seconds

    openalex = OpenAlexClient(url, KEY, min_interval_s=0.5, sleep=sleep, clock=lambda: now[0])
    openalex.works(["2503.14476", "2599.00001"])
    openalex.close()
    assert waits == [0.5]


def test_authorships_become_one_row_per_author_and_affiliation():
    works = pl.DataFrame(
        [
            {
                "arxiv_id": "2503.14476",
                "status": 200,
                "fetched_at": datetime(2026, 1, 1, tzinfo=UTC),
                "authorships": json.dumps(
                    [authorship("Qiying Yu", "ByteDance Seed", raw=("ByteDance Seed",)), authorship("No Affiliation")]
                ),
            }
        ],
        schema=RAW_OPENALEX_WORKS.schema,
    )
    assert openalex_affiliations(works).rows() == [("2503.14476", "Qiying Yu", "ByteDance Seed", "openalex")]


def test_without_a_key_the_resource_gives_no_lookup():
    assert OpenAlexSource(api_key=None).lookup() is None
    assert OpenAlexSource(api_key="").lookup() is None
    assert isinstance(OpenAlexSource(api_key=KEY).lookup(), OpenAlexClient)
