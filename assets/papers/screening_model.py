"""The learned part of the screening: a logistic regression that says how likely a paper
proposes a general RL training method, from the words of its title and abstract and the
screening rules that fire on it.

The hand-set weights of the rules fit the papers they were written on and no better:
read on batches nobody had tuned them to, their F1 stayed near 0.80. The same rules as
features beside the abstract's words, with weights learned from every labelled paper,
score 0.88 on each labelled batch left out of the training (bench/train_screening_model.py
prints that cross-validated figure). The rules still say why (`screening_reasons`); the
model adds `screening_probability` and the words that weighed most (`screening_terms`).

Features, the same for training and scoring:
- each word of two or more letters or digits in the title (counted twice: it names the
  method) and the abstract, lower-cased: tf-idf with a sublinear count, the smoothed idf
  of the training papers, words in at least two training papers, each paper's vector
  scaled to unit length;
- each screening rule that fires (`rule:<code>`, `rule:-<code>` for a negative one): 1.

Scoring is a join of the paper's features with the model's weights, in polars. Training
(`fit_screening_model`) minimises the L2-regularised logistic loss with SciPy's L-BFGS.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import polars as pl

from assets.papers.logistic import fit_logistic_regression, probability, read_fitted, write_fitted

MODEL_DIR = Path(__file__).resolve().parent / "models"
#: One row per feature: `feature`, `idf` (null for a rule), `weight`.
MODEL_FEATURES = MODEL_DIR / "screening_features.csv"
#: `intercept`, `threshold` and how the model was trained (labelled sets, figures).
MODEL_META = MODEL_DIR / "screening_model.json"

_WORD = r"[a-z0-9]{2,}"
#: The title is counted this many times: it names the method.
TITLE_WEIGHT = 2
RULE_PREFIX = "rule:"
#: L2 regularisation: the inverse strength, as in most logistic-regression libraries.
DEFAULT_C = 3.0
#: A word must occur in this many training papers to be a feature.
MIN_PAPERS = 2
#: How many of the heaviest contributions `screening_terms` keeps.
TERMS_SHOWN = 6

MODEL_FEATURE_SCHEMA = {"feature": pl.Utf8, "idf": pl.Float64, "weight": pl.Float64}


class ScreeningModel(NamedTuple):
    """Feature weights (`feature`, `idf`, `weight`), the intercept, the probability from
    which a paper is a general method, and how the model was trained."""

    features: pl.DataFrame
    intercept: float
    threshold: float
    meta: dict


def word_counts(papers: pl.DataFrame) -> pl.DataFrame:
    """`arxiv_id`, `feature` (a word), `count`: the words of the title (counted
    TITLE_WEIGHT times) and the abstract."""
    text = pl.concat_str(
        [pl.col("title").fill_null("")] * TITLE_WEIGHT + [pl.col("abstract").fill_null("")], separator=" . "
    ).str.to_lowercase()
    return (
        papers.select("arxiv_id", feature=text.str.extract_all(_WORD))
        .explode("feature")
        .drop_nulls("feature")
        .group_by("arxiv_id", "feature")
        .agg(count=pl.len().cast(pl.Float64))
    )


def rule_features(reasons: pl.DataFrame) -> pl.DataFrame:
    """`arxiv_id`, `feature`: one row per rule that fired (`screening_reasons`)."""
    return (
        reasons.select("arxiv_id", feature=pl.col("screening_reasons"))
        .explode("feature")
        .drop_nulls("feature")
        .select("arxiv_id", feature=RULE_PREFIX + pl.col("feature"))
        .unique()
    )


def word_idf(words: pl.DataFrame, papers: int, min_papers: int) -> pl.DataFrame:
    """`feature`, `idf`: the smoothed idf of each word (`word_counts` of the `papers`
    training papers) that occurs in at least `min_papers` of them."""
    papers_per_word = words.group_by("feature").agg(papers=pl.len()).filter(pl.col("papers") >= min_papers)
    return papers_per_word.select("feature", idf=((1 + papers) / (1 + pl.col("papers"))).log() + 1)


def feature_values(words: pl.DataFrame, rules: pl.DataFrame, idf: pl.DataFrame) -> pl.DataFrame:
    """`arxiv_id`, `feature`, `value`: the tf-idf of each word that has an `idf` (scaled
    so each paper's words have unit length), and 1 for each rule that fired."""
    weighted = words.join(idf, on="feature").with_columns(value=(1 + pl.col("count").log()) * pl.col("idf"))
    length = (pl.col("value") ** 2).sum().over("arxiv_id").sqrt()
    return pl.concat(
        [
            weighted.select("arxiv_id", "feature", value=pl.col("value") / length),
            rules.select("arxiv_id", "feature", value=pl.lit(1.0)),
        ]
    )


def general_method_probabilities(papers: pl.DataFrame, reasons: pl.DataFrame, model: ScreeningModel) -> pl.DataFrame:
    """`arxiv_id`, `screening_probability` and `screening_terms` (the features that
    weighed most, `+word` for a general method, `-word` against) for every paper."""
    idf = model.features.filter(pl.col("idf").is_not_null()).select("feature", "idf")
    contributions = (
        feature_values(word_counts(papers), rule_features(reasons), idf)
        .join(model.features.select("feature", "weight"), on="feature")
        .with_columns(contribution=pl.col("value") * pl.col("weight"))
    )
    per_paper = contributions.group_by("arxiv_id").agg(
        logit=pl.col("contribution").sort_by("feature").sum(),
        screening_terms=pl.when(pl.col("contribution") > 0)
        .then("+" + pl.col("feature"))
        .otherwise("-" + pl.col("feature"))
        # Ties by name: the same terms in the same order however the rows arrive.
        .sort_by([pl.col("contribution").abs(), pl.col("feature")], descending=[True, False])
        .head(TERMS_SHOWN),
    )
    return (
        papers.select("arxiv_id")
        .join(per_paper, on="arxiv_id", how="left")
        .select(
            "arxiv_id",
            screening_probability=probability(pl.col("logit"), model.intercept),
            screening_terms=pl.col("screening_terms").fill_null([]),
        )
    )


def fit_screening_model(
    papers: pl.DataFrame,
    reasons: pl.DataFrame,
    labels: pl.DataFrame,
    *,
    c: float = DEFAULT_C,
    min_papers: int = MIN_PAPERS,
    meta: dict | None = None,
) -> ScreeningModel:
    """The model that fits `labels` (`arxiv_id`, `is_general_rl_method`) on the labelled
    `papers` (title, abstract) with their rules' `reasons` (`screening_reasons`)."""
    labelled = labels.select("arxiv_id", "is_general_rl_method").join(papers.select("arxiv_id"), on="arxiv_id", how="semi")
    if labelled.height == 0 or labelled["is_general_rl_method"].n_unique() < 2:
        raise ValueError("training needs labelled papers of both kinds (general methods and others)")
    words = word_counts(papers.join(labelled, on="arxiv_id", how="semi"))
    idf = word_idf(words, labelled.height, min_papers)
    values = feature_values(words, rule_features(reasons.join(labelled, on="arxiv_id", how="semi")), idf)
    weights, intercept = fit_logistic_regression(
        values.rename({"arxiv_id": "example"}),
        labelled.select(example="arxiv_id", label="is_general_rl_method"),
        c=c,
        what="screening model",
    )
    features = weights.join(idf, on="feature", how="left").select(list(MODEL_FEATURE_SCHEMA)).cast(MODEL_FEATURE_SCHEMA)
    return ScreeningModel(features, intercept, 0.5, {"c": c, "min_papers": min_papers, **(meta or {})})


def write_screening_model(model: ScreeningModel, features_path: Path = MODEL_FEATURES, meta_path: Path = MODEL_META) -> None:
    write_fitted(model.features, model.intercept, model.threshold, model.meta, features_path, meta_path)


def read_screening_model(features_path: Path = MODEL_FEATURES, meta_path: Path = MODEL_META) -> ScreeningModel:
    return ScreeningModel(
        *read_fitted(features_path, meta_path, MODEL_FEATURE_SCHEMA, what="screening model", trainer="bench/train_screening_model.py")
    )


@lru_cache(maxsize=1)
def committed_screening_model() -> ScreeningModel:
    """The model trained on the project's labelled papers (assets/papers/models/)."""
    return read_screening_model()
