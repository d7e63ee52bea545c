"""The markdown previews of the materializations, rendered by a GFM renderer (markdown-it,
tables, strikethrough and autolinks on, as the Dagster UI's react-markdown with
remark-gfm): hostile titles and bodies render as their text, in their cell, with no
link, image or HTML."""

from __future__ import annotations

import html
import re

import polars as pl
from hypothesis import example, given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from assets.preview import markdown_preview, markdown_text

GFM = MarkdownIt("gfm-like")

HOSTILE_TITLES = [
    "<script>window.pwned=1</script>",
    '<img src=x onerror="window.pwned=2">',
    "[click](javascript:window.pwned=3)",
    "![tracker](https://evil.example/pixel.png)",
    "<https://evil.example>",
    "see https://evil.example/x and www.evil.example or mail admin@evil.example",
    "[ref]: https://evil.example\n[ref]",
    "**bold** _em_ `code` ~~gone~~ # heading",
    "a | b | c",
    "&lt;already escaped&gt; &#x3C;script&#x3E;",
    "\\[escaped\\](javascript:x)",
    "line\nbreak\r\n| --- |\n| injected row |",
    "\u202eevil\u202c \x1b[31mred\x07",
]


def rendered_cells(markdown: str) -> list[str]:
    """The HTML inside each body cell of the rendered table."""
    return re.findall(r"<td>(.*?)</td>", GFM.render(markdown), flags=re.DOTALL)


def shown(text: str) -> str:
    """What a reader sees of a cell's HTML."""
    return html.unescape(text)


def expected(title: str) -> str:
    """The title as the preview shows it: one line, no control or bidirectional characters."""
    one_line = title.replace("\t", " ").replace("\r", " ").replace("\n", " ")
    return re.sub(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]", "", one_line)


def test_hostile_titles_render_as_their_text_one_per_cell():
    frame = pl.DataFrame({"arxiv_id": [f"2501.{n:05d}" for n in range(len(HOSTILE_TITLES))], "title": HOSTILE_TITLES})
    page = GFM.render(markdown_preview(frame, rows=len(HOSTILE_TITLES)))
    assert page.count("<tr>") == len(HOSTILE_TITLES) + 1  # the header and one row per title: no injected row
    for tag in ("<a ", "<img", "<script", "<em>", "<strong>", "<code>", "<s>", "<h1"):
        assert tag not in page, tag
    cells = rendered_cells(markdown_preview(frame, rows=len(HOSTILE_TITLES)))
    assert [shown(cell) for cell in cells[1::2]] == [expected(title)[:79] + ("…" if len(expected(title)) > 80 else "") for title in HOSTILE_TITLES]


@given(st.text(max_size=120))
@example("https://a.b www.c.de e@f.gh")
@example("x]: y\n[x]")
def test_any_text_renders_as_itself_with_no_markup(text):
    (cell,) = rendered_cells(f"| t |\n| --- |\n| {markdown_text(text)} |\n")
    assert "<" not in cell.replace("&lt;", "")  # no element: no link, image or HTML
    assert shown(cell) == expected(text).strip()  # markdown-it trims a cell's spaces
