"""Author affiliations and the maintainer companies they point to.

Affiliations come from, in order: `overrides/affiliations.csv`, arXiv's own
`arxiv:affiliation` elements (parsed into `author_affiliations`), in snapshot mode the
recorded `affiliations/affiliations.jsonl` (as printed on a page about the paper),
OpenAlex, then two weaker sources that can only name a maintainer company: the GitHub
organisation of the paper's code URL and staff e-mail domains in its comment or abstract
(both configured per company in frameworks.toml). For each paper the first source that
has any affiliation is used whole, so a curated list is not diluted by a stale automatic
one. A paper with no affiliation from any source has an unknown maintainer company
(null): unknown is never "no".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import polars as pl

from assets.papers.screening import code_links
from orchestration.curation import OVERRIDES_DIR, read_override_csv
from orchestration.clients.recorded_affiliations import AFFILIATION_SCHEMA
from orchestration.settings import MaintainerCompany

AFFILIATIONS_OVERRIDES = OVERRIDES_DIR / "affiliations.csv"

AFFILIATION_OVERRIDE_COLUMNS = {"arxiv_id": pl.Utf8, "author": pl.Utf8, "affiliation": pl.Utf8}

#: Sources in order of precedence.
AFFILIATION_SOURCES = ("override", "arxiv", "snapshot", "openalex", "code_url", "email")

#: Owner and repository of a GitHub URL (a trailing ".git" is not part of the name).
_GITHUB_REPO = r"(?i)^https?://(?:www\.)?github\.com/([^/#?]+)/([^/#?]+?)(?:\.git)?(?:[/#?]|$)"
#: The domain of an e-mail address, "{alice,bob}@example.com" included; "pass@k" is not one.
_EMAIL_DOMAIN = r"@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}"

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
    no affiliation is known) and `affiliation_source` (one of AFFILIATION_SOURCES)."""
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


def code_url_affiliations(
    code_urls: pl.DataFrame, companies: Sequence[MaintainerCompany], framework_repos: Sequence[str]
) -> pl.DataFrame:
    """One row (source `code_url`, the company's name as affiliation) per paper whose code
    URL (`code_links`: `arxiv_id`, `code_url`) is a GitHub repository of one of the
    companies' organisations, matched case-insensitively. The frameworks' own repositories
    (`framework_repos`, "owner/name") are skipped: papers link them as the code they build
    on. Any other owner says nothing, so it gives no row."""
    owners = {org.lower(): company.name for company in companies for org in company.github_organisations}
    repo = pl.col("code_url").str.extract_groups(_GITHUB_REPO)
    return (
        code_urls.select(
            "arxiv_id",
            owner=repo.struct.field("1").str.to_lowercase(),
            repo=pl.concat_str(repo.struct.field("1"), repo.struct.field("2"), separator="/").str.to_lowercase(),
        )
        .filter(pl.col("owner").is_in(list(owners)) & ~pl.col("repo").is_in([name.lower() for name in framework_repos]))
        .select(
            "arxiv_id",
            author=pl.lit(None, pl.Utf8),
            affiliation=pl.col("owner").replace_strict(owners, return_dtype=pl.Utf8),
            source=pl.lit("code_url"),
        )
    )


def email_domain_affiliations(papers: pl.DataFrame, companies: Sequence[MaintainerCompany]) -> pl.DataFrame:
    """One row (source `email`, the company's name as affiliation) per (paper, company)
    with an address at one of the company's e-mail domains, or a subdomain of one, in the
    paper's comment or abstract. Other domains say nothing (a corresponding author's
    university address does not say the other authors have no company), so give no row."""
    configured = pl.DataFrame(
        [(domain, company.name) for company in companies for domain in company.email_domains],
        schema={"configured_domain": pl.Utf8, "affiliation": pl.Utf8},
        orient="row",
    )
    text = pl.concat_str([pl.col("abstract").fill_null(""), pl.col("comment").fill_null("")], separator=" ")
    domains = (
        papers.select("arxiv_id", domain=text.str.extract_all(_EMAIL_DOMAIN))
        .explode("domain")
        .drop_nulls("domain")
        .select("arxiv_id", domain=pl.col("domain").str.strip_prefix("@").str.to_lowercase())
    )
    return (
        domains.join(configured, how="cross")
        .filter(
            (pl.col("domain") == pl.col("configured_domain"))
            | pl.col("domain").str.ends_with(pl.concat_str(pl.lit("."), pl.col("configured_domain")))
        )
        .select("arxiv_id", author=pl.lit(None, pl.Utf8), affiliation="affiliation", source=pl.lit("email"))
        .unique(maintain_order=True)
    )


def maintainer_companies_from_sources(
    papers: pl.DataFrame,
    listed: Sequence[pl.DataFrame],
    companies: Sequence[MaintainerCompany],
    framework_repos: Sequence[str],
) -> pl.DataFrame:
    """`maintainer_companies_of` the papers from the `listed` affiliation rows (overrides,
    arXiv, recorded, OpenAlex) and, for a paper none of them covers, its code URL's
    organisation, then the e-mail domains in its text."""
    affiliations = affiliations_by_precedence(
        *listed,
        code_url_affiliations(code_links(papers), companies, framework_repos),
        email_domain_affiliations(papers, companies),
    )
    return maintainer_companies_of(papers, affiliations, companies)


def override_affiliations(overrides: pl.DataFrame) -> pl.DataFrame:
    """Affiliation override rows in the shape of the other sources."""
    return overrides.select("arxiv_id", "author", "affiliation", source=pl.lit("override"))


def papers_without_affiliations(papers: pl.DataFrame, *known: pl.DataFrame) -> list[str]:
    """The ids of `papers` (in order) that none of the `known` affiliation sources has a
    row for: the papers OpenAlex is asked about."""
    known_ids = pl.concat([frame.select("arxiv_id") for frame in known])["arxiv_id"]
    return papers.filter(~pl.col("arxiv_id").is_in(known_ids.implode()))["arxiv_id"].to_list()
