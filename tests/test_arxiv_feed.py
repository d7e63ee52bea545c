"""Parsing arXiv API responses: fields, id forms, whitespace, dates, quarantine, errors."""

from datetime import UTC, datetime

import pytest

from orchestration.clients.arxiv_feed import (
    ArxivFeedError,
    TruncatedFeedError,
    UnsafeFeedError,
    parse_feed,
    split_arxiv_id,
)
from fakes.arxiv_server import arxiv_entry, atom_feed, error_feed

JAN_2 = datetime(2025, 1, 2, 15, 30, tzinfo=UTC)


def feed(*entries: str, total: int | None = None) -> bytes:
    return atom_feed("submittedDate:[202501010000 TO 202501312359]", list(entries), total or len(entries), 0).encode()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("http://arxiv.org/abs/2501.03262v1", ("2501.03262", 1)),
        ("http://arxiv.org/abs/2501.03262v12", ("2501.03262", 12)),
        ("2501.03262", ("2501.03262", 1)),
        ("http://arxiv.org/abs/0704.0001v2", ("0704.0001", 2)),
        ("http://arxiv.org/abs/hep-th/0101001v3", ("hep-th/0101001", 3)),
        ("http://arxiv.org/abs/math.AG/0601001v1", ("math.AG/0601001", 1)),
        ("http://arxiv.org/api/errors#incorrect_id_format", None),
        ("not an id", None),
    ],
)
def test_split_arxiv_id(text, expected):
    assert split_arxiv_id(text) == expected


def test_every_field_of_an_entry():
    entry = arxiv_entry(
        "2501.00042",
        JAN_2,
        version=3,
        updated=datetime(2025, 3, 1, 8, 0, tzinfo=UTC),
        title="  Group  Relative\n    Policy Optimization  ",
        summary="We  propose\n  GRPO & friends.\n",
        authors=(("Ada Lovelace", "Analytical Engines Ltd"), ("Alan Turing", None), ("Grace Hopper", "US Navy")),
        primary_category="cs.CL",
        categories=("cs.CL", "cs.LG", "stat.ML"),
        comment="12 pages,\n 3 figures",
        journal_ref="ICML 2025",
        doi="10.1000/xyz123",
    )
    page = parse_feed(feed(entry), "test")
    assert page.quarantine.is_empty() and page.total_results == 1 and page.start_index == 0
    row = page.entries.row(0, named=True)
    assert row["arxiv_id"] == "2501.00042" and row["version"] == 3
    assert row["title"] == "Group Relative Policy Optimization"
    assert row["abstract"] == "We propose GRPO & friends."
    assert row["authors"] == ["Ada Lovelace", "Alan Turing", "Grace Hopper"]
    assert row["author_affiliations"] == [
        {"author": "Ada Lovelace", "affiliation": "Analytical Engines Ltd"},
        {"author": "Grace Hopper", "affiliation": "US Navy"},
    ]
    assert row["primary_category"] == "cs.CL" and row["categories"] == ["cs.CL", "cs.LG", "stat.ML"]
    assert row["comment"] == "12 pages, 3 figures"
    assert row["journal_ref"] == "ICML 2025" and row["doi"] == "10.1000/xyz123"
    assert row["published_at"] == JAN_2 and row["updated_at"] == datetime(2025, 3, 1, 8, 0, tzinfo=UTC)
    assert row["abstract_url"] == "http://arxiv.org/abs/2501.00042v3"
    assert row["pdf_url"] == "http://arxiv.org/pdf/2501.00042v3"


def test_optional_fields_are_null_and_a_lone_primary_category_is_the_category_list():
    entry = arxiv_entry("hep-th/0101001", JAN_2, categories=(), primary_category="hep-th")
    row = parse_feed(feed(entry), "test").entries.row(0, named=True)
    assert row["arxiv_id"] == "hep-th/0101001"
    assert row["comment"] is None and row["journal_ref"] is None and row["doi"] is None
    assert row["categories"] == ["hep-th"]


