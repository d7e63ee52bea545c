"""arXiv API responses (Atom 1.0 with the opensearch and arxiv namespaces) as polars frames.

One parser for the live API and for recorded responses: `parse_feed` turns one response
into a `FeedPage` of entries (one row per entry version) and quarantined entries (one row
per entry that could not be parsed, with its raw XML, the reason and its arXiv id where
that much can be read), so nothing is lost. The response is parsed once, by defusedxml's
ElementTree, which refuses entity declarations (XML bombs, external entities) unexpanded.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import UTC, date, datetime

import polars as pl
from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring as defused_fromstring

from orchestration.tables import RAW_ARXIV_ENTRIES, RAW_QUARANTINE

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"

#: A parsed entry: the row of raw.arxiv_entries less its partition day.
ENTRY_SCHEMA = {column: dtype for column, dtype in RAW_ARXIV_ENTRIES.schema.items() if column != "day"}
#: A quarantined entry: the row of raw.quarantine less its partition day.
QUARANTINE_SCHEMA = {column: dtype for column, dtype in RAW_QUARANTINE.schema.items() if column != "partition_day"}

# New-style ids (2501.03262, 0704.0001) and old-style ids (hep-th/0101001, math.AG/0601001),
# optionally behind the abstract URL and followed by a version.
_ARXIV_ID = re.compile(
    r"(?:^|/abs/)(?P<id>\d{4}\.\d{4,5}|[a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7})(?:v(?P<version>\d+))?$"
)


class ArxivFeedError(RuntimeError):
    """arXiv answered with its error feed (HTTP 200, one entry titled "Error")."""


class TruncatedFeedError(ArxivFeedError):
    """The response is not well-formed XML: cut off in transit, or not a feed at all."""


class UnsafeFeedError(TruncatedFeedError):
    """The response declares XML entities or external references (an XML bomb, or an
    external entity aimed at local files): refused before anything is expanded. Not a
    feed, like a truncated one, so it is retried and then fails the same way."""


@dataclass(frozen=True)
class FeedPage:
    """One parsed response: its entries, its quarantined entries and the opensearch counts."""

    entries: pl.DataFrame
    quarantine: pl.DataFrame
    total_results: int | None
    start_index: int | None
    entry_count: int


def split_arxiv_id(text: str) -> tuple[str, int] | None:
    """`(id without version, version)` of an arXiv id or abstract URL; version 1 when absent."""
    match = _ARXIV_ID.search(text.strip())
    if match is None:
        return None
    return match["id"], int(match["version"] or 1)


def normalize_whitespace(text: str | None) -> str | None:
    return " ".join(text.split()) if text is not None else None


def parse_timestamp(text: str | None) -> datetime | None:
    """An Atom date-time in UTC, or None when absent or malformed."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    return moment.astimezone(UTC)


def _opensearch_int(root: ET.Element, name: str) -> int | None:
    node = root.find(OPENSEARCH + name)
    try:
        return int(node.text) if node is not None and node.text else None
    except ValueError:
        return None


def _text(element: ET.Element, tag: str) -> str | None:
    """The whole text of the first child `tag` (markup inside it taken as text), or None."""
    node = element.find(tag)
    return "".join(node.itertext()) if node is not None else None


def _clean(element: ET.Element, tag: str) -> str | None:
    return normalize_whitespace(_text(element, tag))


def _link(element: ET.Element, rel: str, title: str | None = None) -> str | None:
    for link in element.findall(ATOM + "link"):
        # Atom: a link without rel is the alternate one.
        if link.get("rel", "alternate") == rel and (title is None or link.get("title") == title):
            return link.get("href")
    return None


def _authors(element: ET.Element) -> tuple[list[str], list[dict[str, str]]]:
    """The authors' names, and (author, affiliation) pairs from `arxiv:affiliation`."""
    names, pairs = [], []
    for author in element.findall(ATOM + "author"):
        name = _clean(author, ATOM + "name")
        if name:
            names.append(name)
        for affiliation in author.findall(ARXIV + "affiliation"):
            text = normalize_whitespace("".join(affiliation.itertext()))
            if text:
                pairs.append({"author": name or "", "affiliation": text})
    return names, pairs


def _raw_id(element: ET.Element) -> str:
    return (_text(element, ATOM + "id") or "").strip()


