"""The author affiliations a snapshot recorded (`affiliations/affiliations.jsonl`, as
printed on a page about each paper), as rows of the shape every affiliation source has."""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl

from orchestration.clients.snapshot_files import fail_at_first_bad_line

#: One (paper, author, affiliation) of any source (override, arxiv, snapshot, openalex).
AFFILIATION_SCHEMA = {"arxiv_id": pl.Utf8, "author": pl.Utf8, "affiliation": pl.Utf8, "source": pl.Utf8}

#: The fields of a line of a snapshot's affiliations/affiliations.jsonl that are used.
_SNAPSHOT_AFFILIATION_SCHEMA = {
    "arxiv_id": pl.Utf8,
    "authors": pl.List(pl.Struct({"name": pl.Utf8, "affiliations": pl.List(pl.Utf8)})),
    "institutions": pl.List(pl.Utf8),
}


def read_snapshot_affiliations(path: Path) -> pl.DataFrame:
    """The affiliations recorded in a snapshot's `affiliations/affiliations.jsonl`, one row
    per (paper, author, affiliation) as printed: each author's affiliations, and every
    institution of the paper with no author (the page did not always say whose it is).
    A paper the file leaves out has no row: unknown, not "none". A line that is not a
    record of a paper fails naming the file and line."""
    data = path.read_bytes()
    try:
        papers = pl.read_ndjson(io.BytesIO(data), schema=_SNAPSHOT_AFFILIATION_SCHEMA)
    except pl.exceptions.PolarsError as error:
        problem = str(error).strip().splitlines()[0]
        fail_at_first_bad_line(path, data, f"not affiliation records of the snapshot format ({problem})", ("arxiv_id",))
    if papers["arxiv_id"].has_nulls():
        fail_at_first_bad_line(path, data, "a record without an arxiv_id", ("arxiv_id",))
    by_author = (
        papers.select("arxiv_id", "authors")
        .explode("authors")
        .unnest("authors")
        .explode("affiliations")
        .select("arxiv_id", author="name", affiliation="affiliations")
    )
    by_paper = papers.select("arxiv_id", "institutions").explode("institutions").select(
        "arxiv_id", author=pl.lit(None, pl.Utf8), affiliation="institutions"
    )
    return (
        pl.concat([by_author, by_paper])
        .with_columns(pl.col("affiliation").str.strip_chars())
        .filter(pl.col("affiliation").str.len_chars() > 0)
        .unique(maintain_order=True)
        .with_columns(source=pl.lit("snapshot"))
    )
