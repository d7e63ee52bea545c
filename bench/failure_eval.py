"""Training-failure reports on the recorded threads, against the hand labels.

    .venv/bin/python bench/failure_eval.py [--snapshot ../shared/snapshots]

Runs the pipeline's `training_failures_of` on the 286 recorded threads (evidence and
inclusions built as bench/link_quality.py builds them, overrides included), then prints,
against bench/labels/training_failure_labels.csv:

- precision, recall and F1 of "is a training-failure report";
- how often the implementation a true report concerns is the one labelled: of the
  reports labelled with a `concerns`, the share whose link (its key, or an alias of its
  paper) is one of the labelled names; of those labelled with none, the share left
  unlinked;
- every disagreement, to read.

The first reading of the labelled threads is kept in bench/readings/first_readings.csv.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.first_readings import record_first_reading  # noqa: E402
from bench.link_quality import DEFAULT_SNAPSHOT, load_snapshots, snapshot_aliases  # noqa: E402
from assets.links.evidence import alias_key, evidence_of  # noqa: E402
from assets.links.inclusions import inclusions_of, read_inclusion_overrides  # noqa: E402
from assets.links.training_failures import training_failures_of  # noqa: E402
from orchestration.settings import frameworks  # noqa: E402

LABELS = ROOT / "bench" / "labels" / "training_failure_labels.csv"
BENCH, SAMPLE = "training_failures", "recorded_threads"


def read_labels(path: Path = LABELS) -> pl.DataFrame:
    """The labels keyed like the pipeline's threads: (framework slug, number)."""
    slugs = pl.DataFrame({"repo": [f.repo for f in frameworks()], "framework": [f.slug for f in frameworks()]})
    labels = pl.read_csv(path, schema_overrides={"concerns": pl.Utf8, "failure_kind": pl.Utf8, "note": pl.Utf8})
    unknown = labels.join(slugs, on="repo", how="anti")
    if unknown.height:
        raise SystemExit(f"{path.name}: repositories not configured in frameworks.toml: {unknown['repo'].unique().to_list()}")
    return labels.join(slugs, on="repo").with_columns(
        labelled=pl.col("is_training_failure").cast(pl.Utf8).str.to_lowercase() == "true"
    )


def found_reports(failures: pl.DataFrame, aliases: pl.DataFrame) -> pl.DataFrame:
    """One row per reported issue: its kinds, link keys, and the keys a labelled name is
    looked for in (each link key, and the id and every alias of each linked paper)."""
    paper_keys = aliases.group_by("arxiv_id").agg(paper_keys=alias_key(pl.col("alias")))
    return (
        failures.join(paper_keys, on="arxiv_id", how="left")
        .with_columns(
            keys=pl.concat_list(
                alias_key(pl.col("link_key").str.replace(r"\.py$", "")),
                alias_key(pl.col("arxiv_id")),
                pl.col("paper_keys").fill_null([]),
            ).list.drop_nulls()
        )
        .group_by("framework", "number")
        .agg(
            pl.col("failure_kinds").first(),
            link_keys=pl.col("link_key").drop_nulls().unique().sort(),
            keys=pl.col("keys").list.explode(keep_nulls=False, empty_as_null=False).unique(),
        )
        .with_columns(found=pl.lit(True))
    )


