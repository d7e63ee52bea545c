"""Score the alias rules against the method names the labels say each paper introduces.

    .venv/bin/python bench/alias_eval.py [--set snapshot|unseen] [--snapshot DIR] [--quiet]

Reads the same labelled sets as bench/screening_eval.py (`method_names` of
bench/labels/screening_labels.csv, or of bench/labels/unseen/*.jsonl) and finds names
as the pipeline does without overrides: the rules of assets/papers/aliases.py and the
names the committed model of assets/papers/name_model.py adds. A labelled name is found
when its normalized form (lower case without spaces, hyphens, underscores or dots) is
among the normalized names found in that paper. Per batch and for the whole set it prints
the recall of labelled names (on all papers and on the general methods) and the
precision of the names found, the rules' alone beside them, then the names missed and
the names found that no label has. The first reading of each batch is kept in
bench/readings/first_readings.csv; a batch the name model was trained on has none (its
figures are a fit: bench/train_name_model.py prints the cross-validated ones).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from assets.papers.aliases import normalized_name, rule_aliases, without_latex  # noqa: E402
from assets.papers.name_model import committed_name_model, learned_names  # noqa: E402
from bench.first_readings import record_first_reading  # noqa: E402
from bench.screening_eval import DEFAULT_SNAPSHOT, SETS, labelled_batches, whole_set  # noqa: E402


def labelled_names(labels: pl.DataFrame) -> pl.DataFrame:
    """`arxiv_id`, `name`, `normalized`, `is_general_rl_method`: one row per labelled name."""
    return (
        labels.select("arxiv_id", "is_general_rl_method", name=pl.col("method_names").fill_null("").str.split(";"))
        .explode("name")
        .with_columns(name=pl.col("name").str.strip_chars())
        .filter(pl.col("name") != "")
        # A name printed with LaTeX ("R$^3$L", "GRPO-\\lambda", "$\\mathbf{T^3}$") is the plain
        # name the rules write (R3L, GRPO-λ, T3), read the way the rules read it.
        .with_columns(name=without_latex(pl.col("name")))
        # A plural acronym is its singular ("SRMs" is the name SRM), as the rules write it.
        .with_columns(
            normalized=normalized_name(
                pl.when(pl.col("name").str.contains(r"[A-Z]{2,}s$"))
                .then(pl.col("name").str.strip_chars_end("s"))
                .otherwise(pl.col("name"))
            )
        )
        .unique(["arxiv_id", "normalized"], maintain_order=True)
    )


def found_names(papers: pl.DataFrame, labels: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """`arxiv_id`, `alias`, `normalized`: the names found in the labelled papers (the
    rules' and the committed name model's), and the rules' alone."""
    labelled = papers.join(labels.select("arxiv_id"), on="arxiv_id", how="semi")
    by_rules = rule_aliases(labelled).select("arxiv_id", "alias", "source")
    found = learned_names(labelled, by_rules, committed_name_model())

    def distinct(names: pl.DataFrame) -> pl.DataFrame:
        return (
            names.with_columns(normalized=normalized_name(pl.col("alias")))
            .unique(["arxiv_id", "normalized"], maintain_order=True)
            .select("arxiv_id", "alias", "normalized")
        )

    return distinct(found), distinct(by_rules)


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else float("nan")


def evaluate(papers: pl.DataFrame, labels: pl.DataFrame) -> tuple[dict[str, float], pl.DataFrame, pl.DataFrame]:
    """The figures, the labelled names not found, and the names found that no label has."""
    truth = labelled_names(labels)
    found, by_rules = found_names(papers, labels)
    rules_hit = truth.join(by_rules, on=["arxiv_id", "normalized"], how="semi").height
    hit = truth.join(found, on=["arxiv_id", "normalized"], how="semi")
    general = truth.filter(pl.col("is_general_rl_method"))
    general_hit = hit.filter(pl.col("is_general_rl_method"))
    right = found.join(truth, on=["arxiv_id", "normalized"], how="semi")
    figures = {
        "papers": labels.height,
        "labelled_names": truth.height,
        "found_names": found.height,
        "name_recall": _ratio(hit.height, truth.height),
        "name_recall_general": _ratio(general_hit.height, general.height),
        "name_precision": _ratio(right.height, found.height),
        "rules_name_recall": _ratio(rules_hit, truth.height),
        "rules_name_precision": _ratio(rules_hit, by_rules.height),
    }
    missed = truth.join(found, on=["arxiv_id", "normalized"], how="anti").select("arxiv_id", "name")
    extra = found.join(truth, on=["arxiv_id", "normalized"], how="anti").select("arxiv_id", "alias")
    return figures, missed, extra


READING_FIGURES = ("name_recall", "name_recall_general", "name_precision", "rules_name_recall", "rules_name_precision")


def report(name: str, figures: dict[str, float]) -> str:
    return (
        f"{name}: {figures['papers']} papers, {figures['labelled_names']} labelled names, "
        f"{figures['found_names']} names found\n"
        f"  method-name recall {figures['name_recall']:.3f} (general methods: {figures['name_recall_general']:.3f})  "
        f"precision {figures['name_precision']:.3f} (the rules alone: recall {figures['rules_name_recall']:.3f}, "
        f"precision {figures['rules_name_precision']:.3f})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", dest="which", choices=SETS, default="snapshot")
    parser.add_argument("--snapshot", type=Path, default=DEFAULT_SNAPSHOT)
    parser.add_argument("--quiet", action="store_true", help="figures only, no missed or extra names")
    args = parser.parse_args(argv)

    batches = labelled_batches(args.which, args.snapshot)
    trained_on = committed_name_model().meta.get("trained_on", {})
    for batch in batches:
        figures, _, _ = evaluate(batch.papers, batch.labels)
        sample, seen = f"{args.which}:{batch.name}", batch.name in trained_on
        print(report(sample + (" [the name model was trained on it: a fit]" if seen else ""), figures))
        reading = {name: figures[name] for name in READING_FIGURES}
        trained_on_by = "name model" if seen else None
        print("  " + record_first_reading("aliases", sample, figures["papers"], reading, trained_on_by=trained_on_by))
    whole = whole_set(batches)
    figures, missed, extra = evaluate(whole.papers, whole.labels)
    if len(batches) > 1:
        print(report(f"{args.which} (all batches)", figures))
    if not args.quiet:
        with pl.Config(tbl_rows=-1, tbl_width_chars=160, fmt_str_lengths=80, tbl_hide_dataframe_shape=True):
            print(f"\nlabelled names not found: {missed.height}")
            print(missed.sort("arxiv_id"))
            print(f"\nnames found that no label has: {extra.height}")
            print(extra.sort("arxiv_id"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
