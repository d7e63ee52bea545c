"""Recall of the inclusions, estimated independently of the rules that make them.

    .venv/bin/python bench/link_recall.py [--snapshot ../shared/snapshots] [--list]

1. A plain search, with none of the classification rules: every commit message, changed
   file path, added text and added identifier token of every recorded framework history
   is searched, case-insensitively and on whole words, for every paper's arXiv id, its
   normalized title and every alias of `paper_aliases` as the pipeline makes them (with
   their snake-case and compact spellings, ambiguous ones included). Each (paper,
   framework) with a hit is a *candidate*.
2. The candidates the rules do not include are the *rejected* ones. Those not labelled
   yet are sampled with bench/draw_link_sample.py (`--pool recall`, seeded, per
   stratum: `id_or_title` when the id or the title is found, `alias` when only a name
   is) and labelled by reading the commits, as batch `recall_1` … of
   bench/labels/inclusion_sample.csv.
3. recall = included pairs the rules found / all included pairs, where the included
   pairs the rules did not find are the labelled misses among the rejected candidates
   (every batch) plus, per stratum, the unlabelled rejected candidates times the share
   of misses among the sampled ones of the stratum (the `recall_*` batches; each pair
   weighs its stratum's inverse sampling rate).

After a rule change that fixed the sample's misses this ratio is optimistic: the
first reading of each `recall_*` batch (bench/readings/first_readings.csv) is the honest
one. Included pairs whose commits never write the paper's id, title or any alias are
outside what any name search can estimate.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assets.links.paper_terms import pattern_list  # noqa: E402
from bench.first_readings import record_first_reading  # noqa: E402
from bench.link_quality import DEFAULT_SNAPSHOT, load_snapshots, read_sample, rules_output  # noqa: E402

#: The batches drawn from the rejected candidates (the sample that estimates the misses).
RECALL_BATCH_PREFIX = "recall_"
STRATA = ("id_or_title", "alias")

_VERSIONED_ID = r"(\d{4}\.\d{4,5})[vV]\d+"
_NOT_WORD = r"[^a-z0-9+]+"
_NAME_SEPARATORS = r"[\s\-_.]+"


def _words(text: pl.Expr) -> pl.Expr:
    """Lower-case words separated by single spaces, padded: whole-word search by substring."""
    words = text.fill_null("").str.to_lowercase().str.replace_all(_VERSIONED_ID, "${1}").str.replace_all(_NOT_WORD, " ")
    return pl.concat_str(pl.lit(" "), words, pl.lit(" "))


def search_terms(papers: pl.DataFrame, aliases: pl.DataFrame) -> pl.DataFrame:
    """(term, arxiv_id, kind) of every spelling searched: the id, the title and each alias
    as spaced words and as one compact word (`dr grpo`, `drgrpo`; `dr_grpo` is the
    spaced form once separators are spaces). No length or ambiguity filter: the rules
    decide those, the search does not."""
    ids = papers.select(term=_words(pl.col("arxiv_id")), arxiv_id="arxiv_id", kind=pl.lit("arxiv_id"))
    titles = papers.select(term=_words(pl.col("title")), arxiv_id="arxiv_id", kind=pl.lit("title"))
    spaced = aliases.select(term=_words(pl.col("alias")), arxiv_id="arxiv_id", kind=pl.lit("alias"))
    compact = aliases.select(
        term=pl.concat_str(
            pl.lit(" "), pl.col("alias").str.to_lowercase().str.replace_all(_NAME_SEPARATORS, ""), pl.lit(" ")
        ),
        arxiv_id="arxiv_id",
        kind=pl.lit("alias"),
    )
    return pl.concat([ids, titles, spaced, compact]).filter(pl.col("term").str.strip_chars() != "").unique()


def candidate_hits(commits: pl.DataFrame, files: pl.DataFrame, papers: pl.DataFrame, aliases: pl.DataFrame) -> pl.DataFrame:
    """One row per (framework, sha, arxiv_id, kind, where): a commit whose message, a
    changed path, added text or added token writes the paper's id, title or an alias."""
    terms = search_terms(papers, aliases)
    searchable = pattern_list(terms["term"])
    places = pl.concat(
        [
            commits.select("framework", "sha", where=pl.lit("message"), text=pl.col("message")),
            files.select("framework", "sha", where=pl.lit("path"), text=pl.col("path")),
            files.select("framework", "sha", where=pl.lit("added_text"), text=pl.col("added_text")),
            # Identifier tokens joined into words: `dr_grpo`, `DrGRPO` and `drgrpo` all meet a term.
            files.select(
                "framework",
                "sha",
                where=pl.lit("added_tokens"),
                text=pl.col("added_tokens").list.eval(pl.element().str.replace_all(_NAME_SEPARATORS, "")).list.join(" "),
            ),
        ]
    )
    found = (
        places.select(
            "framework", "sha", "where", term=_words(pl.col("text")).str.extract_many(searchable, overlapping=True)
        )
        .explode("term")
        .drop_nulls("term")
        .unique()
    )
    return found.join(terms, on="term").select("framework", "sha", "arxiv_id", "kind", "where", "term").unique()


