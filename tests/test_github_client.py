"""GitHub client against the fake GitHub server: paging, ETags, rate limits, retries, secrecy."""

from __future__ import annotations

import logging
import time
import traceback
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from orchestration.clients.github import (
    GithubApiThreads,
    GithubClient,
    GithubError,
    RateLimitExceeded,
    SourceUnavailableError,
    since_param,
    watermark,
)
from orchestration.settings import Framework
from fakes.github_server import Fault, comment_item, issue_item, synthetic_fixtures
from fakes.serving import free_port
from fakes.serving import silent_server
from tests.github_fixtures import FakeGithub, fake_github  # noqa: F401  (the fixture)

REPO = "acme/rl"
ISSUES = f"/repos/{REPO}/issues"
COMMENTS = f"/repos/{REPO}/issues/comments"
LIST = {"state": "all", "sort": "updated", "direction": "asc", "per_page": 100}
T0 = datetime(2025, 1, 1, tzinfo=UTC)
ACME = Framework("acme", REPO, "main", (), ())
SECRET = "ghp_SECRET123"


class Sleeps(list):
    """An injected `sleep` that records instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def make_client(fake: FakeGithub, **options) -> tuple[GithubClient, Sleeps]:
    sleeps = Sleeps()
    options.setdefault("token", "t0ken")
    return GithubClient(fake.url, sleep=sleeps, timeout_s=options.pop("timeout_s", 5), **options), sleeps


def add_threads(fake: FakeGithub, count: int, start: datetime = T0) -> None:
    fake.fixtures.add_issues(
        REPO, *(issue_item(REPO, n, updated_at=start + timedelta(minutes=n)) for n in range(1, count + 1))
    )


def test_pages_are_followed_through_the_link_header(fake_github):
    add_threads(fake_github, 250)
    client, _ = make_client(fake_github)
    items = client.get_pages(ISSUES, LIST)
    assert [item["number"] for item in items] == list(range(1, 251))
    requests = fake_github.fixtures.requests_to(ISSUES)
    assert [r.query.get("page") for r in requests] == [None, "2", "3"]
    assert client.requests == 3 and client.not_modified == 0


def test_etag_round_trip_second_call_is_not_modified(fake_github):
    add_threads(fake_github, 5)
    client, _ = make_client(fake_github)
    assert len(client.get_pages(ISSUES, LIST)) == 5
    url = client.url(ISSUES, LIST)
    assert list(client.etags) == [url] and "per_page=100" in url
    assert client.get_pages(ISSUES, LIST) is None
    first, second = fake_github.fixtures.requests_to(ISSUES)
    assert "if-none-match" not in first.headers
    assert second.headers["if-none-match"] == client.etags[url]
    assert (client.requests, client.not_modified) == (2, 1)


def test_a_change_invalidates_the_etag(fake_github):
    add_threads(fake_github, 3)
    client, _ = make_client(fake_github)
    client.get_pages(ISSUES, LIST)
    fake_github.fixtures.update_issue(REPO, 2, title="renamed", updated_at="2025-02-01T00:00:00Z")
    items = client.get_pages(ISSUES, LIST)
    assert [item["number"] for item in items] == [1, 3, 2]
    assert client.not_modified == 0


def test_etags_persist_across_clients_through_the_mapping(fake_github):
    add_threads(fake_github, 3)
    etags: dict[str, str] = {}
    make_client(fake_github, etags=etags)[0].get_pages(ISSUES, LIST)
    client, _ = make_client(fake_github, etags=etags)
    assert client.get_pages(ISSUES, LIST) is None and client.not_modified == 1


def test_a_multi_page_or_full_first_page_is_not_trusted_by_etag(fake_github):
    # Sorted ascending by update, a change lands on the last page: page one's ETag
    # would hide it, so lists longer than one page are always read again.
    add_threads(fake_github, 150)
    client, _ = make_client(fake_github)
    client.get_pages(ISSUES, LIST)
    assert client.etags == {}
    # Exactly one full page: one more update would start page two, page one unchanged.
    fake_github.fixtures.issues[REPO] = fake_github.fixtures.issues[REPO][:100]
    assert len(client.get_pages(ISSUES, LIST)) == 100
    assert client.etags == {}


def test_since_is_sent_and_filters(fake_github):
    add_threads(fake_github, 10)
    client, _ = make_client(fake_github)
    since = since_param(T0 + timedelta(minutes=7))
    items = client.get_pages(ISSUES, {**LIST, "since": since})
    assert [item["number"] for item in items] == [7, 8, 9, 10]
    assert fake_github.fixtures.requests_to(ISSUES)[0].query["since"] == "2025-01-01T00:07:00Z"


def test_watermark_and_since_param():
    assert watermark(None) is None
    assert watermark(datetime(2025, 5, 1, 12, tzinfo=UTC)) == datetime(2025, 5, 1, 11, tzinfo=UTC)
    assert watermark(datetime(2025, 5, 1, 12), timedelta(minutes=5)) == datetime(2025, 5, 1, 11, 55, tzinfo=UTC)
    assert since_param(datetime(2025, 5, 1, 12, 0, 0, 999_999, tzinfo=UTC)) == "2025-05-01T12:00:00Z"
    assert since_param(None) is None


def test_primary_rate_limit_waits_for_the_reset(fake_github):
    add_threads(fake_github, 2)
    fake_github.fixtures.queue(Fault.primary_limit(reset_in_s=2))
    client, sleeps = make_client(fake_github)
    assert len(client.get_pages(ISSUES, LIST)) == 2
    assert len(sleeps) == 1 and 1.0 <= sleeps[0] <= 3.5  # until reset, plus a second
    assert client.requests == 2


def test_primary_rate_limit_beyond_the_allowed_wait_raises(fake_github):
    fake_github.fixtures.queue(Fault.primary_limit(reset_in_s=3600))
    client, sleeps = make_client(fake_github, token=None, max_rate_limit_wait_s=900)
    with pytest.raises(RateLimitExceeded) as caught:
        client.get_pages(ISSUES, LIST)
    message = str(caught.value)
    assert "resets at" in message and "GITHUB_TOKEN" in message and "max_rate_limit_wait_s" in message
    assert caught.value.status == 403 and sleeps == []


def test_a_spent_quota_on_a_200_waits_before_the_next_request(fake_github):
    add_threads(fake_github, 150)
    fake_github.fixtures.queue(Fault.spent_quota(reset_in_s=2))
    client, sleeps = make_client(fake_github)
    assert len(client.get_pages(ISSUES, LIST)) == 150
    assert len(sleeps) == 1 and 1.0 <= sleeps[0] <= 3.5
    assert client.requests == 2


@pytest.mark.parametrize(("retry_after", "status", "expected"), [(None, 403, 60), (120, 403, 120), (5, 429, 60)])
def test_secondary_rate_limit_waits_at_least_a_minute(fake_github, retry_after, status, expected):
    add_threads(fake_github, 2)
    fake_github.fixtures.queue(Fault.secondary_limit(retry_after=retry_after, status=status))
    client, sleeps = make_client(fake_github)
    assert len(client.get_pages(ISSUES, LIST)) == 2
    assert sleeps == [expected]


def test_repeated_secondary_limits_back_off_then_give_up(fake_github):
    fake_github.fixtures.queue(*[Fault.secondary_limit()] * 3)
    client, sleeps = make_client(fake_github, max_retries=2, max_rate_limit_wait_s=10_000)
    with pytest.raises(RateLimitExceeded, match="secondary rate limit"):
        client.get_pages(ISSUES, LIST)
    assert sleeps == [60, 120]


@pytest.mark.parametrize("status", [500, 502, 503])
def test_server_errors_are_retried(fake_github, status):
    add_threads(fake_github, 2)
    fake_github.fixtures.queue(Fault.server_error(status), Fault.server_error(status))
    client, sleeps = make_client(fake_github)
    assert len(client.get_pages(ISSUES, LIST)) == 2
    assert client.requests == 3 and len(sleeps) == 2
    assert 1.0 <= sleeps[0] <= 1.25 and 2.0 <= sleeps[1] <= 2.5  # doubling, with jitter


def test_server_errors_beyond_the_retries_raise(fake_github):
    fake_github.fixtures.queue(*[Fault.server_error(502)] * 4)
    client, _ = make_client(fake_github, max_retries=3)
    with pytest.raises(SourceUnavailableError) as caught:
        client.get_pages(ISSUES, LIST)
    assert caught.value.status == 502 and "502" in str(caught.value) and ISSUES in str(caught.value)
    assert client.requests == 4


def test_a_connection_reset_is_retried(fake_github):
    add_threads(fake_github, 2)
    fake_github.fixtures.queue(Fault.connection_reset())
    client, sleeps = make_client(fake_github)
    assert len(client.get_pages(ISSUES, LIST)) == 2
    assert client.requests == 2 and len(sleeps) == 1


def test_a_reset_on_a_later_page_is_retried(fake_github):
    add_threads(fake_github, 150)
    client, _ = make_client(fake_github)
    client.get_pages(ISSUES, LIST)  # opens a kept-alive connection
    fake_github.fixtures.queue(Fault.connection_reset())
    assert len(client.get_pages(ISSUES, LIST)) == 150


def test_a_timeout_is_retried(fake_github):
    add_threads(fake_github, 2)
    fake_github.fixtures.queue(Fault.slow(1.0))
    client, sleeps = make_client(fake_github, timeout_s=0.25)
    assert len(client.get_pages(ISSUES, LIST)) == 2
    assert client.requests == 2 and len(sleeps) == 1


@pytest.mark.parametrize("fault", [Fault.truncated(), Fault.plain_429(), Fault.empty_page()], ids=["truncated", "plain-429", "empty-page"])
def test_a_cut_off_body_a_plain_text_429_and_an_empty_linked_page_are_retried(fake_github, fault):
    add_threads(fake_github, 150)
    fake_github.fixtures.queue(fault)
    client, sleeps = make_client(fake_github, secondary_wait_s=0.5)
    assert [item["number"] for item in client.get_pages(ISSUES, LIST)] == list(range(1, 151))
    assert client.requests == 3 and client.retries == 1 and len(sleeps) == 1


def test_an_empty_last_page_the_link_header_promised_is_retried(fake_github):
    add_threads(fake_github, 150)
    fake_github.fixtures.queue(Fault.normal(), Fault.empty_page())  # page two comes back empty
    client, _ = make_client(fake_github)
    assert len(client.get_pages(ISSUES, LIST)) == 150 and client.retries == 1


def test_waits_are_bounded_by_the_refreshs_deadline(fake_github):
    fake_github.fixtures.queue(Fault.secondary_limit(retry_after=600, status=429))
    client, sleeps = make_client(fake_github, deadline_minutes=5)
    with pytest.raises(RateLimitExceeded, match=r"secondary rate limit.*deadline of 5 min \(deadline_minutes of the framework_sources resource\)"):
        client.get_pages(ISSUES, LIST)
    assert sleeps == [] and client.requests == 1


def test_a_server_that_never_answers_fails_within_the_deadline():
    with silent_server() as base_url:
        client = GithubClient(base_url, SECRET, timeout_s=0.2, max_retries=100, backoff_s=0.01, deadline_minutes=0.02)
        started = time.monotonic()
        with pytest.raises(SourceUnavailableError, match=r"ReadTimeout.*deadline of 0.02 min.*--snapshot") as raised:
            client.get_pages(ISSUES, LIST)
    assert time.monotonic() - started <= 0.02 * 60 + 0.5
    assert SECRET not in str(raised.value)


def test_other_client_errors_are_not_retried(fake_github):
    client, _ = make_client(fake_github)
    with pytest.raises(GithubError) as caught:
        client.get_pages("/repos/acme/missing/issues", LIST)
    assert caught.value.status == 404 and "Not Found" in str(caught.value) and "frameworks.toml" in str(caught.value)
    assert client.requests == 1


def test_without_a_token_one_warning_and_no_authorization(fake_github, caplog):
    add_threads(fake_github, 2)
    client, _ = make_client(fake_github, token=None)
    with caplog.at_level(logging.WARNING):
        client.get_pages(ISSUES, LIST)
        client.get_pages(ISSUES, LIST)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "60" in warnings[0].getMessage() and "GITHUB_TOKEN" in warnings[0].getMessage()
    assert all("authorization" not in r.headers for r in fake_github.fixtures.requests)


def test_headers_sent_with_a_token(fake_github, caplog):
    add_threads(fake_github, 2)
    client, _ = make_client(fake_github, token=SECRET)
    with caplog.at_level(logging.WARNING):
        client.get_pages(ISSUES, LIST)
    assert not caplog.records
    (request,) = fake_github.fixtures.requests
    assert request.headers["authorization"] == f"Bearer {SECRET}"
    assert request.headers["accept"] == "application/vnd.github+json"
    assert request.headers["x-github-api-version"] == "2022-11-28"
    assert request.headers["user-agent"] == "inclusion-tracker/0.1"


def test_the_token_appears_nowhere(fake_github, caplog):
    """Every error path, with a token: not in exceptions (with their causes), logs or ETag keys."""
    caplog.set_level(logging.DEBUG)
    add_threads(fake_github, 150)
    fake = fake_github
    scenarios = [
        (dict(), [Fault.server_error(500)] * 3),
        (dict(), [Fault.connection_reset()] * 3),
        (dict(timeout_s=0.2), [Fault.slow(0.6)] * 3),
        (dict(), [Fault.primary_limit(reset_in_s=3600)]),
        (dict(max_rate_limit_wait_s=10_000), [Fault.secondary_limit(retry_after=1)] * 3),
        (dict(), [Fault.secondary_limit(status=429)] * 3),
        (dict(), [Fault.spent_quota(reset_in_s=3600)]),
    ]
    texts = []
    client = None
    for options, faults in scenarios:
        fake.fixtures.queue(*faults)
        client, _ = make_client(fake, token=SECRET, max_retries=2, **options)
        with pytest.raises(GithubError) as caught:
            client.get_pages(ISSUES, LIST)
        texts += ["".join(traceback.format_exception(caught.value)), repr(caught.value), repr(client)]
        fake.fixtures.faults.clear()
    for path in ("/repos/acme/missing/issues",):
        client, _ = make_client(fake, token=SECRET)
        with pytest.raises(GithubError) as caught:
            client.get_pages(path, LIST)
        texts.append("".join(traceback.format_exception(caught.value)))
    dead = GithubClient(f"http://127.0.0.1:{free_port()}", SECRET, sleep=Sleeps())
    with pytest.raises(SourceUnavailableError) as caught:
        dead.get_pages(ISSUES, LIST)
    texts.append("".join(traceback.format_exception(caught.value)))
    fake.fixtures.issues[REPO] = fake.fixtures.issues[REPO][:3]
    ok, _ = make_client(fake, token=SECRET)
    items = ok.get_pages(ISSUES, LIST)
    texts += [repr(items), repr(dict(ok.etags)), caplog.text]
    texts += [f"{r.getMessage()} {r.args}" for r in caplog.records]
    assert len(texts) > 20 and ok.etags
    assert not [text for text in texts if SECRET in text]
    # ... while the server did receive it.
    assert any(r.headers.get("authorization") == f"Bearer {SECRET}" for r in fake.fixtures.requests)


def test_nothing_listening_fails_fast_with_advice():
    client = GithubClient(f"http://127.0.0.1:{free_port()}", SECRET)  # real sleeps, default retries
    started = time.monotonic()
    with pytest.raises(SourceUnavailableError) as caught:
        client.get_pages(ISSUES, LIST)
    assert time.monotonic() - started < 10
    message = str(caught.value)
    assert "127.0.0.1" in message and ISSUES in message
    assert "TRACKER_SNAPSHOT_DIR" in message and "--snapshot" in message


def test_a_pagination_link_to_another_host_is_not_followed():
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=[{"number": 1}], headers={"link": '<https://evil.example/x?page=2>; rel="next"'})

    client = GithubClient("https://api.github.com", SECRET, transport=httpx.MockTransport(handler), sleep=Sleeps())
    with pytest.raises(GithubError, match="leaves") as caught:
        client.get_pages(ISSUES, LIST)
    assert SECRET not in str(caught.value)


# -- GithubApiThreads ---------------------------------------------------------------------


def test_refresh_reads_threads_and_comments(fake_github):
    fake_github.fixtures.add_issues(
        REPO,
        issue_item(REPO, 1, updated_at=T0, comments=1),
        issue_item(REPO, 2, updated_at=T0 + timedelta(days=2), pull_request=True, merged_at=T0, state="closed"),
    )
    fake_github.fixtures.add_comments(
        REPO,
        comment_item(REPO, 11, 1, updated_at=T0),
        comment_item(REPO, 12, 2, updated_at=T0 + timedelta(days=3)),
    )
    source = GithubApiThreads(make_client(fake_github)[0])
    full = source.refresh(ACME, None, None)
    assert full.threads["number"].to_list() == [1, 2] and full.threads["state"].to_list() == ["open", "merged"]
    assert full.comments["comment_id"].to_list() == [11, 12] and full.comments["thread_number"].to_list() == [1, 2]
    assert (full.requests, full.not_modified, full.complete_history) == (2, 0, True)
    since = T0 + timedelta(days=1)
    later = source.refresh(ACME, since, since)
    assert later.threads["number"].to_list() == [2] and later.comments["comment_id"].to_list() == [12]
    assert later.complete_history is False
    sent = fake_github.fixtures.requests[-2:]
    assert [r.path for r in sent] == [ISSUES, COMMENTS]
    assert sent[0].query == {**{k: str(v) for k, v in LIST.items()}, "since": "2025-01-02T00:00:00Z"}
    assert sent[1].query == {"sort": "updated", "direction": "asc", "per_page": "100", "since": "2025-01-02T00:00:00Z"}


def test_a_no_change_refresh_is_two_not_modified_requests(fake_github):
    fixtures = synthetic_fixtures([REPO], threads_per_repo=250, comments_per_thread=2)
    fake_github.fixtures.issues, fake_github.fixtures.comments = fixtures.issues, fixtures.comments
    etags: dict[str, str] = {}
    first = GithubApiThreads(make_client(fake_github, etags=etags)[0]).refresh(ACME, None, None)
    assert first.threads.height == 250 and first.comments.height == 500 and first.requests == 3 + 5
    threads_since = watermark(first.threads["updated_at"].max())
    comments_since = watermark(first.comments["updated_at"].max())
    # Daily runs each get a new client; the ETags persist (the warehouse stores them).
    second = GithubApiThreads(make_client(fake_github, etags=etags)[0]).refresh(ACME, threads_since, comments_since)
    assert second.requests == 2 and second.not_modified == 0 and second.threads.height >= 1
    fake_github.fixtures.clear_requests()
    third = GithubApiThreads(make_client(fake_github, etags=etags)[0]).refresh(ACME, threads_since, comments_since)
    assert (third.requests, third.not_modified) == (2, 2)
    assert third.threads.is_empty() and third.comments.is_empty() and third.complete_history is False
    assert [r.headers.get("if-none-match") is not None for r in fake_github.fixtures.requests] == [True, True]
    assert len(etags) == 2 and all("t0ken" not in url for url in etags)
