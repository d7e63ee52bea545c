"""The learned screening model (assets/papers/screening_model.py), on invented papers."""

from __future__ import annotations

import polars as pl
import pytest

from assets.papers.screening import screening_rules, screening_verdicts
from assets.papers.screening_model import (
    RULE_PREFIX,
    committed_screening_model,
    feature_values,
    fit_screening_model,
    general_method_probabilities,
    read_screening_model,
    word_counts,
    write_screening_model,
)
from bench import train_screening_model
from tests.helpers import shared_snapshots


METHODS = [
    "We propose a new policy optimization objective that reweights token advantages in the clipped surrogate.",
    "We introduce an advantage estimator with a learned baseline that lowers gradient variance in RL fine-tuning.",
    "A rollout sampling curriculum that selects prompts of medium difficulty for reinforcement learning of LLMs.",
    "We propose entropy regularization with an adaptive coefficient for policy gradient training of language models.",
    "Our method masks low-probability tokens out of the policy loss to stabilise RL with verifiable rewards.",
    "We design a process reward that shapes the advantage of each reasoning step during policy optimization.",
]
OTHERS = [
    "We present a benchmark of shopping web agents with thousands of tasks and a leaderboard.",
    "A survey of agents for travel planning, their datasets and evaluation protocols.",
    "We release a dataset of medical dialogues and fine-tune a clinical assistant on it.",
    "We describe a distributed serving system that raises throughput of inference on GPU clusters.",
    "An empirical study of how tool-calling agents fail on spreadsheet tasks, with a taxonomy of errors.",
    "We build a search agent for legal documents and evaluate it on a new retrieval benchmark.",
]


def invented() -> tuple[pl.DataFrame, pl.DataFrame]:
    abstracts = METHODS + OTHERS
    papers = pl.DataFrame(
        {
            "arxiv_id": [f"p{i}" for i in range(len(abstracts))],
            "title": ["A Paper"] * len(abstracts),
            "abstract": abstracts,
            "comment": [""] * len(abstracts),
        }
    )
    labels = papers.select("arxiv_id", is_general_rl_method=pl.Series([True] * len(METHODS) + [False] * len(OTHERS)))
    return papers, labels


def test_the_model_learns_which_words_say_general_method():
    papers, labels = invented()
    model = fit_screening_model(papers, screening_rules(papers), labels, min_papers=1, c=10.0)
    new = pl.DataFrame(
        {
            "arxiv_id": ["method", "other"],
            "title": ["A Method", "A Resource"],
            "abstract": [
                "We propose a policy optimization objective that clips token advantages for RL of LLMs.",
                "We release a benchmark dataset of legal search tasks for agents.",
            ],
            "comment": ["", ""],
        }
    )
    probabilities = general_method_probabilities(new, screening_rules(new), model)
    scores = dict(probabilities.select("arxiv_id", "screening_probability").iter_rows())
    assert scores["method"] > 0.5 > scores["other"]
    terms = dict(probabilities.select("arxiv_id", "screening_terms").iter_rows())
    assert any(term.startswith("+") for term in terms["method"]) and any(term.startswith("-") for term in terms["other"])


def test_words_are_unit_length_tf_idf_and_rules_count_one():
    papers = pl.DataFrame({"arxiv_id": ["1"], "title": ["Clip"], "abstract": ["clip clip the ratio"]})
    words = word_counts(papers)
    # The title counts twice: "clip" four times in all.
    assert dict(words.select("feature", "count").iter_rows())["clip"] == 4.0
    idf = pl.DataFrame({"feature": ["clip", "ratio"], "idf": [1.0, 2.0]})
    rules = pl.DataFrame({"arxiv_id": ["1"], "feature": [RULE_PREFIX + "rl_mechanism"]})
    values = dict(feature_values(words, rules, idf).select("feature", "value").iter_rows())
    assert values.keys() == {"clip", "ratio", RULE_PREFIX + "rl_mechanism"}
    assert values["clip"] ** 2 + values["ratio"] ** 2 == pytest.approx(1.0)
    assert values[RULE_PREFIX + "rl_mechanism"] == 1.0


def test_a_paper_without_words_is_scored_on_its_rules_alone():
    papers, labels = invented()
    model = fit_screening_model(papers, screening_rules(papers), labels, min_papers=1)
    empty = pl.DataFrame({"arxiv_id": ["x"], "title": [None], "abstract": [""], "comment": [""]}, schema_overrides={"title": pl.Utf8})
    row = general_method_probabilities(empty, screening_rules(empty), model).row(0, named=True)
    assert 0 < row["screening_probability"] < 0.5
    assert row["screening_terms"] and all(term[1:].startswith(RULE_PREFIX) for term in row["screening_terms"])


def test_training_needs_both_kinds_of_paper():
    papers, labels = invented()
    with pytest.raises(ValueError, match="both kinds"):
        fit_screening_model(papers, screening_rules(papers), labels.with_columns(is_general_rl_method=pl.lit(True)))


def test_a_model_survives_writing_and_reading(tmp_path):
    papers, labels = invented()
    model = fit_screening_model(papers, screening_rules(papers), labels, min_papers=1, meta={"trained_on": {"invented": 12}})
    write_screening_model(model, tmp_path / "features.csv", tmp_path / "model.json")
    again = read_screening_model(tmp_path / "features.csv", tmp_path / "model.json")
    assert again.features["feature"].to_list() == model.features.sort("feature")["feature"].to_list()
    assert again.intercept == pytest.approx(model.intercept, abs=1e-6) and again.threshold == 0.5
    assert again.meta["trained_on"] == {"invented": 12}


def test_a_missing_model_says_how_to_make_one(tmp_path):
    with pytest.raises(FileNotFoundError, match="train_screening_model"):
        read_screening_model(tmp_path / "features.csv", tmp_path / "model.json")


def test_a_veto_rule_overrides_the_model():
    papers, labels = invented()
    model = fit_screening_model(papers, screening_rules(papers), labels, min_papers=1)
    legged = pl.DataFrame(
        {
            "arxiv_id": ["robot"],
            "title": ["Clipped Advantage Policy Optimization for Quadruped Locomotion"],
            "abstract": ["We propose a policy optimization objective that clips advantages for legged robots."],
            "comment": [""],
        }
    )
    row = screening_verdicts(legged, model).row(0, named=True)
    assert "-not_language_models" in row["screening_reasons"] and not row["is_general_rl_method"]


def test_the_committed_model_was_trained_on_both_labelled_sets():
    model = committed_screening_model()
    assert model.threshold == 0.5 and model.features.height > 1000
    assert "screening_labels" in model.meta["trained_on"] and "h1_2025" in model.meta["trained_on"]
    assert model.features.filter(pl.col("feature").str.starts_with(RULE_PREFIX))["idf"].is_null().all()


@pytest.mark.snapshots
def test_the_committed_model_is_the_one_the_labels_and_rules_give():
    assert train_screening_model.main(["--check", "--snapshot", str(shared_snapshots())]) == 0