def scored(labels: pl.DataFrame, reports: pl.DataFrame) -> tuple[dict[str, float], pl.DataFrame]:
    """The figures and the joined frame (one row per labelled thread)."""
    joined = labels.join(reports, on=["framework", "number"], how="left").with_columns(
        found=pl.col("found").fill_null(False),
        keys=pl.col("keys").fill_null([]),
        concerned=pl.col("concerns").fill_null("").str.split(";").list.eval(alias_key(pl.element())).list.filter(
            pl.element() != ""
        ),
    )
    # A labelled name matches a key that contains it (`dapo_ray_trainer` concerns DAPO) or
    # that it contains (`Leave-One-Out` names `use_leave_one_out_baseline`); a report
    # labelled with no name matches when it is linked to nothing.
    pairs = (
        joined.select("framework", "number", "concerned", "keys")
        .explode("concerned", empty_as_null=True)
        .explode("keys", empty_as_null=True)
        .group_by("framework", "number")
        .agg(
            concern_matched=pl.when(pl.col("concerned").is_null().all())
            .then(pl.col("keys").is_null().all())
            .otherwise(
                (
                    pl.col("keys").str.contains(pl.col("concerned"), literal=True)
                    | pl.col("concerned").str.contains(pl.col("keys"), literal=True)
                )
                .fill_null(False)
                .any()
            )
        )
    )
    joined = joined.join(pairs, on=["framework", "number"], how="left")
    true_positive = joined.filter(pl.col("labelled") & pl.col("found"))
    predicted, labelled = int(joined["found"].sum()), int(joined["labelled"].sum())
    precision = true_positive.height / predicted if predicted else float("nan")
    recall = true_positive.height / labelled if labelled else float("nan")
    with_concern = true_positive.filter(pl.col("concerned").list.len() > 0)
    without_concern = true_positive.filter(pl.col("concerned").list.len() == 0)
    figures = {
        "threads": float(joined.height),
        "labelled_reports": float(labelled),
        "predicted_reports": float(predicted),
        "true_positives": float(true_positive.height),
        "precision": precision,
        "recall": recall,
        "f1": 2 * precision * recall / (precision + recall) if precision + recall else 0.0,
        "concern_matched": with_concern["concern_matched"].mean() if with_concern.height else float("nan"),
        "no_concern_unlinked": without_concern["concern_matched"].mean() if without_concern.height else float("nan"),
    }
    return figures, joined


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshot", type=Path, default=DEFAULT_SNAPSHOT)
    args = parser.parse_args()

    data = load_snapshots(args.snapshot)
    aliases = snapshot_aliases(data)
    evidence = evidence_of(data["commits"], data["files"], data["threads"], data["comments"], data["papers"], aliases)
    inclusions = inclusions_of(evidence, data["papers"], data["commits"], read_inclusion_overrides())
    failures = training_failures_of(data["threads"], evidence, inclusions)
    figures, joined = scored(read_labels(), found_reports(failures, aliases))

    print(
        f"{int(figures['threads'])} threads: {int(figures['labelled_reports'])} labelled reports, "
        f"{int(figures['predicted_reports'])} found, {int(figures['true_positives'])} both"
    )
    print(
        f"is a training-failure report: precision {figures['precision']:.3f}   recall {figures['recall']:.3f}   "
        f"F1 {figures['f1']:.3f}   (target F1 >= 0.8)"
    )
    print(
        f"implementation concerned, of true reports: labelled name matched {figures['concern_matched']:.3f}; "
        f"labelled none and left unlinked {figures['no_concern_unlinked']:.3f}"
    )
    print(record_first_reading(BENCH, SAMPLE, int(figures["threads"]), {
        name: figures[name] for name in ("precision", "recall", "f1", "concern_matched", "no_concern_unlinked")
    }))
    columns = ["framework", "number", "failure_kind", "failure_kinds", "concerns", "link_keys", "title", "note"]
    titles = data["threads"].select("framework", "number", "title")
    shown = joined.join(titles, on=["framework", "number"], how="left").with_columns(
        failure_kinds=pl.col("failure_kinds").list.join(";"), link_keys=pl.col("link_keys").list.join(";")
    )
    with pl.Config(tbl_rows=300, fmt_str_lengths=70, tbl_width_chars=260):
        for heading, rows in (
            ("missed (labelled a report, not found)", shown.filter(pl.col("labelled") & ~pl.col("found"))),
            ("false reports (found, labelled not a report)", shown.filter(~pl.col("labelled") & pl.col("found"))),
            ("true reports whose implementation differs from the label", shown.filter(
                pl.col("labelled") & pl.col("found") & ~pl.col("concern_matched")
            )),
        ):
            print(f"\n{heading}: {rows.height}")
            if rows.height:
                print(rows.select(columns).sort("framework", "number"))


if __name__ == "__main__":
    main()
