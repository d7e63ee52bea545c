"""The learned method-name model (assets/papers/name_model.py), on invented papers."""

from __future__ import annotations

import polars as pl
import pytest

from assets.papers.aliases import normalized_name, rule_aliases
from assets.papers.name_model import (
    NameModel,
    candidate_features,
    committed_name_model,
    fit_name_model,
    learned_names,
    name_probabilities,
    read_name_model,
    write_name_model,
)
from bench import train_name_model
from tests.helpers import shared_snapshots

NO_RULE_NAMES = pl.DataFrame(schema={"arxiv_id": pl.Utf8, "alias": pl.Utf8, "source": pl.Utf8})


def papers(*rows: tuple[str, str, str]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=["arxiv_id", "title", "abstract"], orient="row")


def candidates_of(frame: pl.DataFrame) -> pl.DataFrame:
    return candidate_features(frame, NO_RULE_NAMES)


def features_of(candidates: pl.DataFrame, arxiv_id: str, normalized: str) -> set[str]:
    return set(candidates.filter((pl.col("arxiv_id") == arxiv_id) & (pl.col("normalized") == normalized))["feature"])


# Invented abstracts: each proposes a capitalised technique the rules' patterns do not
# name (no acronym, no "called"), beside capitalised phrases that are not names.
TRAINING = papers(
    *(
        (
            f"2599.{index:05d}",
            f"On {topic} in Reasoning Models",
            f"Large Language Models often fail at {topic}. In this work we develop {name} which rescales "
            f"each update of the policy. Experiments on Math Benchmarks show {name} helps.",
        )
        for index, (topic, name) in enumerate(
            [
                ("exploration", "Quiet Gradient Folding"),
                ("credit assignment", "Patient Token Lending"),
                ("sampling", "Amber Rollout Sieving"),
                ("stability", "Level Ratio Damping"),
                ("calibration", "Soft Margin Carving"),
                ("diversity", "Tidal Reward Mixing"),
            ]
        )
    )
)
TRAINING_NAMES = pl.DataFrame(
    {
        "arxiv_id": [f"2599.{index:05d}" for index in range(6)],
        "normalized": ["quietgradientfolding", "patienttokenlending", "amberrolloutsieving", "levelratiodamping", "softmargincarving", "tidalrewardmixing"],
    }
)


def trained():
    return fit_name_model(candidates_of(TRAINING), TRAINING_NAMES, min_papers=2, c=10.0)


def test_candidates_are_runs_of_words_inside_one_clause_and_capitalised_single_words():
    found = candidates_of(
        papers(("1", "Tidy: Better Rollouts", "We propose Sharp Edge Policy Optimization (SEPO), a method. It uses tidy buffers."))
    )
    names = set(found["normalized"])
    assert {"tidy", "betterrollouts", "sharpedgepolicyoptimization", "sepo"} <= names
    # No run crosses a parenthesis or a comma; a lower-case single word is no candidate.
    assert "sepoamethod" not in names and "optimizationsepo" not in names and "buffers" not in names
    assert "long_form_of_next" in features_of(found, "1", "sharpedgepolicyoptimization")
    assert "acronym_of_long_form" in features_of(found, "1", "sepo")
    assert "title_start_next=:" in features_of(found, "1", "tidy")


def test_the_rules_names_are_features_of_their_candidates():
    frame = papers(("1", "A Study", "We propose SEPO, a simple method."))
    found = candidate_features(frame, rule_aliases(frame).select("arxiv_id", "alias", "source"))
    assert any(feature.startswith("rule=") for feature in features_of(found, "1", "sepo"))


def test_a_trained_model_takes_a_new_technique_named_the_same_way_and_not_the_field_phrases():
    model = trained()
    new = papers(
        (
            "2599.10000",
            "On Patience in Reasoning Models",
            "Large Language Models often fail at patience. In this work we develop Bright Step Pruning which rescales "
            "each update of the policy. Experiments on Math Benchmarks show Bright Step Pruning helps.",
        )
    )
    scored = name_probabilities(candidates_of(new), model)
    probability = dict(zip(scored["normalized"], scored["name_probability"]))
    assert probability["brightsteppruning"] >= model.threshold
    assert probability["largelanguagemodels"] < model.threshold and probability["mathbenchmarks"] < model.threshold
    names = learned_names(new, NO_RULE_NAMES, model)
    assert names.rows() == [("2599.10000", "Bright Step Pruning", "learned")]


