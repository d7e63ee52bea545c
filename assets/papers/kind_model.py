"""The learned part of the loss-change kind: a multinomial logistic regression that says
which kind of change a general method makes (coefficient, clip, mask, weight,
new_objective, advantage, sampling, reward, other) from the words of its title and
abstract.

The kind rules (screening.py) count the cues of each kind in the title, the proposing
sentences and the rest of the abstract. They fit the papers they were written on, but read
on batches nobody had tuned them to they found the labelled kind for 0.33 to 0.69 of the
general methods: what a method changes is often said in words no cue list has. Where
this model is sure of a kind (probability at least its threshold) it decides; elsewhere
the rules' cues do, so a paper whose mechanism the rules name keeps its rule kind unless
the words say otherwise clearly. Each batch scored by a model trained on the others
(bench/train_kind_model.py), the two together find 0.71 of the labelled kinds where the
rules alone fit 0.65; the model alone finds 0.65. Trained on a quarter, a half, three
quarters and all of the other batches, the figure is 0.67, 0.69, 0.70 and 0.71 (measured
with fresh32): about two points for each doubling of the labels, so more labels of this
kind will not bring it near a second reader's. Nor do other features (cross-validated
the same way): the rules' kind and cues, the words of the paper's long-form names, word
bigrams, the proposing sentences' and the title's words as features of their own, or
all-MiniLM-L6-v2 sentence embeddings beside the words all stay within a point of it,
where a second reader finds 0.94: what is missing is reading which mechanism the method
changes, not more words.

Features: the tf-idf words of the screening model (screening_model.word_counts: the title
counted twice, each paper's vector of unit length, the idf of the training papers, words
in at least MIN_PAPERS of them). Scoring is a join of the paper's words with the weights
and a softmax over the kinds, in polars; training (`fit_kind_model`) is the shared
L-BFGS fit of logistic.py.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import polars as pl

from assets.papers.logistic import fit_softmax_regression, read_fitted, write_fitted
from assets.papers.screening_model import feature_values, word_counts, word_idf

MODEL_DIR = Path(__file__).resolve().parent / "models"
#: One row per feature and kind: `feature`, `idf`, `class` (the kind), `weight`.
MODEL_FEATURES = MODEL_DIR / "kind_features.csv"
#: The intercept of each kind, the threshold and how the model was trained.
MODEL_META = MODEL_DIR / "kind_model.json"

#: L2 regularisation: the inverse strength. Cross-validated by batch, 3 to 30 give the
#: same accuracy within a point; 10 is the middle.
DEFAULT_C = 10.0
MIN_PAPERS = 2
#: From this probability of its likeliest kind the model decides, below it the rules do:
#: cross-validated on the batches before fresh21, 0.4 to 0.6 are within 1.5 points, 0.5
#: is the best of them.
DEFAULT_THRESHOLD = 0.5
#: How many of the words that weighed most for the chosen kind the cue keeps.
TERMS_SHOWN = 4

MODEL_FEATURE_SCHEMA = {"feature": pl.Utf8, "idf": pl.Float64, "class": pl.Utf8, "weight": pl.Float64}
_NO_RULES = pl.DataFrame(schema={"arxiv_id": pl.Utf8, "feature": pl.Utf8})


class KindModel(NamedTuple):
    """Feature weights per kind (`feature`, `idf`, `class`, `weight`), each kind's
    intercept, the probability from which the model decides, and how it was trained."""

    features: pl.DataFrame
    intercept: dict[str, float]
    threshold: float
    meta: dict


def kind_probabilities(papers: pl.DataFrame, model: KindModel) -> pl.DataFrame:
    """`arxiv_id`, `learned_kind` (the likeliest kind), `learned_kind_probability` and
    `learned_kind_terms` (the words that weighed most for it) for every paper."""
    idf = model.features.select("feature", "idf").unique("feature")
    contributions = (
        feature_values(word_counts(papers), _NO_RULES, idf)
        .join(model.features.select("feature", "class", "weight"), on="feature")
        .with_columns(contribution=pl.col("value") * pl.col("weight"))
    )
    intercepts = pl.DataFrame({"class": list(model.intercept), "intercept": list(model.intercept.values())})
    logits = (
        papers.select("arxiv_id")
        .join(intercepts, how="cross")
        .join(
            # Summed in feature order: the same float whatever order the rows arrive in.
            contributions.group_by("arxiv_id", "class").agg(words=pl.col("contribution").sort_by("feature").sum()),
            on=["arxiv_id", "class"],
            how="left",
        )
        .with_columns(logit=pl.col("words").fill_null(0.0) + pl.col("intercept"))
        .with_columns(share=(pl.col("logit") - pl.col("logit").max().over("arxiv_id")).exp())
        .with_columns(probability=(pl.col("share") / pl.col("share").sum().over("arxiv_id")).round(6))
    )
    likeliest = logits.sort(["arxiv_id", "probability", "class"], descending=[False, True, False]).group_by("arxiv_id", maintain_order=True).first()
    terms = (
        contributions.join(likeliest.select("arxiv_id", "class"), on=["arxiv_id", "class"], how="semi")
        .filter(pl.col("contribution") > 0)
        .group_by("arxiv_id")
        .agg(learned_kind_terms=pl.col("feature").sort_by([pl.col("contribution"), pl.col("feature")], descending=[True, False]).head(TERMS_SHOWN))
    )
    return (
        papers.select("arxiv_id")
        .join(likeliest.select("arxiv_id", learned_kind="class", learned_kind_probability="probability"), on="arxiv_id", how="left")
        .join(terms, on="arxiv_id", how="left")
        .with_columns(pl.col("learned_kind_terms").fill_null([]))
    )


def fit_kind_model(
    papers: pl.DataFrame,
    labels: pl.DataFrame,
    *,
    c: float = DEFAULT_C,
    min_papers: int = MIN_PAPERS,
    threshold: float = DEFAULT_THRESHOLD,
    meta: dict | None = None,
) -> KindModel:
    """The model that fits `labels` (`arxiv_id`, `loss_change_kind` of labelled general
    methods) on their `papers` (title, abstract)."""
    labelled = labels.select("arxiv_id", "loss_change_kind").join(papers.select("arxiv_id"), on="arxiv_id", how="semi")
    if labelled["loss_change_kind"].n_unique() < 2:
        raise ValueError("training needs labelled general methods of at least two kinds")
    words = word_counts(papers.join(labelled, on="arxiv_id", how="semi"))
    idf = word_idf(words, labelled.height, min_papers)
    weights, intercepts = fit_softmax_regression(
        feature_values(words, _NO_RULES, idf).rename({"arxiv_id": "example"}),
        labelled.select(example="arxiv_id", label="loss_change_kind"),
        c=c,
        what="kind model",
    )
    features = weights.join(idf, on="feature").select(list(MODEL_FEATURE_SCHEMA)).cast(MODEL_FEATURE_SCHEMA)
    return KindModel(features, intercepts, threshold, {"c": c, "min_papers": min_papers, **(meta or {})})


def write_kind_model(model: KindModel, features_path: Path = MODEL_FEATURES, meta_path: Path = MODEL_META) -> None:
    write_fitted(model.features, model.intercept, model.threshold, model.meta, features_path, meta_path)


def read_kind_model(features_path: Path = MODEL_FEATURES, meta_path: Path = MODEL_META) -> KindModel:
    return KindModel(*read_fitted(features_path, meta_path, MODEL_FEATURE_SCHEMA, what="kind model", trainer="bench/train_kind_model.py"))


@lru_cache(maxsize=1)
def committed_kind_model() -> KindModel:
    """The model trained on the project's labelled general methods (assets/papers/models/)."""
    return read_kind_model()
