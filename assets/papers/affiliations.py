"""Author affiliations and the maintainer companies they point to.

Affiliations come from, in order: `overrides/affiliations.csv`, arXiv's own
`arxiv:affiliation` elements (parsed into `author_affiliations`), in snapshot mode the
recorded `affiliations/affiliations.jsonl` (as printed on a page about the paper), and
OpenAlex. For each paper the first source that has any affiliation is used whole, so a
curated list is not diluted by a stale automatic one. A paper with no affiliation from
any source has an unknown maintainer company (null): unknown is never "no".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import polars as pl

from orchestration.curation import OVERRIDES_DIR, read_override_csv
from orchestration.clients.recorded_affiliations import AFFILIATION_SCHEMA
from orchestration.settings import MaintainerCompany

AFFILIATIONS_OVERRIDES = OVERRIDES_DIR / "affiliations.csv"

AFFILIATION_OVERRIDE_COLUMNS = {"arxiv_id": pl.Utf8, "author": pl.Utf8, "affiliation": pl.Utf8}

#: Sources in order of precedence.
AFFILIATION_SOURCES = ("override", "arxiv", "snapshot", "openalex")

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


def papers_without_affiliations(papers: pl.DataFrame, *known: pl.DataFrame) -> list[str]:
    """The ids of `papers` (in order) that none of the `known` affiliation sources has a
    row for: the papers OpenAlex is asked about."""
    known_ids = pl.concat([frame.select("arxiv_id") for frame in known])["arxiv_id"]
    return papers.filter(~pl.col("arxiv_id").is_in(known_ids.implode()))["arxiv_id"].to_list()
