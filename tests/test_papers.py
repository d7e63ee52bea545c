"""papers: one row per arXiv id, latest version wins, first version's date and cohort kept."""

from datetime import UTC, datetime

import polars as pl

from orchestration.clients.arxiv_feed import ENTRY_SCHEMA
from assets.papers.papers import cohort_of, papers_from_entries


def entry(arxiv_id: str, version: int, published: datetime, title: str) -> dict:
    return {
        "arxiv_id": arxiv_id,
        "version": version,
        "title": title,
        "abstract": "abstract",
        "authors": ["A. Author"],
        "author_affiliations": [],
        "primary_category": "cs.LG",
        "categories": ["cs.LG"],
        "comment": None,
        "journal_ref": None,
        "doi": None,
        "published_at": published,
        "updated_at": published,
        "abstract_url": f"http://arxiv.org/abs/{arxiv_id}v{version}",
        "pdf_url": None,
    }


def test_latest_version_wins_and_v1_date_is_kept():
    v1 = datetime(2025, 3, 31, 23, 30, tzinfo=UTC)
    entries = pl.DataFrame(
        [
            entry("2503.00001", 2, datetime(2025, 4, 10, tzinfo=UTC), "Second title"),
            entry("2503.00001", 1, v1, "First title"),
            entry("2504.00002", 1, datetime(2025, 4, 2, tzinfo=UTC), "Other"),
        ],
        schema=ENTRY_SCHEMA,
    )
    papers = papers_from_entries(entries)
    assert papers.height == 2
    first = papers.row(0, named=True)
    assert first["arxiv_id"] == "2503.00001"
    assert first["version"] == 2
    assert first["title"] == "Second title"
    assert first["published_at"] == v1
    assert first["cohort"] == "2025-Q1"
    assert papers["cohort"].to_list() == ["2025-Q1", "2025-Q2"]


def test_cohort_is_the_utc_quarter():
    frame = pl.DataFrame(
        {"at": [datetime(2025, 12, 31, 23, 59, tzinfo=UTC), datetime(2026, 1, 1, tzinfo=UTC)]},
        schema={"at": pl.Datetime("us", "UTC")},
    )
    assert frame.select(cohort_of(pl.col("at")))["at"].to_list() == ["2025-Q4", "2026-Q1"]


def test_no_entries_give_no_papers():
    assert papers_from_entries(pl.DataFrame(schema=ENTRY_SCHEMA)).height == 0