def candidate_pairs(hits: pl.DataFrame, commits: pl.DataFrame) -> pl.DataFrame:
    """One row per (arxiv_id, framework) the search finds: its `stratum`, the number of
    commits and the first one."""
    return (
        hits.join(commits.select("framework", "sha", "committed_at"), on=["framework", "sha"])
        .group_by("arxiv_id", "framework")
        .agg(
            stratum=pl.when(pl.col("kind").is_in(["arxiv_id", "title"]).any())
            .then(pl.lit(STRATA[0]))
            .otherwise(pl.lit(STRATA[1])),
            commits=pl.col("sha").n_unique(),
            first_commit=pl.col("sha").sort_by("committed_at").first(),
            first_at=pl.col("committed_at").min(),
            terms=pl.col("term").str.strip_chars().unique().sort().str.join(" | "),
        )
        .sort("arxiv_id", "framework")
    )


def rejected_candidates(candidates: pl.DataFrame, inclusions: pl.DataFrame) -> pl.DataFrame:
    """The candidates the rules do not include."""
    return candidates.join(inclusions.select("arxiv_id", "framework"), on=["arxiv_id", "framework"], how="anti")


def recall_estimate(
    candidates: pl.DataFrame, inclusions: pl.DataFrame, sample: pl.DataFrame
) -> dict[str, float]:
    """Recall of `inclusions` over every included pair the search finds (module docstring):
    found / (found + labelled misses + estimated unlabelled misses per stratum)."""
    labels = sample.select("arxiv_id", "framework", "included", "batch")
    found = inclusions.join(labels.filter("included"), on=["arxiv_id", "framework"], how="semi").height
    rejected = rejected_candidates(candidates, inclusions).join(labels, on=["arxiv_id", "framework"], how="left")
    labelled_misses = rejected.filter(pl.col("included").fill_null(False)).height
    unlabelled = rejected.filter(pl.col("included").is_null())
    # Per stratum: unlabelled rejected pairs x the share of misses among the sampled ones.
    share_of_misses = (
        rejected.filter(pl.col("batch").str.starts_with(RECALL_BATCH_PREFIX))
        .group_by("stratum")
        .agg(share=pl.col("included").cast(pl.Float64).mean())
    )
    estimated = float(
        unlabelled.group_by("stratum").len().join(share_of_misses, on="stratum").select(pl.col("len") * pl.col("share")).sum().item()
        or 0.0
    )
    missed = labelled_misses + estimated
    return {
        "found": found,
        "labelled_misses": labelled_misses,
        "estimated_unlabelled_misses": estimated,
        "rejected": rejected.height,
        "rejected_unlabelled": unlabelled.height,
        "recall": found / (found + missed) if found + missed else float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshot", type=Path, default=DEFAULT_SNAPSHOT)
    parser.add_argument("--list", action="store_true", help="print every rejected candidate")
    args = parser.parse_args()

    data = load_snapshots(args.snapshot)
    aliases, _evidence, inclusions = rules_output(data)
    candidates = candidate_pairs(candidate_hits(data["commits"], data["files"], data["papers"], aliases), data["commits"])
    sample = read_sample()
    labelled_included = sample.filter("included").select("arxiv_id", "framework")
    unseen = labelled_included.join(candidates, on=["arxiv_id", "framework"], how="anti")
    print(
        f"candidates: {candidates.height} (paper, framework) pairs, "
        f"{candidates.group_by('stratum').len().sort('stratum').rows()}; rules include {inclusions.height}; "
        f"labelled inclusions the search does not find: {unseen.rows()}"
    )
    rejected = rejected_candidates(candidates, inclusions).join(
        sample.select("arxiv_id", "framework", "included", "batch"), on=["arxiv_id", "framework"], how="left"
    )
    print(rejected.group_by("stratum", "batch", "included").len().sort("stratum", "batch", "included"))
    if args.list:
        with pl.Config(tbl_rows=-1, fmt_str_lengths=80, tbl_width_chars=220):
            print(rejected.sort("stratum", "arxiv_id", "framework"))
    figures = recall_estimate(candidates, inclusions, sample)
    print(
        f"\nrules alone: found {figures['found']} included pairs; misses: {figures['labelled_misses']} labelled + "
        f"{figures['estimated_unlabelled_misses']:.1f} estimated among {figures['rejected_unlabelled']} unlabelled "
        f"rejected candidates (of {figures['rejected']} rejected)\n  recall {figures['recall']:.3f}"
    )
    recall_batches = sorted(b for b in sample["batch"].unique().to_list() if b.startswith(RECALL_BATCH_PREFIX))
    for batch in recall_batches:
        size = sample.filter(pl.col("batch") == batch).height
        print(record_first_reading("link_recall", batch, size, {"recall": figures["recall"]}))


if __name__ == "__main__":
    main()
