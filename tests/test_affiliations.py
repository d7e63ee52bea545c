"""Affiliations by source precedence and the maintainer companies they name."""

import polars as pl
import pytest

from assets.affiliations import (
    AFFILIATION_SCHEMA,
    affiliations_by_precedence,
    arxiv_affiliations,
    company_pattern,
    maintainer_companies_of,
    override_affiliations,
    read_affiliation_overrides,
)
from assets.overrides import OverrideError
from orchestration.settings import MaintainerCompany, frameworks
from tests.helpers import REPO_ROOT

COMPANIES = [company for framework in frameworks() for company in framework.maintainer_companies]
AFFILIATION = pl.List(pl.Struct({"author": pl.Utf8, "affiliation": pl.Utf8}))


def rows(*items: tuple[str, str | None, str, str]) -> pl.DataFrame:
    return pl.DataFrame(items, schema=AFFILIATION_SCHEMA, orient="row")


def paper_ids(*ids: str) -> pl.DataFrame:
    return pl.DataFrame({"arxiv_id": list(ids)})


def test_arxiv_affiliations_come_from_the_parsed_entries():
    papers = pl.DataFrame(
        {
            "arxiv_id": ["1", "2"],
            "author_affiliations": [[{"author": "A", "affiliation": "NVIDIA"}, {"author": "B", "affiliation": " "}], []],
        },
        schema={"arxiv_id": pl.Utf8, "author_affiliations": AFFILIATION},
    )
    assert arxiv_affiliations(papers).rows() == [("1", "A", "NVIDIA", "arxiv")]


def test_the_first_source_with_any_affiliation_wins_for_each_paper():
    chosen = affiliations_by_precedence(
        rows(("1", None, "Qwen Team, Alibaba Inc.", "override")),
        rows(("1", "A", "Peking University", "arxiv"), ("2", "B", "NVIDIA", "arxiv")),
        rows(("2", "B", "ByteDance", "openalex"), ("3", "C", "Tsinghua University", "openalex")),
    )
    assert sorted(chosen.rows()) == [
        ("1", None, "Qwen Team, Alibaba Inc.", "override"),
        ("2", "B", "NVIDIA", "arxiv"),
        ("3", "C", "Tsinghua University", "openalex"),
    ]


@pytest.mark.parametrize(
    ("affiliation", "company"),
    [
        ("ByteDance Seed", "ByteDance"),
        ("bytedance seed, Beijing", "ByteDance"),
        ("Qwen Team, Alibaba Group", "Alibaba"),
        ("NVIDIA Corporation, Santa Clara", "NVIDIA"),
        ("Ant Group", "Ant Group"),
        ("Zhipu AI", "Zhipu AI"),
        ("Hugging Face", "Hugging Face"),
    ],
)
def test_company_variants_match_case_insensitively(affiliation, company):
    result = maintainer_companies_of(paper_ids("1"), rows(("1", "A", affiliation, "arxiv")), COMPANIES)
    assert result["maintainer_company"].to_list() == [company]


def test_a_variant_inside_another_word_is_not_the_company():
    # "Giant Group" contains "ant Group"; "Zhipuxyz" is not Zhipu.
    result = maintainer_companies_of(
        paper_ids("1"), rows(("1", "A", "Giant Group Labs", "arxiv"), ("1", "B", "Zhipuxyz Inc", "arxiv")), COMPANIES
    )
    assert result["maintainer_company"].to_list() == ["none"]


def test_unknown_stays_unknown_and_known_without_company_is_none():
    result = maintainer_companies_of(
        paper_ids("known", "unknown", "two"),
        rows(
            ("known", "A", "Stanford University", "openalex"),
            ("two", "A", "NVIDIA", "override"),
            ("two", "B", "Alibaba Cloud", "override"),
        ),
        COMPANIES,
    )
    assert result.sort("arxiv_id").rows() == [
        ("known", "none", "openalex"),
        ("two", "Alibaba; NVIDIA", "override"),
        ("unknown", None, None),
    ]


def test_company_pattern_escapes_variants():
    pattern = company_pattern(MaintainerCompany("Z.ai", ("Z.ai",)))
    frame = pl.DataFrame({"a": ["Z.ai Research", "Zxai"]})
    assert frame.select(pl.col("a").str.contains(pattern))["a"].to_list() == [True, False]


def test_affiliation_overrides_need_an_affiliation_and_a_reason(tmp_path):
    path = tmp_path / "affiliations.csv"
    path.write_text("arxiv_id,author,affiliation,reason\n2503.14476,,ByteDance Seed,author list\n2504.00001,,,no affiliation\n")
    with pytest.raises(OverrideError, match=r"affiliations.csv:3: affiliation '': empty"):
        read_affiliation_overrides(path)


def test_the_repository_affiliation_overrides_are_valid_and_name_companies():
    overrides = override_affiliations(read_affiliation_overrides(REPO_ROOT / "overrides" / "affiliations.csv"))
    result = maintainer_companies_of(overrides.select("arxiv_id").unique(), overrides, COMPANIES)
    assert result["maintainer_company"].is_not_null().all()
    assert "ByteDance" in result["maintainer_company"].to_list()
