"""The Atom feed of the tracker: new inclusions and new unanswered proposals, newest first,
each with an id that stays the same from one build to the next."""

from __future__ import annotations

from datetime import datetime
from xml.etree import ElementTree

import polars as pl

from assets.tracker.text import plain_text, safe_url

ATOM = "http://www.w3.org/2005/Atom"
#: Entries in the feed: readers keep what they saw, so the newest are enough.
FEED_ENTRIES = 200
ID_PREFIX = "tag:inclusion-tracker,2025:"


def feed_entries(inclusions: pl.DataFrame, proposals: pl.DataFrame, papers: pl.DataFrame) -> pl.DataFrame:
    """`id`, `updated`, `title`, `url`, `summary`: one per inclusion and one per open
    proposal without a reply, newest first."""
    titles = papers.select("arxiv_id", "title")
    included = inclusions.join(titles, on="arxiv_id", how="left").select(
        id=pl.format(ID_PREFIX + "inclusion/{}/{}", "framework", "arxiv_id"),
        updated=pl.col("included_at"),
        title=pl.format("{} includes {} ({})", "framework", pl.col("title").fill_null(""), "arxiv_id"),
        url=pl.col("commit_url"),
        summary=pl.format("Commit {} in {}, {} days after the paper's first version.", "commit_sha", "framework", "lag_days"),
    )
    waiting = (
        proposals.filter((pl.col("state") == "open") & pl.col("without_reply").fill_null(False))
        .unique(["framework", "number"], keep="first", maintain_order=True)
        .select(
            id=pl.format(ID_PREFIX + "proposal/{}/{}", "framework", "number"),
            updated=pl.col("created_at"),
            title=pl.format("Unanswered proposal in {} #{}: {}", "framework", "number", pl.col("title").fill_null("")),
            url=pl.col("url"),
            summary=pl.format("Names paper {}; no reply yet.", "arxiv_id"),
        )
    )
    return pl.concat([included, waiting]).sort("updated", "id", descending=[True, False], nulls_last=True).head(FEED_ENTRIES)


def _text(parent: ElementTree.Element, tag: str, value: object) -> ElementTree.Element:
    element = ElementTree.SubElement(parent, f"{{{ATOM}}}{tag}")
    element.text = str(plain_text(value)) if value is not None else ""
    return element


def atom_feed(entries: pl.DataFrame, as_of: datetime, site_url: str = "") -> bytes:
    """The feed document (UTF-8 XML): text is escaped by the XML writer, control
    characters are dropped, and only http(s) links are written."""
    ElementTree.register_namespace("", ATOM)
    feed = ElementTree.Element(f"{{{ATOM}}}feed")
    _text(feed, "id", ID_PREFIX + "feed")
    _text(feed, "title", "RL methods in open-source training frameworks: inclusions and proposals")
    _text(feed, "updated", as_of.isoformat())
    author = ElementTree.SubElement(feed, f"{{{ATOM}}}author")
    _text(author, "name", "inclusion tracker")
    if site_url:
        ElementTree.SubElement(feed, f"{{{ATOM}}}link", href=site_url)
    for row in entries.iter_rows(named=True):
        entry = ElementTree.SubElement(feed, f"{{{ATOM}}}entry")
        _text(entry, "id", row["id"])
        _text(entry, "title", row["title"])
        _text(entry, "updated", (row["updated"] or as_of).isoformat())
        if safe_url(row["url"]):
            ElementTree.SubElement(entry, f"{{{ATOM}}}link", href=safe_url(row["url"]))
        _text(entry, "summary", row["summary"])
    return ElementTree.tostring(feed, encoding="utf-8", xml_declaration=True)
