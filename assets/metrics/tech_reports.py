"""metrics.tech_report_coverage: do the technical reports of large models state the
methods the frameworks widely included?

A method is *widely included* when at least K configured frameworks included it by the
as-of date (K from orchestration/config/tech_reports.toml, default 3). A report *names*
a method when a sentence of its text carries the method's arXiv id, its title or one of
its unambiguous aliases (core.paper_aliases with `ambiguous` false, or the names the
configuration gives a method), matched as the evidence stage matches prose (an
all-capital acronym only in its own case). It states *parts* of a method when, without
naming it, it writes one of the method's configured parts ("clip-higher", "dynamic
sampling" for DAPO). In snapshot mode the text is the recorded excerpts: `no` there means
"not stated in the excerpts".

One row per configured report x widely included method:

| column | meaning |
|---|---|
| `report_id` | the report's arXiv id |
| `model` | the model it describes |
| `arxiv_id` | the method's paper |
| `method` | the method's name (configured name, else its first alias, else its title) |
| `stated` | `named`, `parts` (some configured parts, not the name), `no`, or `no_text` (no text of the report is known) |
| `evidence` | the first sentence naming the method; for `parts`, `part: sentence` per part stated, joined by ` | ` |
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import polars as pl

from assets.papers.aliases import SOURCES as ALIAS_SOURCES
from assets.papers.aliases import normalized_name
from assets.links.evidence import normalized_prose, prose_matches, prose_patterns
from assets.metrics.cohort_inclusion import inclusions_as_of
from orchestration.tables import METRICS_TECH_REPORT_COVERAGE

TECH_REPORT_COVERAGE_SCHEMA = METRICS_TECH_REPORT_COVERAGE.schema
STATED = ("named", "parts", "no", "no_text")

#: A sentence ends at . ! ? before a capital, a bullet or a bracket; a bullet starts one.
_SENTENCE_END = r"([.!?])\s+([A-Z•(\[])"


def widely_included_methods(
    inclusions: pl.DataFrame, as_of: datetime, frameworks: Sequence[str], k: int = 3
) -> pl.DataFrame:
    """`arxiv_id`, `frameworks`: the papers included in at least `k` frameworks by the as-of date."""
    return (
        inclusions_as_of(inclusions, as_of, frameworks)
        .group_by("arxiv_id")
        .agg(frameworks=pl.col("framework").n_unique())
        .filter(pl.col("frameworks") >= k)
        .sort(pl.col("frameworks"), pl.col("arxiv_id"), descending=[True, False])
    )


def report_sentences(texts: pl.DataFrame) -> pl.DataFrame:
    """`place_id` (in text order), `report_id`, `text`: one row per sentence of the reports' passages."""
    return (
        texts.select(
            "report_id",
            text=pl.col("text")
            .str.replace_all(r"\s+", " ")
            .str.replace_all(r"\s*•\s*", "\n• ")
            .str.replace_all(_SENTENCE_END, "$1\n$2")
            .str.split("\n"),
        )
        .explode("text")
        .with_columns(pl.col("text").str.strip_chars())
        .filter(pl.col("text") != "")
        .with_row_index("place_id")
        .with_columns(pl.col("place_id").cast(pl.Int64))
    )


def method_names(methods: pl.DataFrame, papers: pl.DataFrame, aliases: pl.DataFrame, naming: pl.DataFrame) -> pl.DataFrame:
    """`arxiv_id`, `method`: the configured name, else the first alias (by alias source, then
    length), else the title."""
    ranked = aliases.filter(~pl.col("ambiguous").fill_null(True)).with_columns(
        _rank=pl.col("source").replace_strict({s: i for i, s in enumerate(ALIAS_SOURCES)}, default=len(ALIAS_SOURCES)),
        _length=pl.col("alias").str.len_chars(),
    )
    first_alias = ranked.sort("_rank", "_length", "alias").group_by("arxiv_id", maintain_order=True).agg(
        _alias=pl.col("alias").first()
    )
    return (
        methods.select("arxiv_id")
        .join(naming.select("arxiv_id", _name="name"), on="arxiv_id", how="left")
        .join(first_alias, on="arxiv_id", how="left")
        .join(papers.select("arxiv_id", "title"), on="arxiv_id", how="left")
        .select("arxiv_id", method=pl.coalesce("_name", "_alias", "title", "arxiv_id"))
    )


