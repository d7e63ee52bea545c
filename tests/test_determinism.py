"""Same input, same tables: every derived table, recomputed several times from its input
rows in a different storage order each time, is written byte for byte the same
(content and row order)."""

import hashlib
import io
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest

from assets.papers.affiliations import (
    arxiv_affiliations,
    maintainer_companies_from_sources,
    override_affiliations,
    read_affiliation_overrides,
)
from assets.papers.aliases import paper_aliases_of, read_alias_overrides
from orchestration.clients.arxiv_feed import ENTRY_SCHEMA
from orchestration.as_of import as_of_of
from orchestration.clients.recorded_snapshot import recorded_frames
from assets.links.evidence import evidence_of
from assets.links.inclusions import inclusions_of, read_inclusion_overrides
from orchestration.curation import OVERRIDES_DIR
from assets.papers.papers import papers_from_entries
from assets.links.proposals import proposals_of
from assets.papers.screening import paper_screening_of, read_screening_overrides
from assets.links.training_failures import training_failures_of
from orchestration.settings import frameworks, maintainer_companies
from tests.helpers import shared_snapshots
from tests.link_fixtures import DAPO, DR_GRPO, REINFORCE_PP, aliases, at, comments, commits, files, papers, threads

RECOMPUTATIONS = 5
#: The wall clock is not an input: a snapshot's as-of date is the end of its data.
RUN_TIME = datetime(2030, 1, 1, tzinfo=UTC)
DFT = "2508.05629"


def shuffled(frame: pl.DataFrame, seed: int) -> pl.DataFrame:
    return frame.sample(fraction=1.0, shuffle=True, seed=seed)


def derived_tables(inputs: dict[str, pl.DataFrame], seed: int) -> dict[str, pl.DataFrame]:
    """Every derived table from `inputs` (raw entries, commits, files, threads, comments,
    and the papers and aliases the links stage reads), each input and each intermediate
    table shuffled with `seed` first."""
    raw = {name: shuffled(frame, seed + index) for index, (name, frame) in enumerate(inputs.items())}
    tables = {"papers": papers_from_entries(raw["entries"])}
    paper_rows = shuffled(tables["papers"], seed)
    tables["paper_aliases"] = paper_aliases_of(paper_rows, read_alias_overrides())
    listed = [override_affiliations(read_affiliation_overrides()), arxiv_affiliations(paper_rows)]
    maintainers = maintainer_companies_from_sources(
        paper_rows, listed, maintainer_companies(), [framework.repo for framework in frameworks()]
    )
    tables["paper_screening"] = paper_screening_of(
        paper_rows, maintainers, read_screening_overrides(OVERRIDES_DIR / "screening.csv")
    )
    evidence = evidence_of(raw["commits"], raw["files"], raw["threads"], raw["comments"], raw["papers"], raw["aliases"])
    tables["evidence"] = evidence
    inclusions = inclusions_of(shuffled(evidence, seed), raw["papers"], raw["commits"], read_inclusion_overrides())
    tables["inclusions"] = inclusions
    as_of = as_of_of(raw["commits"], raw["threads"], raw["comments"], snapshot=True, now=RUN_TIME)
    tables["proposals"] = proposals_of(
        shuffled(evidence, seed + 1), raw["threads"], raw["comments"], shuffled(inclusions, seed), as_of
    )
    tables["training_failures"] = training_failures_of(raw["threads"], shuffled(evidence, seed + 2), inclusions)
    return tables


def content_hash(frame: pl.DataFrame) -> str:
    """The table as written (Parquet bytes): its rows, and their order."""
    buffer = io.BytesIO()
    frame.write_parquet(buffer)
    return hashlib.sha256(buffer.getvalue()).hexdigest()


