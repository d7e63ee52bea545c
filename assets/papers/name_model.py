"""The learned part of the method names: a logistic regression that says how likely a
span of a paper's title or abstract is a name the paper introduces for its method or one
of its parts, from the span's shape, its words, its context and the name rules
(aliases.py) that found it. The rules' names stand; the model adds the candidates it
finds likely.

Each name rule was measured on labelled papers before it landed, yet read on batches
nobody had tuned them to the rules found 0.66 to 0.82 of the labelled names, and every
further pattern measured found about as many wrong names as right ones. Weights learned
from every labelled name over the span's shape and context, with the rules as features,
find names the rules miss (bench/train_name_model.py prints the recall and precision of
the rules with and without the model's names, each batch scored by a model trained on
the others).

Candidates: every run of one to MAX_WORDS words inside one clause of the title or the
abstract (no punctuation or sentence end inside) that neither starts nor ends with a
small word, a single word only where it is capitalised or has capitals inside, digits,
a Greek letter or "++"; and every name the rules found.

Features of a candidate, each 1, the union over its occurrences in the paper:
- the rules that found it (`rule=<source>`);
- its words: how many, the shape of a single word (`shape=Aa-A`) or the capitalisation of
  several (`caps=TTl`), its length, its first and last word, each word of a longer span;
- its context: the word before, two before and after; in the title, or opening it; in
  parentheses; before a parenthesised acronym it spells (`long_form_of_next`), or that
  acronym; after a proposing verb; whether its neighbours are capitalised (`bound=`, so a
  whole capitalised run outweighs its parts); a sentence in which the authors propose, or
  one that cites;
- how common it is: how often the paper uses it (`count=`), an established name of the
  field.

Scoring is a join of the candidates' features with the weights, in polars, a chunk of
papers at a time; training (`fit_name_model`) uses the shared logistic regression.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import polars as pl

from assets.papers.aliases import ESTABLISHED_NORMALIZED, abbreviates, artifact_names, long_enough, normalized_name, without_latex
from assets.papers.logistic import fit_logistic_regression, probability, read_fitted, write_fitted

MODEL_DIR = Path(__file__).resolve().parent / "models"
#: One row per feature: `feature`, `weight`.
MODEL_FEATURES = MODEL_DIR / "name_features.csv"
#: `intercept`, `threshold` and how the model was trained.
MODEL_META = MODEL_DIR / "name_model.json"

MAX_WORDS = 6
#: L2 regularisation: the inverse strength.
DEFAULT_C = 1.0
#: A feature must occur in this many training papers.
MIN_PAPERS = 3
#: The probability from which a candidate the rules did not find is a name: cross-validated,
#: 0.3 to 0.7 trade about one point of recall for one of precision; at 0.4 the names are
#: about two points less precise than the rules' alone, and three points more complete.
DEFAULT_THRESHOLD = 0.4
#: Papers scored at a time: the candidates of one paper run to a few thousand rows.
CHUNK_PAPERS = 400

FEATURE_SCHEMA = {"feature": pl.Utf8, "weight": pl.Float64}
CANDIDATE_SCHEMA = {"arxiv_id": pl.Utf8, "normalized": pl.Utf8, "name": pl.Utf8, "feature": pl.Utf8}

#: A token: a run without spaces or clause punctuation, or that punctuation alone.
_TOKEN = r"[^\s(),;:\"“”\[\]]+|[(),;:\"“”\[\]]|¶"
_PUNCTUATION = r"^[(),;:\"“”\[\]¶]$"
#: Where title and abstract meet: a boundary no span crosses.
_TITLE_END = "¶"
_ABBREVIATION = r"^(?:e\.g|i\.e|vs|al|cf|Dr|etc)\.$"
#: A single word is a candidate only with this shape (a lower-case word is never a name).
_ONE_WORD_NAME = r"^[A-Z]|[A-Za-z]\d|\d[A-Za-z]|\+\+|[α-ω]|[a-z][A-Z]"
#: Words a name neither starts nor ends with.
_SMALL_WORDS = sorted(
    {
        "the", "a", "an", "of", "and", "or", "to", "for", "with", "in", "on", "by", "from", "as", "at", "via",
        "we", "our", "this", "that", "these", "those", "is", "are", "was", "were", "be", "it", "its", "their",
        "which", "while", "can", "not", "than", "into", "over", "such", "both", "also", "each", "more", "most",
        "under", "through", "between", "without", "has", "have", "how", "what", "when", "where", "why", "then",
        "thus", "however", "based", "using", "use", "used", "new", "novel", "first", "two", "three", "one", "all",
    }
)  # fmt: skip
_PROPOSING_WORDS = sorted(
    {
        "propose", "proposes", "introduce", "introduces", "present", "presents", "develop", "develops", "design",
        "called", "named", "dubbed", "termed", "coined", "namely",
    }
)  # fmt: skip
_AUTHORS = ["we", "our", "this"]


class NameModel(NamedTuple):
    """Feature weights, the intercept, the probability from which a candidate is a name,
    and how the model was trained."""

    features: pl.DataFrame
    intercept: float
    threshold: float
    meta: dict


def _tokens(papers: pl.DataFrame) -> pl.DataFrame:
    """One row per token of the title, then the abstract: `arxiv_id`, `position`, `token`,
    `core` (without sentence-end punctuation or a possessive 's), `lower`, `in_title`,
    `punctuation`, `block` (no span crosses blocks), and the flags of its sentence:
    `proposing` (a proposing word said by the authors), `citing` (et al.)."""
    text = pl.concat_str(
        [without_latex(pl.col("title").fill_null("")), pl.lit(f" {_TITLE_END} "), without_latex(pl.col("abstract").fill_null(""))]
    )
    frame = (
        papers.select("arxiv_id", token=text.str.extract_all(_TOKEN))
        .explode("token")
        .drop_nulls("token")
        .with_columns(position=pl.int_range(pl.len()).over("arxiv_id"))
        .with_columns(
            in_title=(pl.col("token") == _TITLE_END).cum_sum().over("arxiv_id") == 0,
            punctuation=pl.col("token").str.contains(_PUNCTUATION),
            ends_sentence=pl.col("token").str.contains(r"[.!?]$") & ~pl.col("token").str.contains(_ABBREVIATION),
            core=pl.col("token").str.strip_chars_end(".!?'’").str.replace(r"['’]s$", ""),
        )
        .with_columns(lower=pl.col("core").str.to_lowercase())
    )

    def after(column: str) -> pl.Expr:
        """The flag of the token before (true at the start)."""
        return pl.col(column).shift(1, fill_value=True).over("arxiv_id")

    frame = frame.with_columns(
        block=(pl.col("punctuation") | after("punctuation") | after("ends_sentence")).cum_sum().over("arxiv_id"),
        sentence=(after("ends_sentence") | (pl.col("token") == _TITLE_END)).cum_sum().over("arxiv_id"),
    )
    sentences = frame.group_by("arxiv_id", "sentence").agg(
        proposing=pl.col("lower").is_in(_PROPOSING_WORDS).any() & pl.col("lower").is_in(_AUTHORS).any(),
        citing=pl.col("lower").is_in(["et", "al"]).any(),
    )
    return frame.join(sentences, on=["arxiv_id", "sentence"])


def _spans(tokens: pl.DataFrame) -> pl.DataFrame:
    """Every candidate run of 1..MAX_WORDS words of one block (`span`, its `normalized`
    form), with its neighbours."""

    def shifted(column: str, by: int) -> pl.Expr:
        return pl.col(column).shift(by).over("arxiv_id")

    runs = []
    for words in range(1, MAX_WORDS + 1):
        runs.append(
            tokens.with_columns(
                span=pl.concat_str([shifted("core", -k) for k in range(words)], separator=" "),
                last=shifted("lower", -(words - 1)),
                whole=(shifted("block", -(words - 1)) == pl.col("block")) & ~pl.col("punctuation"),
                previous=shifted("lower", 1),
                previous2=shifted("lower", 2),
                following=shifted("lower", -words),
                following2=shifted("core", -words - 1),
                following3=shifted("token", -words - 2),
                capital_before=shifted("core", 1).str.contains(r"^[A-Z]") & (shifted("block", 1) == pl.col("block")),
                capital_after=shifted("core", -words).str.contains(r"^[A-Z]") & (shifted("block", -words) == pl.col("block")),
                opens_sentence=shifted("sentence", 1) != pl.col("sentence"),
                words=pl.lit(words),
            )
            .filter(pl.col("whole"))
            .drop_nulls("span")
        )
    return (
        pl.concat(runs)
        .with_columns(normalized=normalized_name(pl.col("span")))
        .rename({"lower": "first", "position": "start"})
        .filter(~pl.col("first").is_in(_SMALL_WORDS) & ~pl.col("last").is_in(_SMALL_WORDS))
        .filter((pl.col("words") > 1) | pl.col("span").str.contains(_ONE_WORD_NAME))
        .filter(pl.col("span").str.len_chars() >= 2)
    )


def _shape(word: pl.Expr) -> pl.Expr:
    """"GRPO-λ" is "A-g", "DeepSeek" "AaAa", "wd1++" "a9++"."""
    return (
        word.str.replace_all(r"[A-Z]+", "A")
        .str.replace_all(r"[a-z]+", "a")
        .str.replace_all(r"\d+", "9")
        .str.replace_all(r"[α-ω]+", "g")
    )


def _capitalisation(span: pl.Expr) -> pl.Expr:
    """One letter per word: T (Title), N (name-like: capitals inside or a digit), l (lower), o (other)."""
    return (
        span.str.split(" ")
        .list.eval(
            pl.when(pl.element().str.contains(r"^[A-Z][a-z]"))
            .then(pl.lit("T"))
            .when(pl.element().str.contains(r"^[A-Z0-9α-ω]+$|[A-Z].*[A-Z]|\d"))
            .then(pl.lit("N"))
            .when(pl.element().str.contains(r"^[a-z]"))
            .then(pl.lit("l"))
            .otherwise(pl.lit("o"))
        )
        .list.join("")
    )


def _flag(condition: pl.Expr, feature: str) -> pl.Expr:
    return pl.when(condition).then(pl.lit(feature))


def _either(column: str, yes: str, no: str) -> pl.Expr:
    return pl.when(pl.col(column)).then(pl.lit(yes)).otherwise(pl.lit(no))


def _occurrence_features(spans: pl.DataFrame) -> pl.DataFrame:
    """`arxiv_id`, `normalized`, `name`, `feature`: the features of each occurrence."""
    one_word = pl.col("words") == 1
    where = (
        pl.when(pl.col("in_title"))
        .then(pl.lit("title"))
        .when(pl.col("opens_sentence").fill_null(True))
        .then(pl.lit("start"))
        .otherwise(pl.lit("body"))
    )
    form = pl.when(one_word).then(_shape(pl.col("span"))).otherwise(_capitalisation(pl.col("span")))
    acronym_after = (pl.col("following") == "(") & (pl.col("following3") == ")") & pl.col("following2").str.contains(r"[A-Z]")
    spells_acronym = abbreviates(pl.col("following2"), pl.col("span"), word_for_each_capital=False)
    features = spans.with_columns(
        f_words=pl.format("n={}", pl.col("words")),
        f_form=pl.when(one_word).then(pl.format("shape={}", form)).otherwise(pl.format("caps={}", form)),
        f_form_where=pl.format("{}|{}{}", form, where, pl.when(pl.col("proposing")).then(pl.lit("|proposing")).otherwise(pl.lit(""))),
        f_first=pl.format("first={}", pl.col("first")),
        f_last=pl.format("last={}", pl.col("last")),
        f_previous=pl.format("prev={}", pl.col("previous").fill_null("^")),
        f_previous2=pl.format("prev2={}", pl.col("previous2").fill_null("^")),
        f_following=pl.format("next={}", pl.col("following").fill_null("$")),
        f_title=_flag(pl.col("in_title"), "in_title"),
        f_title_start=pl.when(pl.col("in_title") & (pl.col("start") == 0)).then(
            pl.format("title_start_next={}", pl.col("following").fill_null("$"))
        ),
        f_parentheses=_flag((pl.col("previous") == "(") & (pl.col("following") == ")"), "in_parens"),
        f_before_acronym=pl.when(acronym_after).then(
            pl.when(spells_acronym).then(pl.lit("long_form_of_next")).otherwise(pl.lit("before_paren_name"))
        ),
        f_proposed=_flag(pl.col("previous").is_in(_PROPOSING_WORDS) | pl.col("previous2").is_in(_PROPOSING_WORDS), "after_proposing"),
        f_established=_flag(pl.col("normalized").is_in(ESTABLISHED_NORMALIZED), "established"),
        f_bounds=pl.format(
            "bound={}{}|{}", _either("capital_before", "C", "x"), _either("capital_after", "C", "x"), _either("in_title", "title", "body")
        ),
        f_proposing=_flag(pl.col("proposing") & ~pl.col("in_title"), "proposing_sentence"),
        f_citing=_flag(pl.col("citing"), "citing_sentence"),
        f_length=pl.format("len={}", pl.col("normalized").str.len_chars().clip(1, 12)),
        f_each_word=pl.when(~one_word).then(pl.col("span").str.to_lowercase().str.split(" ").list.eval(pl.format("w={}", pl.element()))),
    )
    # The acronym a long form spells is marked too.
    spelled = (
        features.filter(pl.col("f_before_acronym") == "long_form_of_next")
        .select("arxiv_id", normalized=normalized_name(pl.col("following2")), f_acronym=pl.lit("acronym_of_long_form"))
        .unique()
    )
    features = features.join(spelled, on=["arxiv_id", "normalized"], how="left")
    single = [column for column in features.columns if column.startswith("f_") and column != "f_each_word"]
    return (
        features.select(
            "arxiv_id",
            "normalized",
            name="span",
            feature=pl.concat_list([pl.concat_list(single), pl.col("f_each_word").fill_null([])]).list.drop_nulls(),
        )
        .explode("feature")
        .drop_nulls("feature")
    )


def candidate_features(papers: pl.DataFrame, rule_names: pl.DataFrame) -> pl.DataFrame:
    """`arxiv_id`, `normalized`, `name` (the first spelling met), `feature`: one row per
    feature of each candidate of `papers` (title, abstract); `rule_names` (`arxiv_id`,
    `alias`, `source`) are the rules' names of these papers."""
    spans = _spans(_tokens(papers))
    found = pl.concat(
        [
            _occurrence_features(spans),
            rule_names.select(
                "arxiv_id", normalized=normalized_name(pl.col("alias")), name="alias", feature=pl.format("rule={}", pl.col("source"))
            ),
        ]
    )
    counts = (
        spans.group_by("arxiv_id", "normalized")
        .agg(count=pl.len())
        .select("arxiv_id", "normalized", feature=pl.format("count={}", pl.col("count").clip(1, 4)))
    )
    names = found.group_by("arxiv_id", "normalized", maintain_order=True).agg(name=pl.col("name").first())
    return (
        pl.concat([found.select("arxiv_id", "normalized", "feature"), counts])
        .unique()
        .join(names, on=["arxiv_id", "normalized"])
        .select(list(CANDIDATE_SCHEMA))
    )


def name_probabilities(candidates: pl.DataFrame, model: NameModel) -> pl.DataFrame:
    """`arxiv_id`, `normalized`, `name`, `name_probability` of every candidate."""
    scored = (
        candidates.join(model.features, on="feature")
        .group_by("arxiv_id", "normalized")
        # Summed in feature order: the same float whatever order the rows arrive in.
        .agg(logit=pl.col("weight").sort_by("feature").sum())
    )
    return (
        candidates.select("arxiv_id", "normalized", "name")
        .unique(["arxiv_id", "normalized"], keep="first", maintain_order=True)
        .join(scored, on=["arxiv_id", "normalized"], how="left")
        .select(
            "arxiv_id",
            "normalized",
            "name",
            name_probability=probability(pl.col("logit"), model.intercept),
        )
    )


def learned_names(papers: pl.DataFrame, rule_names: pl.DataFrame, model: NameModel) -> pl.DataFrame:
    """`arxiv_id`, `alias`, `source`: the rules' names of `papers` (`rule_names`) and the
    candidates of their titles and abstracts the model finds likely, spelled as first met,
    with source `learned`. Established names, names shorter than three characters (two
    with a digit) and names the abstract sets apart as a model or data set
    (`artifact_names`) are left out, as the rules leave them out."""
    chosen = []
    for chunk in papers.select("arxiv_id", "title", "abstract").iter_slices(CHUNK_PAPERS):
        names = rule_names.join(chunk.select("arxiv_id"), on="arxiv_id", how="semi")
        probabilities = name_probabilities(candidate_features(chunk, names), model)
        chosen.append(probabilities.filter(pl.col("name_probability") >= model.threshold))
    taken = pl.concat(chosen) if chosen else pl.DataFrame(schema={"arxiv_id": pl.Utf8, "normalized": pl.Utf8, "name": pl.Utf8})
    by_rules = rule_names.with_columns(normalized=normalized_name(pl.col("alias")))
    learned = (
        taken.join(by_rules, on=["arxiv_id", "normalized"], how="anti")
        .filter(~pl.col("normalized").is_in(ESTABLISHED_NORMALIZED) & long_enough(pl.col("normalized")))
        .select("arxiv_id", alias="name", source=pl.lit("learned"))
    )
    learned = learned.join(artifact_names(learned, papers), on=["arxiv_id", "alias"], how="anti")
    return pl.concat([rule_names.select("arxiv_id", "alias", "source"), learned])


def fit_name_model(
    candidates: pl.DataFrame,
    labelled_names: pl.DataFrame,
    *,
    c: float = DEFAULT_C,
    min_papers: int = MIN_PAPERS,
    threshold: float = DEFAULT_THRESHOLD,
    meta: dict | None = None,
) -> NameModel:
    """The model that fits `labelled_names` (`arxiv_id`, `normalized`: the names each
    labelled paper introduces) on the `candidates` of those papers (candidate_features)."""
    # One training example per candidate of a paper.
    example = pl.concat_str("arxiv_id", pl.lit(" "), "normalized")
    values = candidates.select(list(CANDIDATE_SCHEMA))
    common = values.group_by("feature").agg(papers=pl.col("arxiv_id").n_unique()).filter(pl.col("papers") >= min_papers)
    values = values.join(common.select("feature"), on="feature", how="semi")
    examples = (
        candidates.select("arxiv_id", "normalized")
        .unique()
        .join(labelled_names.select("arxiv_id", "normalized", label=pl.lit(True)).unique(), on=["arxiv_id", "normalized"], how="left")
        .select(example=example, label=pl.col("label").fill_null(False))
    )
    if examples.height == 0 or examples["label"].n_unique() < 2:
        raise ValueError("training needs candidates that are labelled names and candidates that are not")
    weights, intercept = fit_logistic_regression(
        values.select(example=example, feature="feature", value=pl.lit(1.0)),
        examples,
        c=c,
        what="name model",
    )
    return NameModel(weights.cast(FEATURE_SCHEMA), intercept, threshold, {"c": c, "min_papers": min_papers, **(meta or {})})


def write_name_model(model: NameModel, features_path: Path = MODEL_FEATURES, meta_path: Path = MODEL_META) -> None:
    write_fitted(model.features, model.intercept, model.threshold, model.meta, features_path, meta_path)


def read_name_model(features_path: Path = MODEL_FEATURES, meta_path: Path = MODEL_META) -> NameModel:
    return NameModel(*read_fitted(features_path, meta_path, FEATURE_SCHEMA, what="name model", trainer="bench/train_name_model.py"))


@lru_cache(maxsize=1)
def committed_name_model() -> NameModel:
    """The model trained on the project's labelled names (assets/papers/models/)."""
    return read_name_model()
