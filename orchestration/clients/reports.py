"""Technical reports of large models: the configured list (orchestration/config/
tech_reports.toml) and the reports' text, for the technical-report coverage metric.

The text comes from a `ReportTextSource`: in snapshot mode the recorded excerpts
(`<snapshot>/reports/reports.jsonl`: verbatim passages of the reports' RL sections, so a
method not in them may still be named elsewhere in the report); live, the report's
arXiv abstract and HTML full text (`LiveReportTextSource`), cached in raw.report_texts
by `cached_report_texts`, which an asset calls with either source.
"""

from __future__ import annotations

import abc
import json
import logging
import time
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

import httpx
import polars as pl

from orchestration.clients.arxiv import SNAPSHOT_HINT, USER_AGENT, Log, SourceUnavailableError
from orchestration.clients.arxiv_feed import ArxivFeedError, parse_feed
from orchestration.clients.http_retry import Deadline, GaveUp, Pacer, RetryableFault, RetryPolicy, raise_if_retryable_status
from orchestration.clients.report_html import latexml_passages
from orchestration.settings import CONFIG_DIR, ConfigError
from orchestration.tables import RAW_REPORT_TEXTS
from orchestration.warehouse import Warehouse, upsert_rows

TECH_REPORTS_PATH = CONFIG_DIR / "tech_reports.toml"
SNAPSHOT_REPORTS = Path("reports") / "reports.jsonl"
#: arXiv's HTML renderings: `<ARXIV_HTML_URL>/<id>` is a paper's latest version.
ARXIV_HTML_URL = "https://arxiv.org/html"
#: Ids asked of the arXiv API in one `id_list` request.
ID_LIST_BATCH = 100
_LOG = logging.getLogger(__name__)

#: One passage of a report's text (a section's excerpt, or the whole text).
REPORT_TEXT_SCHEMA: dict[str, pl.DataType] = {
    "report_id": pl.Utf8(),  # the report's arXiv id
    "section": pl.Utf8(),
    "text": pl.Utf8(),
}

_ARXIV_ID = r"^\d{4}\.\d{4,5}$"


@dataclass(frozen=True)
class TechReport:
    arxiv_id: str
    model: str
    open_weights: bool
    total_params_b: float | None
    note: str | None


@dataclass(frozen=True)
class MethodNaming:
    arxiv_id: str
    name: str
    aliases: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class MethodPart:
    arxiv_id: str
    part: str
    phrases: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class TechReportConfig:
    widely_included_frameworks: int
    reports: tuple[TechReport, ...]
    methods: tuple[MethodNaming, ...]
    method_parts: tuple[MethodPart, ...]

    def reports_among(self, arxiv_ids: Sequence[str]) -> list[str]:
        """The configured reports that are among `arxiv_ids` (harvested papers), in config order."""
        known = set(arxiv_ids)
        return [report.arxiv_id for report in self.reports if report.arxiv_id in known]

    def report_frame(self) -> pl.DataFrame:
        """`report_id`, `model`, `open_weights`, `total_params_b`."""
        return pl.DataFrame(
            [(r.arxiv_id, r.model, r.open_weights, r.total_params_b) for r in self.reports],
            schema={"report_id": pl.Utf8, "model": pl.Utf8, "open_weights": pl.Boolean, "total_params_b": pl.Float64},
            orient="row",
        )

    def naming_frame(self) -> pl.DataFrame:
        """`arxiv_id`, `name`, `aliases` (list)."""
        return pl.DataFrame(
            [(m.arxiv_id, m.name, list(m.aliases)) for m in self.methods],
            schema={"arxiv_id": pl.Utf8, "name": pl.Utf8, "aliases": pl.List(pl.Utf8)},
            orient="row",
        )

    def part_frame(self) -> pl.DataFrame:
        """`arxiv_id`, `part`, `phrase`: one row per phrase."""
        return pl.DataFrame(
            [(p.arxiv_id, p.part, phrase) for p in self.method_parts for phrase in p.phrases],
            schema={"arxiv_id": pl.Utf8, "part": pl.Utf8, "phrase": pl.Utf8},
            orient="row",
        )