def test_published_with_an_offset_is_stored_in_utc():
    entry = arxiv_entry("2501.00043", JAN_2, published_text="2025-01-02T20:30:00-05:00")
    row = parse_feed(feed(entry), "test").entries.row(0, named=True)
    assert row["published_at"] == datetime(2025, 1, 3, 1, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        (arxiv_entry("2501.00044", JAN_2).replace("<id>http://arxiv.org/abs/2501.00044v1</id>", ""), "no arXiv id"),
        (arxiv_entry("2501.00045", JAN_2, title="   "), "no title"),
        (arxiv_entry("2501.00046", JAN_2, published_text="yesterday"), "bad published date"),
        (arxiv_entry("2501.00047", JAN_2, published_text=""), "bad published date"),
    ],
)
def test_an_unparseable_entry_is_quarantined_with_its_raw_text(entry, reason):
    good = arxiv_entry("2501.00001", JAN_2)
    page = parse_feed(feed(good, entry), "http://fake/api/query?start=0")
    assert page.entry_count == 2 and page.entries.height == 1
    quarantined = page.quarantine.row(0, named=True)
    assert quarantined["source"] == "arxiv"
    assert quarantined["source_ref"] == "http://fake/api/query?start=0"
    assert quarantined["reason"].startswith(reason)
    assert quarantined["raw_text"].startswith("<") and "entry" in quarantined["raw_text"]


def test_a_quarantined_entry_keeps_its_day_when_it_has_one():
    page = parse_feed(feed(arxiv_entry("2501.00045", JAN_2, title="")), "test")
    assert page.quarantine["published_day"].to_list() == [JAN_2.date()]


def test_the_error_feed_is_an_error_naming_the_query():
    with pytest.raises(ArxivFeedError, match=r"arXiv rejected the query q=bad: incorrect id format"):
        parse_feed(error_feed("incorrect id format for 1234.12345v").encode(), "q=bad")


def test_truncated_xml_is_its_own_error():
    content = feed(arxiv_entry("2501.00001", JAN_2))
    with pytest.raises(TruncatedFeedError, match="not well-formed"):
        parse_feed(content[: len(content) // 2], "test")
    with pytest.raises(TruncatedFeedError, match="not an Atom feed"):
        parse_feed(b"<html><body>Rate exceeded</body></html>", "test")


def test_an_empty_feed_has_no_rows_but_its_total():
    page = parse_feed(atom_feed("q", [], total=250, start=100).encode(), "test")
    assert page.entries.is_empty() and page.quarantine.is_empty()
    assert (page.total_results, page.start_index, page.entry_count) == (250, 100, 0)


def _with_doctype(content: bytes, doctype: str, title: str) -> bytes:
    """`content` (a feed) with a DOCTYPE declaring entities, and `title` in its first entry."""
    declaration, rest = content.split(b"\n", 1)
    rest = rest.replace(b"<title>", f"<title>{title}".encode(), 1)
    return declaration + b"\n" + doctype.encode() + b"\n" + rest


BILLION_LAUGHS = (
    '<!DOCTYPE feed [<!ENTITY lol "lol">'
    + "".join(f'<!ENTITY lol{n} "{("&lol" + (str(n - 1) if n > 1 else "") + ";") * 10}">' for n in range(1, 10))
    + "]>"
)


@pytest.mark.parametrize(
    ("doctype", "title"),
    [
        (BILLION_LAUGHS, "&lol9;"),  # a billion laughs: 10^9 "lol"s if expanded
        ('<!DOCTYPE feed [<!ENTITY secret SYSTEM "file:///etc/passwd">]>', "&secret;"),  # external entity
        ('<!DOCTYPE feed [<!ENTITY % remote SYSTEM "http://127.0.0.1:9/evil.dtd"> %remote;]>', ""),  # external DTD
    ],
)
def test_a_feed_declaring_entities_is_refused_unexpanded(doctype, title):
    content = _with_doctype(feed(arxiv_entry("2501.00001", JAN_2)), doctype, title)
    with pytest.raises(UnsafeFeedError, match="declares XML entities") as refused:
        parse_feed(content, "http://fake/api/query")
    assert isinstance(refused.value, TruncatedFeedError)  # retried like any response that is no feed
    assert len(str(refused.value).splitlines()) == 1 and "lol" not in str(refused.value)


def test_markup_inside_a_text_field_is_read_as_text():
    entry = arxiv_entry("2501.00001", JAN_2).replace(
        "<title>", "<title>Policy <b xmlns='http://www.w3.org/1999/xhtml'>Optimization</b> for ", 1
    )
    row = parse_feed(feed(entry), "test").entries.row(0, named=True)
    assert row["title"].startswith("Policy Optimization for ")
