"""The live arXiv client against the fake arXiv server: paging, politeness, every fault."""

import logging
import time
from datetime import UTC, date, datetime, timedelta

import pytest

from orchestration.clients.arxiv import (
    USER_AGENT,
    ArxivUnavailableError,
    LiveArxivClient,
    SnapshotArxivClient,
    SourceUnavailableError,
    build_search_query,
)
from orchestration.settings import ArxivQuery
from fakes.arxiv_server import Fault, arxiv_entry
from fakes.serving import silent_server

QUERY = ArxivQuery(categories=("cs.LG", "cs.CL"), keywords=("reinforcement learning", "GRPO"), page_size=10)
LOG = logging.getLogger("test")


def add_entries(fixtures, first_day: date, count: int, per_day: int = 5) -> None:
    for number in range(count):
        published = datetime.combine(first_day, datetime.min.time(), UTC) + timedelta(
            days=number // per_day, hours=number % per_day
        )
        fixtures.add(published, arxiv_entry(f"2501.{number:05d}", published))


def client(url: str, **options) -> LiveArxivClient:
    options = {"min_interval_s": 0, "backoff_s": 0.01, "max_retries": 3, "timeout_s": 5, **options}
    return LiveArxivClient(url, QUERY, **options)


def test_the_search_query_combines_categories_keywords_and_the_window():
    query = build_search_query(QUERY, date(2025, 1, 1), date(2025, 3, 31))
    assert query == (
        '(cat:cs.LG OR cat:cs.CL) AND (ti:"reinforcement learning" OR abs:"reinforcement learning" OR ti:GRPO '
        "OR abs:GRPO) AND submittedDate:[202501010000 TO 202503312359]"
    )


def test_a_window_is_one_query_paged_with_start_and_max_results(fake_arxiv):
    add_entries(fake_arxiv.fixtures, date(2025, 1, 1), 25)
    add_entries(fake_arxiv.fixtures, date(2025, 2, 1), 3)  # outside the window: never asked for
    fetch = client(fake_arxiv.url).fetch_window(date(2025, 1, 1), date(2025, 1, 31), LOG)
    assert fetch.entries.height == 25 and fetch.fetched == 25 and fetch.pages == 3 and fetch.requests == 3
    assert fetch.entries["arxiv_id"].is_unique().all()
    queries = [request.query for request in fake_arxiv.fixtures.requests]
    assert [q["start"] for q in queries] == ["0", "10", "20"]
    assert {q["max_results"] for q in queries} == {"10"}
    assert len({q["search_query"] for q in queries}) == 1
    assert "submittedDate:[202501010000 TO 202501312359]" in queries[0]["search_query"]


def test_an_empty_window_is_one_request(fake_arxiv):
    fetch = client(fake_arxiv.url).fetch_window(date(2025, 1, 1), date(2025, 1, 1), LOG)
    assert (fetch.fetched, fetch.pages, fetch.requests) == (0, 1, 1)


def test_requests_are_spaced_and_carry_a_descriptive_user_agent(fake_arxiv):
    add_entries(fake_arxiv.fixtures, date(2025, 1, 1), 30)
    client(fake_arxiv.url, min_interval_s=0.3).fetch_window(date(2025, 1, 1), date(2025, 1, 31), LOG)
    requests = fake_arxiv.fixtures.requests
    assert len(requests) == 3
    gaps = [later.at - earlier.at for earlier, later in zip(requests, requests[1:])]
    assert min(gaps) >= 0.29
    assert {request.headers["user-agent"] for request in requests} == {USER_AGENT}
    assert "inclusion-tracker" in USER_AGENT and "(" in USER_AGENT


def test_the_default_spacing_is_three_seconds():
    assert LiveArxivClient("http://x", QUERY).min_interval_s == 3.0


def test_the_page_size_is_at_most_2000():
    with pytest.raises(ValueError, match="at most|from 1 to 2000"):
        LiveArxivClient("http://x", QUERY, page_size=2001)


@pytest.mark.parametrize(
    "fault",
    [
        Fault.unavailable(),
        Fault.server_error(500),
        Fault.server_error(502),
        Fault.rate_limited(),
        Fault.forbidden(),
        Fault.drop(),
        Fault.truncated(),
        Fault.empty_page(),
        Fault.error_feed(),
    ],
    ids=["503", "500", "502", "plain-text-429", "403", "dropped-connection", "truncated-xml", "empty-page", "error-feed"],
)
def test_a_transient_fault_is_retried_and_nothing_is_lost(fake_arxiv, fault, caplog):
    add_entries(fake_arxiv.fixtures, date(2025, 1, 1), 15)
    fake_arxiv.fixtures.queue(fault, fault)
    with caplog.at_level(logging.WARNING, logger="test"):
        fetch = client(fake_arxiv.url).fetch_window(date(2025, 1, 1), date(2025, 1, 31), LOG)
    assert fetch.fetched == 15 and fetch.entries["arxiv_id"].n_unique() == 15
    assert fetch.requests == 2 + 2  # two failed attempts, then both pages
    assert len(caplog.records) == 2