def _entries(path: Path, raw: dict, table: str, required: dict[str, type], optional: dict[str, type]):
    entries = raw.get(table, [])
    if not isinstance(entries, list):
        raise ConfigError(f"{path}: '{table}' must be [[{table}]] tables")
    for index, entry in enumerate(entries, start=1):
        where = f"{path}: {table} #{index} ({entry.get('arxiv_id', '?')})"
        unknown = set(entry) - set(required) - set(optional)
        if unknown:
            raise ConfigError(f"{where}: unknown key(s) {sorted(unknown)}")
        for key, kind in (required | optional).items():
            value = entry.get(key)
            if value is None and key in optional:
                continue
            if kind is tuple:
                if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
                    raise ConfigError(f"{where}: '{key}' must be a non-empty list of non-empty strings")
            elif kind is float:
                if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                    raise ConfigError(f"{where}: '{key}' must be a positive number, got {value!r}")
            elif not isinstance(value, kind) or (kind is str and not value.strip()):
                raise ConfigError(f"{where}: '{key}' must be a non-empty {kind.__name__}, got {value!r}")
        if not pl.Series([entry["arxiv_id"]]).str.contains(_ARXIV_ID).all():
            raise ConfigError(f"{where}: 'arxiv_id' must be an arXiv id without version, like 2503.14476")
        yield entry


def parse_tech_report_config(raw: dict, path: Path = TECH_REPORTS_PATH) -> TechReportConfig:
    unknown = set(raw) - {"widely_included_frameworks", "report", "method", "method_part"}
    if unknown:
        raise ConfigError(f"{path}: unknown top-level key(s) {sorted(unknown)}")
    k = raw.get("widely_included_frameworks", 3)
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ConfigError(f"{path}: 'widely_included_frameworks' must be a positive integer, got {k!r}")
    reports = tuple(
        TechReport(e["arxiv_id"], e["model"], e["open_weights"], e.get("total_params_b"), e.get("note"))
        for e in _entries(
            path, raw, "report", {"arxiv_id": str, "model": str, "open_weights": bool}, {"total_params_b": float, "note": str}
        )
    )
    if not reports:
        raise ConfigError(f"{path}: no [[report]] entries")
    methods = tuple(
        MethodNaming(e["arxiv_id"], e["name"], tuple(e["aliases"]), e["reason"])
        for e in _entries(path, raw, "method", {"arxiv_id": str, "name": str, "aliases": tuple, "reason": str}, {})
    )
    parts = tuple(
        MethodPart(e["arxiv_id"], e["part"], tuple(e["phrases"]), e["reason"])
        for e in _entries(path, raw, "method_part", {"arxiv_id": str, "part": str, "phrases": tuple, "reason": str}, {})
    )
    for what, keys in (
        ("report", [r.arxiv_id for r in reports]),
        ("method", [m.arxiv_id for m in methods]),
        ("method_part", [(p.arxiv_id, p.part) for p in parts]),
    ):
        repeated = sorted({key for key in keys if keys.count(key) > 1}, key=str)
        if repeated:
            raise ConfigError(f"{path}: [[{what}]] listed twice: {repeated}; keep one entry each")
    return TechReportConfig(k, reports, methods, parts)


@cache
def tech_report_config(path: Path = TECH_REPORTS_PATH) -> TechReportConfig:
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise ConfigError(f"{path}: configuration file not found") from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from error
    return parse_tech_report_config(raw, path)


class ReportTextSource(abc.ABC):
    """Where the text of technical reports comes from."""

    @abc.abstractmethod
    def report_texts(self, arxiv_ids: Sequence[str]) -> pl.DataFrame:
        """REPORT_TEXT_SCHEMA rows of the given reports; a report with no known text has none."""


class SnapshotReportTextSource(ReportTextSource):
    """The recorded excerpts: `<snapshot_dir>/reports/reports.jsonl`."""

    def __init__(self, snapshot_dir: str | Path):
        self.path = Path(snapshot_dir) / SNAPSHOT_REPORTS

    def report_texts(self, arxiv_ids: Sequence[str]) -> pl.DataFrame:
        if not self.path.is_file():
            raise FileNotFoundError(f"{self.path}: no recorded technical reports; the snapshot folder lacks reports/")
        rows = []
        for line_number, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                rows += [(record["arxiv_id"], p.get("section"), p["text"]) for p in record.get("passages") or []]
            except (json.JSONDecodeError, KeyError, TypeError) as error:
                raise ValueError(f"{self.path}:{line_number}: not a report record ({error!r}); expected arxiv_id and passages[].text") from error
        return pl.DataFrame(rows, schema=REPORT_TEXT_SCHEMA, orient="row").filter(
            pl.col("report_id").is_in(list(arxiv_ids))
        )


