"""Metadata every asset attaches to its materialization: row count and a markdown preview."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import dagster as dg
import polars as pl

PREVIEW_ROWS = 10
_CELL_CHARS = 80


#: Control characters (tab and newline become spaces first) and the bidirectional
#: overrides that make text read backwards.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
#: ASCII punctuation other than & < > (escaped as entities): markdown reads it as links and
#: images ([text](url), ![alt](src)), emphasis, code, a table cell's border, and GFM reads
#: `https://`, `www.` and `a@b.c` as links even without brackets; a backslash before each
#: character keeps all of it text (CommonMark renders `\:` as `:`).
_MARKDOWN_PUNCTUATION = re.compile(r"""([!"#$%'()*+,\-./:;=?@\[\\\]^_`{|}~])""")


def markdown_text(value: object, limit: int | None = None) -> str:
    """`value` as markdown that renders as exactly its text, on one line (cut to `limit`
    characters): titles, bodies, commit messages and URLs come from the sources, so no
    HTML, link, image or autolink in them may become one in the UI. The one helper for
    untrusted text in markdown metadata."""
    if value is None:
        return ""
    if isinstance(value, list):
        value = ", ".join(str(item) for item in value)
    text = _CONTROL.sub("", str(value).replace("\t", " ").replace("\r", " ").replace("\n", " "))
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    text = _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def markdown_preview(frame: pl.DataFrame, columns: Sequence[str] | None = None, rows: int = PREVIEW_ROWS) -> str:
    """The first `rows` rows of `frame` as a markdown table (long cells cut)."""
    shown = frame.select(columns) if columns else frame
    header = "| " + " | ".join(shown.columns) + " |"
    rule = "| " + " | ".join("---" for _ in shown.columns) + " |"
    body = ["| " + " | ".join(markdown_text(value, _CELL_CHARS) for value in row) + " |" for row in shown.head(rows).iter_rows()]
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
        f"- {name}:{line} {arxiv_id}"  # validated ids of our own files: no markup
        for name, rows in waiting.items()
        for line, arxiv_id in rows.select("line", "arxiv_id").iter_rows()
    ]
    return {
        "overrides_waiting_for_paper": len(lines),
        "overrides_waiting": dg.MetadataValue.md("\n".join(lines) or "none"),
    }
