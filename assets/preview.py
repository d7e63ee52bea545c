"""Metadata every asset attaches to its materialization: row count and a markdown preview."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import dagster as dg
import polars as pl

PREVIEW_ROWS = 10
_CELL_CHARS = 80


#: Control characters (tab and newline become spaces first).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
#: Characters markdown reads as markup inside a table cell: links and images ([text](url)),
#: emphasis, code, the cell border; raw HTML and autolinks (`<`, `&`) are escaped as entities below.
_MARKDOWN = re.compile(r"([\\`*_\[\]|])")


def _cell(value: object) -> str:
    """`value` as the text of one markdown table cell: titles, bodies and commit messages
    come from the sources, so markup in them (HTML, links, `javascript:` URLs) stays text."""
    if value is None:
        return ""
    if isinstance(value, list):
        value = ", ".join(str(item) for item in value)
    text = _CONTROL.sub("", str(value).replace("\t", " ").replace("\r", " ").replace("\n", " "))
    text = text if len(text) <= _CELL_CHARS else text[: _CELL_CHARS - 1] + "…"
    text = text.replace("&", "&amp;").replace("<", "&lt;")
    return _MARKDOWN.sub(r"\\\1", text)


def markdown_preview(frame: pl.DataFrame, columns: Sequence[str] | None = None, rows: int = PREVIEW_ROWS) -> str:
    """The first `rows` rows of `frame` as a markdown table (long cells cut)."""
    shown = frame.select(columns) if columns else frame
    header = "| " + " | ".join(shown.columns) + " |"
    rule = "| " + " | ".join("---" for _ in shown.columns) + " |"
    body = ["| " + " | ".join(_cell(value) for value in row) + " |" for row in shown.head(rows).iter_rows()]
    return "\n".join([header, rule, *body])


def table_metadata(
    frame: pl.DataFrame, columns: Sequence[str] | None = None, **extra: object
) -> dict[str, object]:
    """`dagster/row_count`, a preview, and any extra figures, for a MaterializeResult."""
    return {
        "dagster/row_count": frame.height,
        "preview": dg.MetadataValue.md(markdown_preview(frame, columns)),
        **extra,
    }


def waiting_overrides_metadata(waiting: Mapping[str, pl.DataFrame]) -> dict[str, object]:
    """How many curation rows wait for a paper not harvested yet, and which, per file
    (`waiting` maps a file's name to its rows that `waiting_for_papers` set aside)."""
    lines = [
        f"- {name}:{line} {arxiv_id}"
        for name, rows in waiting.items()
        for line, arxiv_id in rows.select("line", "arxiv_id").iter_rows()
    ]
    return {
        "overrides_waiting_for_paper": len(lines),
        "overrides_waiting": dg.MetadataValue.md("\n".join(lines) or "none"),
    }