def test_a_fault_that_persists_fails_with_the_last_reason(fake_arxiv):
    fake_arxiv.fixtures.queue(*[Fault.unavailable()] * 10)
    with pytest.raises(ArxivUnavailableError, match=r"4 attempt\(s\), last: HTTP 503"):
        client(fake_arxiv.url).fetch_window(date(2025, 1, 1), date(2025, 1, 31), LOG)
    assert len(fake_arxiv.fixtures.requests) == 4


def test_pages_that_stay_empty_fail_clearly(fake_arxiv):
    add_entries(fake_arxiv.fixtures, date(2025, 1, 1), 5)
    fake_arxiv.fixtures.queue(*[Fault.empty_page()] * 10)
    with pytest.raises(ArxivUnavailableError, match="empty page at start=0 although totalResults=5"):
        client(fake_arxiv.url, max_retries=2).fetch_window(date(2025, 1, 1), date(2025, 1, 31), LOG)


def test_an_error_feed_that_persists_fails_naming_the_query_and_arxivs_message(fake_arxiv):
    # arXiv also answers an overloaded moment with its error feed: retried, then a clear error.
    fake_arxiv.fixtures.queue(*[Fault.error_feed()] * 10)
    with pytest.raises(ArxivUnavailableError, match=r"submittedDate.*arXiv rejected the query .*incorrect id format"):
        client(fake_arxiv.url).fetch_window(date(2025, 1, 1), date(2025, 1, 31), LOG)
    assert len(fake_arxiv.fixtures.requests) == 4


@pytest.mark.parametrize("fault", [Fault.rate_limited(retry_after=7), Fault.forbidden(retry_after=7)], ids=["429", "403"])
def test_retry_after_is_honoured(fake_arxiv, fault):
    add_entries(fake_arxiv.fixtures, date(2025, 1, 1), 3)
    fake_arxiv.fixtures.queue(fault)
    sleeps: list[float] = []
    fetch = client(fake_arxiv.url, sleep=sleeps.append).fetch_window(date(2025, 1, 1), date(2025, 1, 31), LOG)
    assert fetch.fetched == 3 and sleeps == [7]


def test_waits_are_bounded_by_the_fetchs_deadline(fake_arxiv):
    # arXiv asks for an hour; the fetch may take a minute in all: it fails now, saying so.
    fake_arxiv.fixtures.queue(Fault.rate_limited(retry_after=3600))
    sleeps: list[float] = []
    with pytest.raises(ArxivUnavailableError, match=r"HTTP 429.*deadline of 1 min \(deadline_minutes of the arxiv resource\)"):
        client(fake_arxiv.url, sleep=sleeps.append, deadline_minutes=1).fetch_window(date(2025, 1, 1), date(2025, 1, 31), LOG)
    assert sleeps == [] and len(fake_arxiv.fixtures.requests) == 1


def test_a_server_that_never_answers_fails_within_the_deadline():
    with silent_server() as base_url:
        stalled = client(f"{base_url}/api/query", timeout_s=0.2, max_retries=100, deadline_minutes=0.02)
        started = time.monotonic()
        with pytest.raises(ArxivUnavailableError, match=r"ReadTimeout.*deadline of 0.02 min") as raised:
            stalled.fetch_window(date(2025, 1, 1), date(2025, 1, 31), LOG)
    assert time.monotonic() - started <= 0.02 * 60 + 0.5
    assert "retry later" in str(raised.value) and "\n" not in str(raised.value)


def test_a_slow_answer_past_the_timeout_is_retried(fake_arxiv):
    add_entries(fake_arxiv.fixtures, date(2025, 1, 1), 3)
    fake_arxiv.fixtures.queue(Fault.slow(1.0))
    fetch = client(fake_arxiv.url, timeout_s=0.3).fetch_window(date(2025, 1, 1), date(2025, 1, 31), LOG)
    assert fetch.fetched == 3 and fetch.requests == 2


def test_a_slow_answer_within_the_timeout_is_simply_waited_for(fake_arxiv):
    add_entries(fake_arxiv.fixtures, date(2025, 1, 1), 3)
    fake_arxiv.fixtures.queue(Fault.slow(0.3))
    fetch = client(fake_arxiv.url, timeout_s=5).fetch_window(date(2025, 1, 1), date(2025, 1, 31), LOG)
    assert fetch.fetched == 3 and fetch.requests == 1


def test_an_unreachable_arxiv_fails_at_once_naming_the_snapshot_option(unused_port):
    with pytest.raises(SourceUnavailableError, match=r"cannot reach arXiv.*TRACKER_SNAPSHOT_DIR.*--snapshot"):
        client(f"http://127.0.0.1:{unused_port}/api/query", backoff_s=30).fetch_window(
            date(2025, 1, 1), date(2025, 1, 2), LOG
        )