class ReportFetchError(RuntimeError):
    """Some reports could not be fetched after the retries; the message names them."""


@dataclass(frozen=True)
class ReportFetch:
    """What one fetch of reports received."""

    rows: pl.DataFrame  # RAW_REPORT_TEXTS rows of the reports fetched
    missing: tuple[str, ...]  # ids the API's answer lacks: arXiv has no such paper (or no readable entry)
    failed: dict[str, str]  # id -> why it could not be fetched (retries spent, deadline reached)
    requests: int


class _GaveUp(Exception):
    """One request (or what depends on it) is given up; the message says why, in a few words."""


class LiveReportTextSource(ReportTextSource):
    """A report's abstract from the arXiv API (`id_list`, up to 100 ids a request) and its
    full text from arXiv's HTML rendering (`<html_url>/<id>`; many reports have none: 404).

    Polite like the arXiv client: one request at a time, `min_interval_s` apart; HTTP 429,
    403, 5xx, timeouts and dropped connections are retried by the shared policy (Retry-After
    honoured); one fetch stops asking at its deadline (`deadline_minutes`). A report that
    cannot be fetched is reported in `ReportFetch.failed` and the others are kept. A
    connection refused before arXiv answered once fails at once: arXiv is unreachable.
    Cached in the warehouse by `cached_report_texts`, so a report is fetched once.
    """

    def __init__(
        self,
        api_url: str,
        html_url: str = ARXIV_HTML_URL,
        *,
        min_interval_s: float = 3.0,
        max_retries: int = 4,
        backoff_s: float = 5.0,
        timeout_s: float = 60.0,
        deadline_minutes: float = 30.0,
        user_agent: str = USER_AGENT,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.api_url = api_url
        self.html_url = html_url.rstrip("/")
        self.timeout_s = timeout_s
        self.deadline_minutes = deadline_minutes
        self.user_agent = user_agent
        self._transport = transport
        self._clock = clock
        self.pacer = Pacer(min_interval_s, sleep=sleep, clock=clock)
        self.retry_policy = RetryPolicy(max_retries=max_retries, backoff_s=backoff_s, sleep=sleep)
        self._answered = False
        self.requests = 0

    def report_texts(self, arxiv_ids: Sequence[str]) -> pl.DataFrame:
        """Fetch without a cache; raises ReportFetchError when a report cannot be fetched."""
        fetch = self.fetch(arxiv_ids, _LOG)
        if fetch.failed:
            raise ReportFetchError(_failure_message(fetch.failed))
        return report_text_rows(fetch.rows, arxiv_ids)

    def fetch(self, arxiv_ids: Sequence[str], log: Log) -> ReportFetch:
        """The texts of the reports, each report whole (abstract and HTML) or not at all."""
        wanted = list(dict.fromkeys(arxiv_ids))
        self.requests = 0
        deadline = Deadline(self.deadline_minutes, self._clock, "deadline_minutes of the arxiv resource")
        rows: list[dict] = []
        missing: list[str] = []
        failed: dict[str, str] = {}
        with httpx.Client(
            headers={"User-Agent": self.user_agent}, timeout=self.timeout_s, transport=self._transport, follow_redirects=True
        ) as http:
            for batch in (wanted[start : start + ID_LIST_BATCH] for start in range(0, len(wanted), ID_LIST_BATCH)):
                try:
                    abstracts = self._abstracts(http, batch, deadline, log)
                except _GaveUp as error:
                    failed |= {arxiv_id: f"arXiv API: {error}" for arxiv_id in batch}
                    continue
                missing += [arxiv_id for arxiv_id in batch if arxiv_id not in abstracts]
                for arxiv_id in (arxiv_id for arxiv_id in batch if arxiv_id in abstracts):
                    try:
                        rows += self._report_rows(http, arxiv_id, abstracts[arxiv_id], deadline, log)
                    except _GaveUp as error:
                        failed[arxiv_id] = f"HTML page: {error}"
        return ReportFetch(pl.DataFrame(rows, schema=RAW_REPORT_TEXTS.schema), tuple(missing), failed, self.requests)

    def _abstracts(self, http: httpx.Client, batch: Sequence[str], deadline: Deadline, log: Log) -> dict[str, str | None]:
        """Abstract by arXiv id of the ids the API knows."""
        response = self._get(http, self.api_url, deadline, log, {"id_list": ",".join(batch), "max_results": len(batch)})
        if response.status_code != 200:
            raise _GaveUp(f"HTTP {response.status_code}")
        try:
            page = parse_feed(response.content, f"arXiv API id_list of {len(batch)} report(s)")
        except ArxivFeedError as error:
            raise _GaveUp(str(error)) from error
        entries = page.entries.unique("arxiv_id", keep="last", maintain_order=True)
        return dict(zip(entries["arxiv_id"], entries["abstract"], strict=True))

    def _report_rows(
        self, http: httpx.Client, arxiv_id: str, abstract: str | None, deadline: Deadline, log: Log
    ) -> list[dict]:
        response = self._get(http, f"{self.html_url}/{arxiv_id}", deadline, log)
        if response.status_code not in (200, 404, 410):
            raise _GaveUp(f"HTTP {response.status_code}")
        passages = latexml_passages(response.text) if response.status_code == 200 else []
        if passages:
            status = "full_text"
            log.info(f"reports: {arxiv_id}: abstract and {len(passages)} paragraph(s) of HTML")
        elif response.status_code == 200:
            status = "html_without_text"
            log.warning(f"reports: {arxiv_id}: the HTML page holds no paragraph; keeping the abstract only")
        else:
            status = "no_html"
            log.info(f"reports: {arxiv_id}: arXiv has no HTML rendering (HTTP {response.status_code}); abstract only")
        fetched_at = datetime.now(UTC)
        texts = [("Abstract", abstract, "abstract")] if abstract else []
        texts += [(section, text, "html") for section, text in passages]
        return [
            {
                "report_id": arxiv_id,
                "passage": passage,
                "section": section,
                "text": text,
                "source": source,
                "fetched_at": fetched_at,
                "status": status,
            }
            for passage, (section, text, source) in enumerate(texts)
        ]

    def _attempt(self, http: httpx.Client, url: str, params: dict | None, deadline: Deadline) -> httpx.Response:
        """One GET: an answer that is neither 403, 429 nor 5xx, or RetryableFault."""
        with self.pacer.turn():
            self.requests += 1
            try:
                response = http.get(url, params=params, timeout=deadline.timeout(self.timeout_s))
            except httpx.ConnectError as error:
                if not self._answered:
                    raise SourceUnavailableError(
                        f"cannot reach arXiv at {url} ({type(error).__name__}: {error}); {SNAPSHOT_HINT}"
                    ) from error
                raise RetryableFault(type(error).__name__) from None
            except httpx.TransportError as error:  # timeouts, resets, a server that hung up
                raise RetryableFault(type(error).__name__) from None
        self._answered = True
        raise_if_retryable_status(response.status_code, response.headers)
        return response

    def _get(self, http: httpx.Client, url: str, deadline: Deadline, log: Log, params: dict | None = None) -> httpx.Response:
        """The answer to one GET that is neither 403, 429 nor 5xx, after the shared retries."""
        try:
            return self.retry_policy.call(
                lambda: self._attempt(http, url, params, deadline), deadline, what=f"reports: {url}", log=log
            )
        except GaveUp as gave_up:
            raise _GaveUp(gave_up.summary) from None


def report_text_rows(texts: pl.DataFrame, arxiv_ids: Sequence[str]) -> pl.DataFrame:
    """REPORT_TEXT_SCHEMA rows of the reports in `texts` (RAW_REPORT_TEXTS rows), in the
    order of `arxiv_ids`, each report's passages in text order."""
    order = pl.DataFrame({"report_id": list(dict.fromkeys(arxiv_ids))}, schema={"report_id": pl.Utf8}).with_row_index(
        "_order"
    )
    return texts.join(order, on="report_id").sort("_order", "passage").select(list(REPORT_TEXT_SCHEMA))


def _failure_message(failed: dict[str, str]) -> str:
    reasons = "; ".join(f"{arxiv_id}: {reason}" for arxiv_id, reason in failed.items())
    return f"technical-report text could not be fetched for {len(failed)} report(s) ({reasons}); rerun later to fetch them"


@dataclass(frozen=True)
class ReportTextsPlan:
    """Which reports a run wants, which of them the cache holds, and which to fetch."""

    wanted: list[str]
    cached: pl.DataFrame  # RAW_REPORT_TEXTS rows of the wanted reports already cached
    to_fetch: list[str]


def report_texts_plan(
    warehouse: Warehouse, source: ReportTextSource, arxiv_ids: Sequence[str], log: Log, *, refresh: bool = False
) -> ReportTextsPlan:
    """Read the cache (the only step that touches the warehouse before the fetch): a live
    source fetches the reports not cached yet (all of them with `refresh`); a recorded
    source is read whole, never cached."""
    wanted = list(dict.fromkeys(arxiv_ids))
    if not isinstance(source, LiveReportTextSource):
        return ReportTextsPlan(wanted, pl.DataFrame(schema=RAW_REPORT_TEXTS.schema), wanted)
    cached = warehouse.read_table(RAW_REPORT_TEXTS).filter(pl.col("report_id").is_in(wanted))
    already = set(cached["report_id"])
    to_fetch = wanted if refresh else [arxiv_id for arxiv_id in wanted if arxiv_id not in already]
    log.info(f"reports: {len(wanted) - len(to_fetch)} of {len(wanted)} cached in {RAW_REPORT_TEXTS.name}; fetching {len(to_fetch)}")
    return ReportTextsPlan(wanted, cached, to_fetch)


def fetch_report_texts(source: ReportTextSource, plan: ReportTextsPlan, log: Log) -> ReportFetch | pl.DataFrame:
    """The network (or recorded-file) half, no warehouse: a live source's ReportFetch, or a
    recorded source's REPORT_TEXT_SCHEMA rows."""
    if not isinstance(source, LiveReportTextSource):
        return source.report_texts(plan.wanted)
    if not plan.to_fetch:
        return ReportFetch(pl.DataFrame(schema=RAW_REPORT_TEXTS.schema), (), {}, 0)
    return source.fetch(plan.to_fetch, log)


def stored_report_texts(
    warehouse: Warehouse, plan: ReportTextsPlan, fetched: ReportFetch | pl.DataFrame, log: Log
) -> pl.DataFrame:
    """REPORT_TEXT_SCHEMA rows of the wanted reports, in their order, after caching what a
    live fetch received in one transaction, before any error is raised (a report fetched
    once is not fetched again). Raises ReportFetchError naming the reports that could not
    be fetched; a report arXiv does not know is logged and has no rows."""
    if isinstance(fetched, pl.DataFrame):
        return fetched
    cached = plan.cached
    if fetched.rows.height:
        with warehouse.connect() as conn:
            upsert_rows(conn, RAW_REPORT_TEXTS.name, fetched.rows, ["report_id"])
        cached = pl.concat([cached.filter(~pl.col("report_id").is_in(fetched.rows["report_id"].implode())), fetched.rows])
    if fetched.missing:
        log.warning(
            f"reports: arXiv's API does not list {', '.join(fetched.missing)}; they have no text (check their arxiv_id "
            f"in {TECH_REPORTS_PATH})"
        )
    if fetched.failed:
        raise ReportFetchError(_failure_message(fetched.failed))
    return report_text_rows(cached, plan.wanted)


def cached_report_texts(
    warehouse: Warehouse, source: ReportTextSource, arxiv_ids: Sequence[str], log: Log, *, refresh: bool = False
) -> pl.DataFrame:
    """REPORT_TEXT_SCHEMA rows of the reports, in the order of `arxiv_ids`: the plan, the
    fetch and the store in one call (the asset runs them as separate ops, so that the
    fetch holds no writer slot)."""
    plan = report_texts_plan(warehouse, source, arxiv_ids, log, refresh=refresh)
    return stored_report_texts(warehouse, plan, fetch_report_texts(source, plan, log), log)
