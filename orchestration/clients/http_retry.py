"""One retry policy for every HTTP client (arXiv, GitHub, OpenAlex, arXiv's report pages).

A client describes one logical request as a function that returns the answer or raises:
`RetryableFault` for what asking again may cure (429, 5xx, resets, timeouts, a truncated
or empty answer), anything else for what it cannot (a 404, a bad token), which is raised
at once. `RetryPolicy.call` runs it on tenacity: up to `max_retries` retries, each after
an exponential backoff with jitter capped at `max_backoff_s`, or after the wait the server
asked for (Retry-After, a rate limit's reset) where that is longer, and never past the
fetch's `Deadline`: a wait that would end past it is not started, and each request's
timeout is cut to the time left, so a server that accepts connections and never answers
fails the fetch by its deadline. `Pacer` spaces the requests of a client (arXiv asks for
one every 3 seconds), retries included.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Protocol, TypeVar

import tenacity

T = TypeVar("T")


class Log(Protocol):
    def warning(self, msg: str) -> None: ...


class RetryableFault(Exception):
    """A failed attempt worth repeating: `reason` in a few words, the wait the server asked
    for (`wait_s`, None if it asked for none) and the HTTP status, where there was one."""

    def __init__(self, reason: str, *, wait_s: float | None = None, status: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.wait_s = wait_s
        self.status = status


class GaveUp(Exception):
    """Retrying stopped: after `attempts` attempts whose last failed with `fault`, because
    the retries were spent or (`past_deadline`) the next wait would pass the deadline."""

    def __init__(self, fault: RetryableFault, attempts: int, deadline: Deadline, *, past_deadline: bool) -> None:
        self.fault = fault
        self.attempts = attempts
        self.deadline = deadline
        self.past_deadline = past_deadline
        super().__init__(self.summary)

    @property
    def summary(self) -> str:
        """`N attempt(s), last: reason`, and the deadline where it stopped the retries."""
        text = f"{self.attempts} attempt(s), last: {self.fault.reason}"
        if self.past_deadline:
            text += f"; stopped at this fetch's deadline of {self.deadline.minutes:g} min ({self.deadline.setting})"
        return text


class Deadline:
    """The time one fetch may take in all, requests, waits and retries included."""

    def __init__(
        self, minutes: float, clock: Callable[[], float] = time.monotonic, setting: str = "deadline_minutes"
    ) -> None:
        self.minutes = minutes
        self.setting = setting  # what to raise, named in the error
        self._clock = clock
        self._ends_at = clock() + minutes * 60

    def remaining(self) -> float:
        return self._ends_at - self._clock()

    def timeout(self, seconds: float) -> float:
        """A request timeout of `seconds`, cut to the time left (at least a millisecond)."""
        return max(min(seconds, self.remaining()), 0.001)


def retry_after_s(value: str | None, now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> float | None:
    """The seconds a `Retry-After` header asks for (delay-seconds or an HTTP date); None
    without a readable one."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        moment = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if moment is None or moment.tzinfo is None:
        return None
    return max((moment - now()).total_seconds(), 0.0)


class Pacer:
    """At most one request every `interval_s`, counted from the end of the previous one
    (answered or failed), so that requests also arrive that far apart."""

    def __init__(
        self, interval_s: float, *, sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.interval_s = interval_s
        self._sleep = sleep
        self._clock = clock
        self._last_end: float | None = None

    @contextmanager
    def turn(self) -> Iterator[None]:
        if self._last_end is not None:
            wait = self._last_end + self.interval_s - self._clock()
            if wait > 0:
                self._sleep(wait)
        try:
            yield
        finally:
            self._last_end = self._clock()


class RetryPolicy:
    """Bounded retries with exponential backoff and jitter (`backoff_s`, doubling, at most
    `max_backoff_s`, plus up to 25%), at least as long as the server asked, within a
    deadline. `retries` counts the retries made over the policy's life."""

    JITTER = 0.25

    def __init__(
        self,
        *,
        max_retries: int,
        backoff_s: float,
        max_backoff_s: float = 300.0,
        sleep: Callable[[float], None] = time.sleep,
        seed: int | None = None,
    ) -> None:
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.sleep = sleep
        self.retries = 0
        self._random = random.Random(seed)

    def backoff(self, retry: int) -> float:
        """The wait before retry number `retry` (1, 2, ...) when the server asked for none."""
        return min(self.backoff_s * 2 ** (retry - 1), self.max_backoff_s) * (1 + self.JITTER * self._random.random())

    def call(self, request: Callable[[], T], deadline: Deadline, *, what: str, log: Log) -> T:
        """`request()`'s answer, retried on RetryableFault; raises GaveUp when retries or
        time run out, and anything else `request` raises at once. `what` names the request
        in the retry warnings."""
        if deadline.remaining() <= 0:
            raise GaveUp(RetryableFault("not asked: no time left"), 0, deadline, past_deadline=True)

        def wait(state: tenacity.RetryCallState) -> float:
            fault = state.outcome.exception()
            asked = fault.wait_s if isinstance(fault, RetryableFault) and fault.wait_s is not None else 0.0
            return max(self.backoff(state.attempt_number), asked)

        def stop(state: tenacity.RetryCallState) -> bool:
            return state.attempt_number > self.max_retries or state.upcoming_sleep >= deadline.remaining()

        def before_sleep(state: tenacity.RetryCallState) -> None:
            self.retries += 1
            fault = state.outcome.exception()
            log.warning(
                f"{what}: {fault.reason}; retry {state.attempt_number}/{self.max_retries} in {state.upcoming_sleep:.1f} s"
            )

        def give_up(state: tenacity.RetryCallState) -> T:
            fault = state.outcome.exception()
            past_deadline = state.attempt_number <= self.max_retries
            raise GaveUp(fault, state.attempt_number, deadline, past_deadline=past_deadline) from None

        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception_type(RetryableFault),
            wait=wait,
            stop=stop,
            sleep=self.sleep,
            before_sleep=before_sleep,
            retry_error_callback=give_up,
        )
        return retrying(request)


def raise_if_retryable_status(status: int, headers: Mapping[str, str], detail: str = "") -> None:
    """RetryableFault for an answer worth asking again: 403 and 429 (rate limits) and 5xx,
    with the wait its Retry-After asks for; `detail` follows the status in the reason."""
    if status in (403, 429) or status >= 500:
        raise RetryableFault(
            f"HTTP {status}{': ' + detail if detail else ''}", wait_s=retry_after_s(headers.get("Retry-After")), status=status
        )