def test_the_rules_names_stand_and_established_names_are_never_learned():
    model = trained()
    new = papers(("2599.10001", "On GRPO", "In this work we develop GRPO which rescales each update of the policy."))
    rules = pl.DataFrame({"arxiv_id": ["2599.10001"], "alias": ["Xeno"], "source": ["named"]})
    names = learned_names(new, rules, model)
    assert ("2599.10001", "Xeno", "named") in names.rows()
    assert "grpo" not in set(names.select(normalized_name(pl.col("alias"))).to_series())


def test_a_name_the_abstract_sets_apart_as_a_data_set_is_not_learned():
    # A model that takes every single capitalised word: only the apposition tells them apart.
    takes_every_word = NameModel(pl.DataFrame({"feature": ["n=1"], "weight": [20.0]}), 0.0, 0.5, {})
    new = papers(
        (
            "2599.10002",
            "Learning From Quizzes",
            "We first present Quizzo, a large dataset of audio quizzes. We then propose Blendo, a framework "
            "and benchmark for RL, and Clippo, which bounds each update.",
        )
    )
    learned = set(learned_names(new, pl.DataFrame(schema={"arxiv_id": pl.Utf8, "alias": pl.Utf8, "source": pl.Utf8}), takes_every_word)["alias"])
    assert {"Blendo", "Clippo"} <= learned and "Quizzo" not in learned


def test_training_needs_names_and_non_names():
    with pytest.raises(ValueError, match="labelled names"):
        fit_name_model(candidates_of(TRAINING), TRAINING_NAMES.clear())


def test_a_written_model_reads_back_the_same(tmp_path):
    model = trained()
    write_name_model(model, tmp_path / "features.csv", tmp_path / "model.json")
    again = read_name_model(tmp_path / "features.csv", tmp_path / "model.json")
    assert again.features.height == model.features.height and again.threshold == model.threshold
    assert abs(again.intercept - model.intercept) < 1e-6


def test_a_missing_model_says_how_to_train_one(tmp_path):
    with pytest.raises(FileNotFoundError, match="train_name_model"):
        read_name_model(tmp_path / "features.csv", tmp_path / "model.json")


def test_the_committed_model_scores_a_paper_the_same_however_its_rows_arrive():
    model = committed_name_model()
    frame = papers(
        ("1", "Sharp Edges: Clipping for RL", "We propose Sharp Edge Policy Optimization (SEPO), which bounds each update."),
        ("2", "Tidy Rollouts", "Our Rollout Tidying step drops repeated rollouts before the update."),
    )
    candidates = candidates_of(frame)
    once = name_probabilities(candidates, model).sort("arxiv_id", "normalized")
    again = name_probabilities(candidates.reverse(), model).sort("arxiv_id", "normalized")
    assert once.equals(again)


@pytest.mark.snapshots
def test_the_committed_model_is_the_one_the_labels_give():
    assert train_name_model.main(["--check", "--snapshot", str(shared_snapshots())]) == 0


def test_the_aliases_table_takes_the_names_of_the_model_it_is_given_with_their_spellings():
    from assets.papers.aliases import ALIAS_OVERRIDE_COLUMNS, paper_aliases_of

    new = papers(("2599.10002", "On Patience", "Large Language Models often fail at patience."))
    no_overrides = pl.DataFrame(schema={**ALIAS_OVERRIDE_COLUMNS, "reason": pl.Utf8})
    # A model that takes every candidate: the phrase becomes a learned name, spelled in snake case too.
    rows = dict(paper_aliases_of(new, no_overrides, model=trained()._replace(threshold=0.0)).select("alias", "source").iter_rows())
    assert rows["Large Language Models"] == "learned" and rows["large_language_models"] == "variant"
    assert "Large Language Models" not in set(paper_aliases_of(new, no_overrides, model=trained())["alias"])
