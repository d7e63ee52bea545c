"""arXiv API responses (Atom 1.0 with the opensearch and arxiv namespaces) as polars frames.

One parser for the live API and for recorded responses: `parse_feed` turns one response
into a `FeedPage` of entries (one row per entry version) and quarantined entries (one row
per entry that could not be parsed, with its raw XML, the reason and its arXiv id where
that much can be read), so nothing is lost.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import UTC, date, datetime

import feedparser
import polars as pl

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


def _link(entry: dict, rel: str, title: str | None = None) -> str | None:
    for link in entry.get("links", []):
        if link.get("rel") == rel and (title is None or link.get("title") == title):
            return link.get("href")
    return None


def _affiliations(element: ET.Element) -> list[dict[str, str]]:
    # feedparser flattens arxiv:affiliation across authors, so read it from the XML.
    pairs = []
    for author in element.findall(ATOM + "author"):
        name = normalize_whitespace(author.findtext(ATOM + "name")) or ""
        for affiliation in author.findall(ARXIV + "affiliation"):
            if affiliation.text and affiliation.text.strip():
                pairs.append({"author": name, "affiliation": normalize_whitespace(affiliation.text)})
    return pairs


def _entry_row(entry: dict, element: ET.Element) -> tuple[dict | None, str | None]:
    """The row of one entry, or the reason it cannot be stored."""
    raw_id = entry.get("id") or ""
    arxiv_id = split_arxiv_id(raw_id) if raw_id else None
    if arxiv_id is None:
        return None, "no arXiv id" if not raw_id else f"unrecognised arXiv id {raw_id!r}"
    title = normalize_whitespace(entry.get("title"))
    if not title:
        return None, "no title"
    published_at = parse_timestamp(element.findtext(ATOM + "published"))
    if published_at is None:
        return None, f"bad published date {element.findtext(ATOM + 'published')!r}"
    updated_text = element.findtext(ATOM + "updated")
    updated_at = parse_timestamp(updated_text) if updated_text else published_at
    if updated_at is None:
        return None, f"bad updated date {updated_text!r}"
    primary = (entry.get("arxiv_primary_category") or {}).get("term")
    categories = [tag["term"] for tag in entry.get("tags", []) if tag.get("term")]
    if primary and primary not in categories:
        categories.insert(0, primary)
    return {
        "arxiv_id": arxiv_id[0],
        "version": arxiv_id[1],
        "title": title,
        "abstract": normalize_whitespace(entry.get("summary")),
        "authors": [normalize_whitespace(a["name"]) for a in entry.get("authors", []) if a.get("name")],
        "author_affiliations": _affiliations(element),
        "primary_category": primary or (categories[0] if categories else None),
        "categories": categories,
        "comment": normalize_whitespace(entry.get("arxiv_comment")),
        "journal_ref": normalize_whitespace(entry.get("arxiv_journal_ref")),
        "doi": normalize_whitespace(entry.get("arxiv_doi")),
        "published_at": published_at,
        "updated_at": updated_at,
        "abstract_url": _link(entry, "alternate") or raw_id,
        "pdf_url": _link(entry, "related", "pdf"),
    }, None


def _recognised_id(entry: dict) -> str | None:
    arxiv_id = split_arxiv_id(entry.get("id") or "")
    return arxiv_id[0] if arxiv_id else None


def _published_day(element: ET.Element) -> date | None:
    published_at = parse_timestamp(element.findtext(ATOM + "published"))
    return published_at.date() if published_at else None


def _is_error_feed(entries: list[dict]) -> bool:
    return len(entries) == 1 and (entries[0].get("title") or "").strip() == "Error" and (
        "/api/errors" in (entries[0].get("id") or "") or not split_arxiv_id(entries[0].get("id") or "")
    )


def parse_feed(content: bytes, source_ref: str) -> FeedPage:
    """Parse one arXiv API response; `source_ref` (the request URL or file) goes into the quarantine.

    Raises TruncatedFeedError when the XML is not well-formed and ArxivFeedError for
    arXiv's error feed.
    """
    try:
        root = ET.fromstring(content)
    except ET.ParseError as error:
        raise TruncatedFeedError(f"{source_ref}: the response is not well-formed XML ({error})") from error
    if root.tag != ATOM + "feed":
        raise TruncatedFeedError(f"{source_ref}: the response is not an Atom feed (root <{root.tag}>)")
    parsed = feedparser.parse(content)
    elements = root.findall(ATOM + "entry")
    entries = parsed.entries
    if len(entries) != len(elements):  # feedparser and ElementTree must agree on what the entries are
        raise TruncatedFeedError(f"{source_ref}: {len(elements)} <entry> elements but {len(entries)} parsed")
    if _is_error_feed(entries):
        message = normalize_whitespace(entries[0].get("summary")) or "no message"
        raise ArxivFeedError(f"arXiv rejected the query {source_ref}: {message}")

    rows, quarantined = [], []
    for entry, element in zip(entries, elements, strict=True):
        row, reason = _entry_row(entry, element)
        if row is not None:
            rows.append(row)
        else:
            quarantined.append(
                {
                    "source": "arxiv",
                    "source_ref": source_ref,
                    "reason": reason,
                    "raw_text": ET.tostring(element, encoding="unicode"),
                    "published_day": _published_day(element),
                    "arxiv_id": _recognised_id(entry),
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