def _entry_row(element: ET.Element) -> tuple[dict | None, str | None]:
    """The row of one entry, or the reason it cannot be stored."""
    raw_id = _raw_id(element)
    arxiv_id = split_arxiv_id(raw_id) if raw_id else None
    if arxiv_id is None:
        return None, "no arXiv id" if not raw_id else f"unrecognised arXiv id {raw_id!r}"
    title = _clean(element, ATOM + "title")
    if not title:
        return None, "no title"
    published_text = _text(element, ATOM + "published")
    published_at = parse_timestamp(published_text)
    if published_at is None:
        return None, f"bad published date {published_text!r}"
    updated_text = _text(element, ATOM + "updated")
    updated_at = parse_timestamp(updated_text) if updated_text else published_at
    if updated_at is None:
        return None, f"bad updated date {updated_text!r}"
    primary_node = element.find(ARXIV + "primary_category")
    primary = primary_node.get("term") if primary_node is not None else None
    categories = [term for node in element.findall(ATOM + "category") if (term := node.get("term"))]
    if primary and primary not in categories:
        categories.insert(0, primary)
    authors, affiliations = _authors(element)
    return {
        "arxiv_id": arxiv_id[0],
        "version": arxiv_id[1],
        "title": title,
        "abstract": _clean(element, ATOM + "summary"),
        "authors": authors,
        "author_affiliations": affiliations,
        "primary_category": primary or (categories[0] if categories else None),
        "categories": categories,
        "comment": _clean(element, ARXIV + "comment"),
        "journal_ref": _clean(element, ARXIV + "journal_ref"),
        "doi": _clean(element, ARXIV + "doi"),
        "published_at": published_at,
        "updated_at": updated_at,
        "abstract_url": _link(element, "alternate") or raw_id,
        "pdf_url": _link(element, "related", "pdf"),
    }, None


def _published_day(element: ET.Element) -> date | None:
    published_at = parse_timestamp(_text(element, ATOM + "published"))
    return published_at.date() if published_at else None


def _is_error_feed(elements: list[ET.Element]) -> bool:
    if len(elements) != 1:
        return False
    raw_id = _raw_id(elements[0])
    return (_text(elements[0], ATOM + "title") or "").strip() == "Error" and (
        "/api/errors" in raw_id or not split_arxiv_id(raw_id)
    )


def _parse_xml(content: bytes, source_ref: str) -> ET.Element:
    """The document's root, parsed once by defusedxml: a response that declares entities
    (an XML bomb, or an external entity reaching for local files) is refused, not expanded."""
    try:
        return defused_fromstring(content)
    except DefusedXmlException as error:
        raise UnsafeFeedError(
            f"{source_ref}: the response declares XML entities or external references, refused unread "
            f"({type(error).__name__}); arXiv's feed has none: check ARXIV_API_URL or any proxy in between"
        ) from error
    except (ET.ParseError, LookupError, ValueError) as error:  # LookupError, ValueError: a declared encoding expat lacks
        raise TruncatedFeedError(f"{source_ref}: the response is not well-formed XML ({error})") from error


def parse_feed(content: bytes, source_ref: str) -> FeedPage:
    """Parse one arXiv API response; `source_ref` (the request URL or file) goes into the quarantine.

    Raises TruncatedFeedError when the XML is not well-formed (UnsafeFeedError when it
    declares entities) and ArxivFeedError for arXiv's error feed.
    """
    root = _parse_xml(content, source_ref)
    if root.tag != ATOM + "feed":
        raise TruncatedFeedError(f"{source_ref}: the response is not an Atom feed (root <{root.tag}>)")
    elements = root.findall(ATOM + "entry")
    if _is_error_feed(elements):
        message = _clean(elements[0], ATOM + "summary") or "no message"
        raise ArxivFeedError(f"arXiv rejected the query {source_ref}: {message}")

    rows, quarantined = [], []
    for element in elements:
        row, reason = _entry_row(element)
        if row is not None:
            rows.append(row)
        else:
            recognised = split_arxiv_id(_raw_id(element))
            quarantined.append(
                {
                    "source": "arxiv",
                    "source_ref": source_ref,
                    "reason": reason,
                    "raw_text": ET.tostring(element, encoding="unicode"),
                    "published_day": _published_day(element),
                    "arxiv_id": recognised[0] if recognised else None,
                }
            )
    return FeedPage(
        entries=pl.DataFrame(rows, schema=ENTRY_SCHEMA),
        quarantine=pl.DataFrame(quarantined, schema=QUARANTINE_SCHEMA),
        total_results=_opensearch_int(root, "totalResults"),
        start_index=_opensearch_int(root, "startIndex"),
        entry_count=len(elements),
    )


def empty_entries() -> pl.DataFrame:
    return pl.DataFrame(schema=ENTRY_SCHEMA)


def empty_quarantine() -> pl.DataFrame:
    return pl.DataFrame(schema=QUARANTINE_SCHEMA)