def _name_patterns(methods: pl.DataFrame, papers: pl.DataFrame, aliases: pl.DataFrame, naming: pl.DataFrame) -> pl.DataFrame:
    """The prose patterns (assets.links.evidence.prose_patterns) naming the methods: ids, titles,
    and the aliases, the configured ones replacing a method's own."""
    configured = naming.explode("aliases").select(
        "arxiv_id",
        alias=pl.col("aliases"),
        normalized=normalized_name(pl.col("aliases")),
        source=pl.lit("override"),
        ambiguous=pl.lit(False),
        case_sensitive=~pl.col("aliases").str.contains(r"[a-z]"),
    )
    own = aliases.join(methods, on="arxiv_id", how="semi").join(naming, on="arxiv_id", how="anti")
    method_papers = papers.join(methods, on="arxiv_id", how="semi").select("arxiv_id", "title")
    return prose_patterns(method_papers, pl.concat([own.select(configured.columns), configured], how="vertical_relaxed"))


def _part_patterns(parts: pl.DataFrame) -> pl.DataFrame:
    return parts.select(
        "arxiv_id",
        "part",
        pattern=normalized_prose(pl.col("phrase")).str.to_lowercase(),
        matched_by=pl.lit("part"),
        exact=pl.lit(None, pl.Utf8),
    )


def tech_report_coverage(
    reports: pl.DataFrame,
    texts: pl.DataFrame,
    papers: pl.DataFrame,
    aliases: pl.DataFrame,
    inclusions: pl.DataFrame,
    naming: pl.DataFrame,
    parts: pl.DataFrame,
    as_of: datetime,
    frameworks: Sequence[str],
    k: int = 3,
) -> pl.DataFrame:
    """metrics.tech_report_coverage (TECH_REPORT_COVERAGE_SCHEMA; see the module docstring).

    `reports`: report_id, model (configuration order is kept); `texts`: report_id,
    section, text (orchestration.clients.reports.REPORT_TEXT_SCHEMA); `naming`:
    arxiv_id, name, aliases; `parts`: arxiv_id, part, phrase (TechReportConfig frames)."""
    methods = widely_included_methods(inclusions, as_of, frameworks, k)
    sentences = report_sentences(texts)
    named = (
        prose_matches(sentences, _name_patterns(methods, papers, aliases, naming))
        .join(sentences, on="place_id")
        .sort("place_id")
        .group_by("report_id", "arxiv_id", maintain_order=True)
        .agg(_named=pl.col("text").first())
    )
    part_patterns = _part_patterns(parts.join(methods, on="arxiv_id", how="semi"))
    stated_parts = (
        prose_matches(sentences, part_patterns.drop("part"))
        .with_columns(pattern=pl.concat_str(pl.lit(" "), pl.col("matched_text").str.to_lowercase(), pl.lit(" ")))
        .join(part_patterns.select("arxiv_id", "pattern", "part"), on=["arxiv_id", "pattern"])
        .join(sentences, on="place_id")
        .sort("place_id")
        .group_by("report_id", "arxiv_id", "part", maintain_order=True)
        .agg(sentence=pl.col("text").first(), _first=pl.col("place_id").min())
        .sort("_first")
        .group_by("report_id", "arxiv_id", maintain_order=True)
        .agg(_parts=pl.concat_str(pl.col("part"), pl.lit(": "), pl.col("sentence")).str.join(" | "))
    )
    with_text = texts.select("report_id").unique().with_columns(_has_text=pl.lit(True))
    return (
        reports.select("report_id", "model")
        .with_row_index("_order")
        .join(methods.with_row_index("_method_order"), how="cross")
        .join(method_names(methods, papers, aliases, naming), on="arxiv_id", how="left")
        .join(with_text, on="report_id", how="left")
        .join(named, on=["report_id", "arxiv_id"], how="left")
        .join(stated_parts, on=["report_id", "arxiv_id"], how="left")
        .with_columns(
            stated=pl.when(pl.col("_has_text").is_null())
            .then(pl.lit("no_text"))
            .when(pl.col("_named").is_not_null())
            .then(pl.lit("named"))
            .when(pl.col("_parts").is_not_null())
            .then(pl.lit("parts"))
            .otherwise(pl.lit("no")),
            evidence=pl.coalesce("_named", "_parts"),
        )
        .sort("_order", "_method_order")
        .select(list(TECH_REPORT_COVERAGE_SCHEMA))
        .cast(TECH_REPORT_COVERAGE_SCHEMA)
    )
