"""The learned loss-change kind model (assets/papers/kind_model.py) and how the pipeline
decides a kind with it, on invented papers."""

from __future__ import annotations

import polars as pl
import pytest

from assets.papers.kind_model import committed_kind_model, fit_kind_model, kind_probabilities, read_kind_model, write_kind_model
from assets.papers.logistic import fit_softmax_regression, same_fit
from assets.papers.screening import decided_loss_change_kinds, loss_change_kinds
from bench import train_kind_model
from tests.helpers import shared_snapshots

#: Invented abstracts, three of each kind, in words no kind rule knows.
KINDS = {
    "sampling": [
        "Prompts the policy already solves are dropped and unsolved ones revisited more often as training goes on.",
        "Hard questions are revisited more often, and each batch is refilled with fresh unsolved questions.",
        "The trainer keeps a pool of unsolved questions and draws each batch from that pool first.",
    ],
    "reward": [
        "A judge scores each answer against a checklist and its verdict becomes the training signal.",
        "The training signal comes from a judge that compares each answer with a checklist of criteria.",
        "Answers that satisfy more items of a checklist earn a higher score from the judge during training.",
    ],
    "new_objective": [
        "The policy learns by matching the whole distribution of good answers with a divergence it minimises.",
        "A divergence between the policy and a tilted distribution of answers is minimised directly.",
        "Training minimises a divergence to a tilted answer distribution instead of maximising expected return.",
    ],
}


def invented() -> tuple[pl.DataFrame, pl.DataFrame]:
    rows = [(f"{kind}{i}", abstract, kind) for kind, abstracts in KINDS.items() for i, abstract in enumerate(abstracts)]
    papers = pl.DataFrame(
        {"arxiv_id": [r[0] for r in rows], "title": ["A Method"] * len(rows), "abstract": [r[1] for r in rows], "comment": [""] * len(rows)}
    )
    return papers, papers.select("arxiv_id", loss_change_kind=pl.Series([r[2] for r in rows]))


def paper(abstract: str, title: str = "A Method") -> pl.DataFrame:
    return pl.DataFrame({"arxiv_id": ["new"], "title": [title], "abstract": [abstract], "comment": [""]})


def test_the_model_learns_the_kind_from_words_no_rule_knows():
    papers, labels = invented()
    model = fit_kind_model(papers, labels, min_papers=1)
    row = kind_probabilities(paper("Unsolved questions are revisited and solved ones dropped from the pool."), model).row(0, named=True)
    assert row["learned_kind"] == "sampling" and row["learned_kind_probability"] > 1 / 3
    assert row["learned_kind_terms"] and set(row["learned_kind_terms"]) <= {"unsolved", "questions", "revisited", "solved", "dropped", "pool", "from", "the", "and", "are", "ones", "method"}


def test_the_probabilities_of_all_kinds_sum_to_one():
    papers, labels = invented()
    model = fit_kind_model(papers, labels, min_papers=1)
    scored = kind_probabilities(papers, model)
    assert (scored["learned_kind"] == labels["loss_change_kind"]).all()
    assert scored["learned_kind_probability"].is_between(1 / 3, 1.0).all()


def test_softmax_fit_separates_classes_and_agrees_with_the_binary_case():
    values = pl.DataFrame({"example": ["a", "b", "c"], "feature": ["x", "y", "z"], "value": [1.0, 1.0, 1.0]})
    examples = pl.DataFrame({"example": ["a", "b", "c"], "label": ["one", "two", "three"]})
    weights, intercepts = fit_softmax_regression(values, examples, c=10.0, what="test model")
    best = weights.sort("weight", descending=True).group_by("feature", maintain_order=True).first()
    assert dict(best.select("feature", "class").iter_rows()) == {"x": "one", "y": "two", "z": "three"}
    assert set(intercepts) == {"one", "two", "three"}
    with pytest.raises(ValueError, match="two classes"):
        fit_softmax_regression(values, examples.with_columns(label=pl.lit("one")), c=1.0, what="test model")


def test_the_model_decides_where_it_is_sure_and_the_rules_elsewhere():
    papers, labels = invented()
    model = fit_kind_model(papers, labels, min_papers=1)
    unsure = model._replace(threshold=1.01)
    sure = model._replace(threshold=0.0)
    # The rules name a clipping cue; the model knows no word of it and says something else.
    clipped = paper("We clip the ratio asymmetrically, with a higher upper bound than the lower one.")
    by_rules = decided_loss_change_kinds(clipped, unsure).row(0, named=True)
    assert by_rules["loss_change_kind"] == by_rules["rules_loss_change_kind"] == "clip"
    assert not any(reason.endswith("/learned") for reason in by_rules["loss_change_reasons"])
    by_model = decided_loss_change_kinds(clipped, sure).row(0, named=True)
    assert by_model["rules_loss_change_kind"] == "clip" and by_model["loss_change_kind"] != "clip"
    assert by_model["loss_change_cue"].startswith("learned ") and f"{by_model['loss_change_kind']}/learned" in by_model["loss_change_reasons"]
    # The rules' own columns are the rules' whatever the model says.
    assert loss_change_kinds(clipped).row(0, named=True)["loss_change_kind"] == "clip"


def test_training_needs_two_kinds():
    papers, labels = invented()
    with pytest.raises(ValueError, match="two kinds"):
        fit_kind_model(papers, labels.with_columns(loss_change_kind=pl.lit("reward")))


def test_a_model_survives_writing_and_reading(tmp_path):
    papers, labels = invented()
    model = fit_kind_model(papers, labels, min_papers=1, meta={"trained_on": {"invented": 9}})
    write_kind_model(model, tmp_path / "features.csv", tmp_path / "model.json")
    again = read_kind_model(tmp_path / "features.csv", tmp_path / "model.json")
    assert same_fit(model, again, tolerance=1e-5)
    assert again.intercept.keys() == {"sampling", "reward", "new_objective"} and again.threshold == model.threshold
    assert again.meta["trained_on"] == {"invented": 9}
    with pytest.raises(FileNotFoundError, match="train_kind_model"):
        read_kind_model(tmp_path / "missing.csv", tmp_path / "model.json")


def test_the_committed_model_was_trained_on_both_labelled_sets():
    model = committed_kind_model()
    assert model.threshold == 0.5 and model.features["feature"].n_unique() > 1000
    assert "screening_labels" in model.meta["trained_on"] and "h1_2025" in model.meta["trained_on"]
    assert set(model.intercept) <= {"coefficient", "clip", "mask", "weight", "new_objective", "advantage", "sampling", "reward", "other"}


@pytest.mark.snapshots
def test_the_committed_model_is_the_one_the_labels_give():
    assert train_kind_model.main(["--check", "--snapshot", str(shared_snapshots())]) == 0
