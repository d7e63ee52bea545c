"""paper_terms: the descriptive names of a method (long name, alias parts, distinctive
words of the abstract) on invented papers."""

import polars as pl

from assets.links.paper_terms import common_in_code, descriptive_names, name_parts
from tests.link_fixtures import files

HWPO = "2509.99901"
OTHER = "2509.99902"
THIRD = "2509.99903"


def invented_papers() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "arxiv_id": [HWPO, OTHER, THIRD],
            "title": [
                "HWPO: Harmonic Window Policy Optimization",
                "Counting Lanterns with Reinforcement Learning",
                "Policy Gradients for Kite Flying",
            ],
            "abstract": [
                "We propose Harmonic Window Policy Optimization (HWPO), which bounds the ratio in a zephyr window "
                "and trains a policy with reinforcement learning.",
                "We count lanterns with reinforcement learning and a policy.",
                "A policy flies kites.",
            ],
        }
    )


def invented_aliases() -> pl.DataFrame:
    return pl.DataFrame({"arxiv_id": [HWPO], "alias": ["HWPO"], "normalized": ["hwpo"]})


def terms_of(paper: str, kind: str) -> set[str]:
    names = descriptive_names(invented_papers(), invented_aliases())
    return set(names.filter((pl.col("arxiv_id") == paper) & (pl.col("kind") == kind))["term"])


def test_a_long_name_is_one_key_from_the_title_or_before_the_acronym():
    assert terms_of(HWPO, "long_name") == {"harmonicwindowpolicyoptimization"}


def test_an_alias_of_several_words_is_a_long_name():
    names = descriptive_names(
        invented_papers(),
        pl.DataFrame({"arxiv_id": [OTHER, OTHER], "alias": ["Lantern Beam Count", "LBC"], "normalized": ["lanternbeamcount", "lbc"]}),
    )
    assert set(names.filter((pl.col("arxiv_id") == OTHER) & (pl.col("kind") == "long_name"))["term"]) == {"lanternbeamcount"}


def test_alias_keys_are_names_too():
    assert terms_of(HWPO, "alias") == {"hwpo"}


def test_distinctive_words_are_those_few_papers_use():
    distinctive = terms_of(HWPO, "distinctive")
    assert {"zephyr", "harmonic", "window"} <= distinctive
    # Three papers say `policy` (more than DISTINCTIVE_MAX_PAPERS); short words never count.
    assert "policy" not in distinctive and "in" not in distinctive


def test_a_word_many_commits_use_in_identifiers_is_common_in_code():
    terms = pl.Series("term", ["zephyr", "window"])
    history = files(
        *[("verl", f"c{n}", "pkg/mod.py", "", ["sliding_window"]) for n in range(10)],
        ("verl", "z", "pkg/z.py", "", ["zephyr_width"]),
        *[("verl", f"d{n}", "pkg/other.py", "", ["other"]) for n in range(89)],
    )
    assert common_in_code(terms, history).to_list() == ["window"]
    # In a short history one commit is no custom.
    assert common_in_code(terms, files(("verl", "z", "pkg/z.py", "", ["zephyr_width"]))).is_empty()


def test_name_parts_split_identifiers_and_paths_and_keep_the_whole():
    parts = pl.select(name_parts(pl.lit("hwpo_loss"))).item().to_list()
    assert parts == ["hwpo", "loss", "hwpoloss"]
    path = pl.select(name_parts(pl.lit("recipe/run_zephyr-7b.sh"))).item().to_list()
    assert "zephyr" in path and "sh" in path
