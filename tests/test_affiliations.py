"""Affiliations by source precedence and the maintainer companies they name."""

import re

import polars as pl
import pytest

from assets.papers.affiliations import (
    affiliations_by_precedence,
    arxiv_affiliations,
    company_pattern,
    maintainer_companies_of,
    override_affiliations,
    read_affiliation_overrides,
)
from orchestration.clients.recorded_affiliations import AFFILIATION_SCHEMA, read_snapshot_affiliations
from orchestration.curation import OverrideError
from orchestration.settings import MaintainerCompany, frameworks
from orchestration.clients.snapshot_files import SnapshotFileError
from tests.helpers import REPO_ROOT, shared_snapshots
from tests.snapshot_fixtures import affiliation_record, write_affiliations

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
        # Names as printed on the recorded pages.
        ("SIA-Lab of Tsinghua AIR and ByteDance Seed", "ByteDance"),
        ("Tongyi Lab", "Alibaba"),
        ("Taobao & Tmall Group of Alibaba", "Alibaba"),
        ("Taotian Group", "Alibaba"),
        ("Antgroup (Ant Group)", "Ant Group"),
        ("inclusionAI (Ling Team)", "Ant Group"),
        ("Z.ai", "Zhipu AI"),
    ],
)
def test_company_variants_match_case_insensitively(affiliation, company):
    result = maintainer_companies_of(paper_ids("1"), rows(("1", "A", affiliation, "arxiv")), COMPANIES)
    assert result["maintainer_company"].to_list() == [company]


@pytest.mark.parametrize(
    "affiliation",
    [
        "Giant Group Labs",  # contains "ant Group"
        "Zhipuxyz Inc",
        "Relevant Research",  # contains "ant Research"
        "Seed Lab, Peking University",  # "Seed" alone is not ByteDance's
        "Tsinghua University (THUDM)",  # slime's lab is a university's; its company is Zhipu AI
        "Sea AI Lab",
        "InfiX.ai",
        "OpenRLHF",  # community-maintained
    ],
)
def test_a_lookalike_is_not_the_company(affiliation):
    result = maintainer_companies_of(paper_ids("1"), rows(("1", "A", affiliation, "arxiv")), COMPANIES)
    assert result["maintainer_company"].to_list() == ["none"]


def test_recorded_affiliations_by_author_and_by_paper(tmp_path):
    path = write_affiliations(
        tmp_path,
        [
            affiliation_record("1", ["NVIDIA", "Stanford University"], {"A": ["NVIDIA "], "B": ["Stanford University", " "]}),
            affiliation_record("2", ["Tongyi Lab, Alibaba Group"]),
            affiliation_record("3", [], email_domains=["gmail.com"]),  # a page with no affiliation: unknown
        ],
    )
    recorded = read_snapshot_affiliations(path)
    assert recorded.schema == pl.Schema(AFFILIATION_SCHEMA)
    assert sorted(recorded.rows(), key=str) == sorted(
        [
            ("1", "A", "NVIDIA", "snapshot"),
            ("1", "B", "Stanford University", "snapshot"),
            ("1", None, "NVIDIA", "snapshot"),
            ("1", None, "Stanford University", "snapshot"),
            ("2", None, "Tongyi Lab, Alibaba Group", "snapshot"),
        ],
        key=str,
    )
    companies = maintainer_companies_of(paper_ids("1", "2", "3"), recorded, COMPANIES).sort("arxiv_id")
    assert companies.rows() == [("1", "NVIDIA", "snapshot"), ("2", "Alibaba", "snapshot"), ("3", None, None)]


def test_recorded_affiliations_rank_after_arxiv_and_before_openalex():
    chosen = affiliations_by_precedence(
        rows(("1", "A", "Peking University", "arxiv")),
        rows(("1", None, "NVIDIA", "snapshot"), ("2", None, "NVIDIA", "snapshot")),
        rows(("2", "B", "Stanford University", "openalex")),
    )
    assert sorted(chosen.rows()) == [("1", "A", "Peking University", "arxiv"), ("2", None, "NVIDIA", "snapshot")]


@pytest.mark.parametrize(
    ("line", "problem"),
    [('{"arxiv_id": "2503.1', ":2: not a JSON line"), ('{"institutions": []}', ":2: no arxiv_id"),
     ('{"arxiv_id": "2", "institutions": "NVIDIA"}', ": not affiliation records")],
)  # fmt: skip
def test_a_corrupt_affiliations_file_is_named(tmp_path, line, problem):
    path = write_affiliations(tmp_path, [affiliation_record("1", ["NVIDIA"]), line])
    with pytest.raises(SnapshotFileError, match=re.escape(f"{path}{problem}")):
        read_snapshot_affiliations(path)


@pytest.mark.snapshots
def test_the_configured_variants_find_every_company_name_printed_and_nothing_else():
    """Every recorded affiliation that spells a maintainer company's name (by these
    independent spellings) is matched to that company, and no other affiliation is."""
    spellings = {
        "ByteDance": r"bytedance",
        "Alibaba": r"alibaba|qwen|tongyi|taobao|tmall|taotian",
        "Ant Group": r"ant ?group|inclusionai|ant research",
        "NVIDIA": r"nvidia",
        "Hugging Face": r"hugging ?face",
        "Zhipu AI": r"zhipu|\bz\.ai",
    }
    recorded = read_snapshot_affiliations(shared_snapshots() / "affiliations" / "affiliations.jsonl")
    names = recorded.select("affiliation").unique()
    matched = names.with_columns(
        configured=pl.concat_list(
            [pl.when(pl.col("affiliation").str.contains(company_pattern(c))).then(pl.lit(c.name)) for c in COMPANIES]
        ).list.drop_nulls().list.unique().list.sort(),
        spelled=pl.concat_list(
            [pl.when(pl.col("affiliation").str.contains(f"(?i){p}")).then(pl.lit(n)) for n, p in spellings.items()]
        ).list.drop_nulls().list.sort(),
    )
    assert matched.filter(pl.col("configured") != pl.col("spelled")).is_empty()
    assert matched.filter(pl.col("configured").list.len() > 0).height >= 20


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