def test_an_http_error_that_retrying_cannot_fix_is_not_retried(fake_arxiv):
    with pytest.raises(ArxivUnavailableError, match="HTTP 404"):
        client(fake_arxiv.url.replace("/api/query", "/api/nothing")).fetch_window(
            date(2025, 1, 1), date(2025, 1, 2), LOG
        )
    assert len(fake_arxiv.fixtures.requests) == 1


def test_duplicates_across_pages_are_kept_once(fake_arxiv):
    add_entries(fake_arxiv.fixtures, date(2025, 1, 1), 12)
    published = datetime(2025, 1, 1, tzinfo=UTC)
    fake_arxiv.fixtures.add(published, arxiv_entry("2501.00000", published))  # listed twice by the server
    fetch = client(fake_arxiv.url).fetch_window(date(2025, 1, 1), date(2025, 1, 31), LOG)
    assert fetch.entries.height == 12 and fetch.duplicates == 1 and fetch.fetched == 12


def test_a_window_over_the_result_cap_is_split_until_every_query_fits(fake_arxiv):
    add_entries(fake_arxiv.fixtures, date(2025, 1, 1), 48, per_day=6)  # 8 days of 6
    fake_arxiv.fixtures.result_cap = 12  # the fake refuses start + max_results beyond it, as arXiv does
    fetch = client(fake_arxiv.url, page_size=5, result_cap=12).fetch_window(date(2025, 1, 1), date(2025, 1, 8), LOG)
    assert fetch.entries["arxiv_id"].n_unique() == 48 and fetch.complete
    assert (fetch.received, fetch.total_results, fetch.queries) == (48, 48, 4)
    queries = [request.query for request in fake_arxiv.fixtures.requests]
    assert all(int(q["start"]) + int(q["max_results"]) <= 12 for q in queries)
    ranges = [q["search_query"][q["search_query"].index("[") :] for q in queries if q["start"] == "0"]
    assert ranges == [
        "[202501010000 TO 202501082359]",  # 48 > 12: halved
        "[202501010000 TO 202501042359]",  # 24 > 12: halved
        "[202501010000 TO 202501022359]",
        "[202501030000 TO 202501042359]",
        "[202501050000 TO 202501082359]",
        "[202501050000 TO 202501062359]",
        "[202501070000 TO 202501082359]",
    ]
    assert fetch.requests == 3 + 4 * 3  # three refused-size probes, then 12 entries in pages of 5, 5, 2


def test_a_single_day_over_the_result_cap_fails_naming_the_query_file(fake_arxiv):
    add_entries(fake_arxiv.fixtures, date(2025, 1, 1), 5, per_day=5)
    with pytest.raises(ArxivUnavailableError, match=r"5 results for the single day 2025-01-01.*arxiv.toml"):
        client(fake_arxiv.url, result_cap=4).fetch_window(date(2025, 1, 1), date(2025, 1, 1), LOG)


def test_received_counts_distinct_entries_of_any_day_against_the_feeds_total(fake_arxiv):
    add_entries(fake_arxiv.fixtures, date(2025, 1, 1), 12)
    fake_arxiv.fixtures.add(datetime(2025, 1, 1, tzinfo=UTC), arxiv_entry("2501.00000", datetime(2025, 1, 1, tzinfo=UTC)))
    fetch = client(fake_arxiv.url).fetch_window(date(2025, 1, 1), date(2025, 1, 31), LOG)
    # the server counts 13 entries but one is the same paper twice: 12 distinct received
    assert (fetch.received, fetch.total_results, fetch.duplicates) == (12, 13, 1) and not fetch.complete


def test_the_snapshot_client_reads_the_same_format_and_filters_the_window(tmp_path, fake_arxiv):
    from fakes.arxiv_server import atom_feed

    folder = tmp_path / "arxiv"
    folder.mkdir()
    january = [arxiv_entry(f"2501.{n:05d}", datetime(2025, 1, 1 + n, tzinfo=UTC)) for n in range(5)]
    (folder / "2025-01.xml").write_text(atom_feed("submittedDate:[202501010000 TO 202501312359]", january, 5, 0))
    fetch = SnapshotArxivClient(tmp_path).fetch_window(date(2025, 1, 2), date(2025, 1, 3), LOG)
    assert fetch.entries["arxiv_id"].to_list() == ["2501.00001", "2501.00002"]
    assert fetch.outside_window == 3 and fetch.requests == 0
    assert (fetch.received, fetch.total_results, fetch.queries) == (5, 5, 1)  # every recorded entry counts


def test_a_snapshot_folder_without_responses_is_a_clear_error(tmp_path):
    with pytest.raises(SourceUnavailableError, match=r"no recorded arXiv responses"):
        SnapshotArxivClient(tmp_path).fetch_window(date(2025, 1, 1), date(2025, 1, 2), LOG)
