"""The text of a paper's arXiv HTML rendering (LaTeXML), as (section, paragraph) pairs.

arXiv renders LaTeX sources with LaTeXML: headings are h1-h6 with `ltx_title` classes
(the section number in an `ltx_tag` span), paragraphs are `<p class="ltx_p">`, formulas
are MathML carrying their TeX in `alttext`. Kept: each paragraph and figure or table
caption under the nearest heading above it. Dropped: scripts, styles, the page's
header, navigation, table of contents and footer, the title block (authors, dates),
the abstract (the API's abstract is stored instead), the bibliography, LaTeXML's error
markers, and MathML's tokens and annotations (a formula reads as its TeX).
"""

from __future__ import annotations

from html.parser import HTMLParser

_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_PARAGRAPHS = frozenset({"p", "figcaption"})
_DROPPED_TAGS = frozenset({"script", "style", "noscript", "template", "nav", "header", "footer", "button", "form", "svg"})
_DROPPED_CLASSES = frozenset(
    {
        "ltx_TOC",
        "ltx_page_navbar",
        "ltx_page_header",
        "ltx_page_footer",
        "ltx_authors",
        "ltx_dates",
        "ltx_abstract",
        "ltx_bibliography",
        "ltx_ERROR",
        "ltx_note_mark",  # a footnote's number inside the sentence it marks
    }
)
# Elements that never have an end tag: never on the stack.
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
)


def _normalized(parts: list[str]) -> str:
    return " ".join("".join(parts).split())


class _LatexmlText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []  # (tag, dropped with its content)
        self.dropped = 0  # dropped elements open
        self.section: str | None = None
        self.heading: list[str] | None = None
        self.heading_depth = 0
        self.paragraph: list[str] | None = None
        self.paragraph_depth = 0
        self.passages: list[tuple[str | None, str]] = []

    def _write(self, text: str) -> None:
        if self.heading is not None:
            self.heading.append(text)
        elif self.paragraph is not None:
            self.paragraph.append(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            if tag == "br" and not self.dropped:
                self._write(" ")
            return
        attributes = dict(attrs)
        classes = set((attributes.get("class") or "").split())
        dropped = tag in _DROPPED_TAGS or bool(classes & _DROPPED_CLASSES) or tag == "math"
        if tag == "math" and not self.dropped:
            self._write(f" {attributes.get('alttext') or ''} ")
        elif "ltx_note" in classes and not self.dropped:
            self._write(" ")  # a footnote's text follows its mark without a space
        self.stack.append((tag, dropped))
        if dropped:
            self.dropped += 1
            return
        if self.dropped:
            return
        if self.heading is None and (tag in _HEADINGS or "ltx_title" in classes):
            self.heading, self.heading_depth = [], len(self.stack)
        elif self.heading is None and self.paragraph is None and tag in _PARAGRAPHS:
            self.paragraph, self.paragraph_depth = [], len(self.stack)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br" and not self.dropped:
            self._write(" ")

    def handle_endtag(self, tag: str) -> None:
        # Close up to the innermost open element of this tag; a stray end tag closes nothing.
        if not any(open_tag == tag for open_tag, _ in self.stack):
            return
        while self.stack:
            open_tag, dropped = self.stack.pop()
            if dropped:
                self.dropped -= 1
            depth = len(self.stack) + 1
            if self.heading is not None and depth == self.heading_depth:
                self.section = _normalized(self.heading) or self.section
                self.heading = None
            elif self.paragraph is not None and depth == self.paragraph_depth:
                text = _normalized(self.paragraph)
                if text:
                    self.passages.append((self.section, text))
                self.paragraph = None
            if open_tag == tag:
                return

    def handle_data(self, data: str) -> None:
        if not self.dropped:
            self._write(data)


def latexml_passages(html: str) -> list[tuple[str | None, str]]:
    """`(section, text)` of each paragraph and caption of a LaTeXML page, in document order;
    `section` is the nearest heading above (None before the first one)."""
    parser = _LatexmlText()
    parser.feed(html)
    parser.close()
    return parser.passages
