"""Affiliations by source precedence and the maintainer companies they name."""

import re

import polars as pl
import pytest

from assets.papers.affiliations import (
    affiliations_by_precedence,
    arxiv_affiliations,
    code_url_affiliations,
    company_pattern,
    email_domain_affiliations,
    maintainer_companies_from_sources,
    maintainer_companies_of,
    override_affiliations,
    read_affiliation_overrides,
)
from orchestration.clients.recorded_affiliations import AFFILIATION_SCHEMA, read_snapshot_affiliations
from orchestration.curation import OverrideError
from orchestration.settings import MaintainerCompany, frameworks, maintainer_companies
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
        "ByteDance": r"bytedance|douyin",
        "Alibaba": r"alibaba|qwen|tongyi|taobao|tmall|taotian|damo academy",
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


# -- the code URL's organisation and e-mail domains ---------------------------------------

#: Invented companies: what the rules read is the configuration, not these names.
ACME = MaintainerCompany("Acme AI", ("Acme AI",), ("acme-ai", "AcmeLabs"), email_domains=("acme.com",))
GLOBEX = MaintainerCompany("Globex", ("Globex",), github_organisations=("globex",), email_domains=("globex.io",))
INVENTED = [ACME, GLOBEX]


def code_urls(*items: tuple[str, str | None]) -> pl.DataFrame:
    return pl.DataFrame(items, schema={"arxiv_id": pl.Utf8, "code_url": pl.Utf8}, orient="row")


def texts(*items: tuple[str, str | None, str | None]) -> pl.DataFrame:
    return pl.DataFrame(items, schema={"arxiv_id": pl.Utf8, "abstract": pl.Utf8, "comment": pl.Utf8}, orient="row")


def test_a_code_url_under_a_company_organisation_names_the_company():
    named = code_url_affiliations(
        code_urls(
            ("1", "https://github.com/Acme-AI/swift-rl"),  # owners match case-insensitively
            ("2", "https://www.github.com/acmelabs/tiny-rl.git"),
            ("3", "https://github.com/globex/other-tool/tree/main/recipes"),
            ("4", "https://github.com/jdoe/acme-ai"),  # the organisation must be the owner
            ("5", "https://gitlab.com/acme-ai/swift-rl"),  # GitHub organisations only
            ("6", "https://github.com/acme-ai-fan/swift-rl"),
            ("7", None),
        ),
        INVENTED,
        framework_repos=["Globex/RL-Trainer"],
    )
    assert named.rows() == [
        ("1", None, "Acme AI", "code_url"),
        ("2", None, "Acme AI", "code_url"),
        ("3", None, "Globex", "code_url"),
    ]


def test_a_framework_repository_as_code_url_names_no_company():
    """Papers link a framework's repository (or a recipe inside it) as the code they build on."""
    named = code_url_affiliations(
        code_urls(
            ("1", "https://github.com/globex/rl-trainer"),
            ("2", "https://github.com/Globex/RL-Trainer/tree/main/recipe/x"),
        ),
        INVENTED,
        framework_repos=["Globex/RL-Trainer"],
    )
    assert named.is_empty()


def test_email_domains_in_the_comment_or_abstract_name_companies():
    named = email_domain_affiliations(
        texts(
            ("1", "Contact {ann,bo}@acme.com for the code.", None),
            ("2", None, "Correspondence: cy@research.ACME.com; dee@globex.io."),  # subdomain, any case
            ("3", "We report pass@k and mean@1.5 scores.", "eve@univ.edu"),
            ("4", None, "fay@notacme.com, gus@acme.community, hal@acme.com.cn"),  # lookalikes
            ("5", None, "ivy@acme.com and jo@acme.com"),  # one row per company
        ),
        INVENTED,
    )
    assert sorted(named.rows()) == [
        ("1", None, "Acme AI", "email"),
        ("2", None, "Acme AI", "email"),
        ("2", None, "Globex", "email"),
        ("5", None, "Acme AI", "email"),
    ]


def test_the_weak_sources_rank_after_openalex_code_url_first():
    chosen = affiliations_by_precedence(
        rows(("1", "A", "Stanford University", "openalex")),
        rows(("1", None, "Acme AI", "code_url"), ("2", None, "Acme AI", "code_url")),
        rows(("2", None, "Globex", "email"), ("3", None, "Globex", "email")),
    )
    assert sorted(chosen.rows()) == [
        ("1", "A", "Stanford University", "openalex"),
        ("2", None, "Acme AI", "code_url"),
        ("3", None, "Globex", "email"),
    ]


def test_code_url_and_email_fill_only_papers_no_listed_source_covers():
    papers = pl.DataFrame(
        {
            "arxiv_id": ["listed", "code", "mail", "stranger", "nothing"],
            "abstract": [
                "Code: https://github.com/acme-ai/listed-rl",
                "Code: https://github.com/AcmeLabs/code-rl",
                "We study a new clipping rule.",
                "Code: https://github.com/jdoe/stranger-rl",
                "We study a new clipping rule.",
            ],
            "comment": [None, "ann@globex.io", "bo@globex.io", "cy@univ.edu", None],
        }
    )
    listed = rows(("listed", "A", "Example University", "snapshot"))
    result = maintainer_companies_from_sources(papers, [listed], INVENTED, framework_repos=[]).sort("arxiv_id")
    assert dict(zip(result["arxiv_id"], zip(result["maintainer_company"], result["affiliation_source"]))) == {
        "listed": ("none", "snapshot"),  # a listed source wins whole
        "code": ("Acme AI", "code_url"),
        "mail": ("Globex", "email"),
        "stranger": (None, None),  # an unknown owner or domain says nothing: unknown, never "none"
        "nothing": (None, None),
    }


def test_the_configured_organisations_and_domains_each_belong_to_one_company():
    companies = maintainer_companies()
    organisations = [o.lower() for c in companies for o in c.github_organisations]
    domains = [d for c in companies for d in c.email_domains]
    assert len(organisations) == len(set(organisations)) and len(domains) == len(set(domains))
    assert all(c.github_organisations and c.email_domains for c in companies)
    # A university lab is not a company; a framework's owner may be (volcengine) or not (OpenRLHF).
    assert {"thudm", "openrlhf"}.isdisjoint(organisations)


@pytest.mark.snapshots
def test_the_configured_email_domains_agree_with_the_recorded_institutions():
    """The e-mail domains recorded beside each paper's printed institutions: each company a
    configured domain names is one the institutions name too."""
    path = shared_snapshots() / "affiliations" / "affiliations.jsonl"
    addresses = pl.read_ndjson(path, schema={"arxiv_id": pl.Utf8, "email_domains": pl.List(pl.Utf8)}).select(
        "arxiv_id", abstract=pl.lit(None, pl.Utf8), comment=pl.col("email_domains").list.eval("x@" + pl.element()).list.join(" ")
    )
    named = email_domain_affiliations(addresses, COMPANIES)
    printed = maintainer_companies_of(addresses.select("arxiv_id"), read_snapshot_affiliations(path), COMPANIES)
    checked = named.join(printed, on="arxiv_id").with_columns(
        agree=pl.col("maintainer_company").str.split("; ").list.contains(pl.col("affiliation"))
    )
    assert checked.height >= 10
    assert checked.filter(~pl.col("agree")).is_empty()