def assert_recomputations_agree(inputs: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    first = derived_tables(inputs, seed=0)
    expected = {name: content_hash(table) for name, table in first.items()}
    for run in range(1, RECOMPUTATIONS):
        again = {name: content_hash(table) for name, table in derived_tables(inputs, seed=run * 100).items()}
        differing = [name for name in expected if again[name] != expected[name]]
        assert not differing, f"recomputation {run} wrote different {differing}"
    return first


# -- a small invented input with the ties that once made runs disagree --------------------


def entry(arxiv_id: str, version: int, title: str, published: str) -> dict:
    return {
        "arxiv_id": arxiv_id,
        "version": version,
        "title": title,
        "abstract": f"We propose {title.split(':')[0]}, a reinforcement learning method for LLM reasoning.",
        "authors": ["A. Author", "B. Author"],
        "author_affiliations": [],
        "primary_category": "cs.LG",
        "categories": ["cs.LG"],
        "comment": None,
        "journal_ref": None,
        "doi": None,
        "published_at": at(published),
        "updated_at": at(published),
        "abstract_url": f"http://arxiv.org/abs/{arxiv_id}v{version}",
        "pdf_url": None,
    }


def fixture_inputs() -> dict[str, pl.DataFrame]:
    dft = {"arxiv_id": [DFT], "title": ["On the Generalization of SFT"], "published_at": [at("2025-08-07")]}
    paper_rows = pl.concat([papers(), pl.DataFrame(dft, schema=papers().schema)])
    entries = pl.DataFrame(
        [
            entry(DAPO, 1, "DAPO: An Open-Source LLM Reinforcement Learning System at Scale", "2025-03-18"),
            entry(DAPO, 2, "DAPO: An Open-Source LLM Reinforcement Learning System at Scale (v2)", "2025-05-20"),
            entry(DR_GRPO, 1, "Understanding R1-Zero-Like Training: A Critical Perspective", "2025-03-26"),
            entry(REINFORCE_PP, 1, "REINFORCE++: A Simple and Efficient Approach for Aligning LLMs", "2025-01-04"),
        ],
        schema=ENTRY_SCHEMA,
    )
    return {
        "entries": entries,
        "commits": commits(
            # Two spellings of equal strength, one in the subject: a feature commit.
            ("verl", "c1", "2025-02-09", "[algo] feat: add REINFORCE++ (#1)\n\nset adv_estimator=reinforce_plus_plus"),
            # Two commits at the same second, both implementing DAPO: the smaller sha is first.
            ("verl", "c3", "2025-04-03", "[recipe] feat: add DAPO"),
            ("verl", "c2", "2025-04-03", "[recipe] feat: DAPO loss"),
            # A test file with the acronym written as a word (`Dft`) and as code (`dft`).
            ("trl", "t1", "2025-09-09", "Add DFT loss to SFT"),
            ("verl", "c4", "2025-04-21", "[algo] feat: Add DrGRPO\n\nDr. GRPO removes the std normalization"),
        ),
        "files": files(
            ("verl", "c1", "verl/trainer/core_algos.py", "", ["reinforce_plus_plus", "REINFORCE++"]),
            ("verl", "c3", "recipe/dapo/main_dapo.py", "", ["dapo", "DAPO"]),
            ("verl", "c2", "recipe/dapo/dapo_loss.py", "", ["DAPO", "dapo"]),
            ("trl", "t1", "tests/test_sft_trainer.py", "", ["Dft", "dft"]),
            ("trl", "t1", "trl/trainer/sft_trainer.py", "", ["dft"]),
            ("verl", "c4", "verl/trainer/core_algos.py", "", ["drgrpo", "dr_grpo", "DrGRPO"]),
        ),
        "threads": threads(
            {"number": 5, "title": "Support DAPO?", "body": "dapo decoupled clip, see DAPO paper"},
            {"number": 6, "title": "DAPO: loss becomes nan", "body": "dapo_loss.py gives nan with DAPO"},
            {"number": 7, "title": "Dr. GRPO and dr_grpo?", "state": "open", "created_at": at("2025-04-01")},
        ),
        "comments": comments(
            {"thread_number": 5, "author": "maintainer", "body": "DAPO is planned"},
            {"thread_number": 5, "author": "carol", "body": "dapo please", "created_at": at("2025-03-21")},
            {"thread_number": 7, "author": "bob", "body": "Dr GRPO or DrGRPO", "created_at": at("2025-04-02")},
        ),
        "papers": paper_rows,
        "aliases": aliases(
            (REINFORCE_PP, "reinforce_plus_plus", False, False),
            (DFT, "DFT", False, True),
        ),
    }


def test_the_fixture_tables_agree_across_shuffled_recomputations():
    tables = assert_recomputations_agree(fixture_inputs())
    assert all(table.height for table in tables.values()), {name: table.height for name, table in tables.items()}
    evidence = tables["evidence"]
    # The tie-breaks that decide, now fixed: a spelling in the subject counts, a
    # spelling written as code counts, and the earliest commit then the smaller sha wins.
    message = evidence.filter((pl.col("source_ref") == "c1") & pl.col("path").is_null()).row(0, named=True)
    assert message["rule"] == "message_with_code"
    dft_test = evidence.filter(pl.col("path") == "tests/test_sft_trainer.py").row(0, named=True)
    assert (dft_test["matched_text"], dft_test["rule"]) == ("dft", "test")
    dapo = tables["inclusions"].filter((pl.col("arxiv_id") == DAPO) & (pl.col("framework") == "verl"))
    assert dapo["commit_sha"].to_list() == ["c2"]


# -- the recorded real data ---------------------------------------------------------------


def snapshot_inputs(snapshot: Path) -> dict[str, pl.DataFrame]:
    """The raw frames of the recorded snapshots, and the papers and aliases derived from them."""
    recorded = recorded_frames(snapshot)
    paper_rows = papers_from_entries(recorded["entries"])
    return {
        **recorded,
        "papers": paper_rows.select("arxiv_id", "title", "published_at"),
        "aliases": paper_aliases_of(paper_rows, read_alias_overrides()),
    }


@pytest.mark.snapshots
def test_the_snapshot_tables_agree_across_shuffled_recomputations():
    tables = assert_recomputations_agree(snapshot_inputs(shared_snapshots()))
    assert tables["evidence"].height > 1000 and tables["inclusions"].height > 50
