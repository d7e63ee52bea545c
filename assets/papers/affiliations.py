"""Author affiliations and the maintainer companies they point to.

Affiliations come from, in order: `overrides/affiliations.csv`, arXiv's own
`arxiv:affiliation` elements (parsed into `author_affiliations`), in snapshot mode the
recorded `affiliations/affiliations.jsonl` (as printed on a page about the paper), and
OpenAlex. For each paper the first source that has any affiliation is used whole, so a
curated list is not diluted by a stale automatic one. A paper with no affiliation from
any source has an unknown maintainer company (null): unknown is never "no".
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from pathlib import Path

import polars as pl

from orchestration.curation import OVERRIDES_DIR, read_override_csv
from orchestration.clients.snapshot_files import fail_at_first_bad_line
from orchestration.settings import MaintainerCompany

AFFILIATIONS_OVERRIDES = OVERRIDES_DIR / "affiliations.csv"

AFFILIATION_SCHEMA = {"arxiv_id": pl.Utf8, "author": pl.Utf8, "affiliation": pl.Utf8, "source": pl.Utf8}
AFFILIATION_OVERRIDE_COLUMNS = {"arxiv_id": pl.Utf8, "author": pl.Utf8, "affiliation": pl.Utf8}

#: Sources in order of precedence.
AFFILIATION_SOURCES = ("override", "arxiv", "snapshot", "openalex")

#: The fields of a line of a snapshot's affiliations/affiliations.jsonl that are used.
_SNAPSHOT_AFFILIATION_SCHEMA = {
    "arxiv_id": pl.Utf8,
    "authors": pl.List(pl.Struct({"name": pl.Utf8, "affiliations": pl.List(pl.Utf8)})),
    "institutions": pl.List(pl.Utf8),
}

#: `maintainer_company` of a paper whose affiliations are known and name no configured company.
NO_MAINTAINER_COMPANY = "none"


def read_affiliation_overrides(path: Path = AFFILIATIONS_OVERRIDES) -> pl.DataFrame:
    """overrides/affiliations.csv: `arxiv_id`, `author` (blank: the paper as a whole),
    `affiliation`, `reason`."""
    return read_override_csv(path, AFFILIATION_OVERRIDE_COLUMNS, required=["arxiv_id", "affiliation"])


def arxiv_affiliations(papers: pl.DataFrame) -> pl.DataFrame:
    """One row per (paper, author, affiliation) that arXiv itself recorded."""
    return (
        papers.select("arxiv_id", "author_affiliations")
        .explode("author_affiliations")
        .drop_nulls("author_affiliations")
        .unnest("author_affiliations")
        .filter(pl.col("affiliation").str.strip_chars().str.len_chars() > 0)
        .select("arxiv_id", "author", "affiliation", source=pl.lit("arxiv"))
    )


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


def affiliations_by_precedence(*sources: pl.DataFrame) -> pl.DataFrame:
    """The affiliation rows of each paper from its highest-precedence source that has any."""
    rows = pl.concat([frame.select(list(AFFILIATION_SCHEMA)).cast(AFFILIATION_SCHEMA) for frame in sources])
    rank = pl.col("source").replace_strict(
        AFFILIATION_SOURCES, list(range(len(AFFILIATION_SOURCES))), return_dtype=pl.Int32
    )
    return (
        rows.with_columns(rank=rank)
        .filter(pl.col("rank") == pl.col("rank").min().over("arxiv_id"))
        .drop("rank")
        .unique(maintain_order=True)
    )


def company_pattern(company: MaintainerCompany) -> str:
    """A case-insensitive whole-word pattern for any of the company's name variants."""
    variants = sorted({company.name, *company.variants}, key=len, reverse=True)
    return r"(?i)(?:^|[^\w])(?:" + "|".join(re.escape(variant) for variant in variants) + r")(?:$|[^\w])"


def maintainer_companies_of(
    papers: pl.DataFrame, affiliations: pl.DataFrame, companies: Sequence[MaintainerCompany]
) -> pl.DataFrame:
    """Per paper: `maintainer_company` (the configured companies an author is affiliated
    with, joined by "; "; "none" when the affiliations are known and name none; null when
    no affiliation is known) and `affiliation_source` (override, arxiv, snapshot or openalex)."""
    unique_companies = {company.name: company for company in companies}
    matched = affiliations.with_columns(
        company=pl.concat_list(
            [
                pl.when(pl.col("affiliation").str.contains(company_pattern(company))).then(pl.lit(name))
                for name, company in unique_companies.items()
            ]
            or [pl.lit(None, dtype=pl.Utf8)]
        ).list.drop_nulls()
    )
    per_paper = matched.group_by("arxiv_id").agg(
        companies=pl.col("company").list.explode(keep_nulls=False, empty_as_null=False).unique().sort(),
        affiliation_source=pl.col("source").first(),
    )
    return (
        papers.select("arxiv_id")
        .join(per_paper, on="arxiv_id", how="left")
        .select(
            "arxiv_id",
            maintainer_company=pl.when(pl.col("affiliation_source").is_null())
            .then(None)
            .when(pl.col("companies").list.len() == 0)
            .then(pl.lit(NO_MAINTAINER_COMPANY))
            .otherwise(pl.col("companies").list.join("; ")),
            affiliation_source="affiliation_source",
        )
    )


def override_affiliations(overrides: pl.DataFrame) -> pl.DataFrame:
    """Affiliation override rows in the shape of the other sources."""
    return overrides.select("arxiv_id", "author", "affiliation", source=pl.lit("override"))
