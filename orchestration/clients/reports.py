"""Technical reports of large models: the configured list (orchestration/config/
tech_reports.toml) and the reports' text, for the technical-report coverage metric.

The text comes from a `ReportTextSource`: in snapshot mode the recorded excerpts
(`<snapshot>/reports/reports.jsonl`: verbatim passages of the reports' RL sections, so a
method not in them may still be named elsewhere in the report); live, the report's
arXiv abstract and HTML full text, cached in the warehouse by the caller.
"""

from __future__ import annotations

import abc
import json
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import polars as pl

from orchestration.settings import CONFIG_DIR, ConfigError

TECH_REPORTS_PATH = CONFIG_DIR / "tech_reports.toml"
SNAPSHOT_REPORTS = Path("reports") / "reports.jsonl"

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


class LiveReportTextSource(ReportTextSource):
    """TODO (not implemented yet): the report's arXiv abstract (API) and HTML full text
    (`https://arxiv.org/html/<id>`), polite like the arXiv client and cached in the
    warehouse by the caller so a report is fetched once."""

    def report_texts(self, arxiv_ids: Sequence[str]) -> pl.DataFrame:
        raise NotImplementedError(
            "live technical-report text is not implemented yet; run with --snapshot DIR (TRACKER_SNAPSHOT_DIR)"
        )
