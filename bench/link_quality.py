"""Quality of the links on real data, against the project's hand-checked sample.

    .venv/bin/python bench/link_quality.py [--snapshot ../shared/snapshots] [--threads-sample 20]

Loads the seven recorded framework histories, the 286 recorded threads and the 172
recorded arXiv papers through the same transforms as the pipeline (papers, paper
aliases with overrides/aliases.csv, evidence, inclusions with overrides/inclusions.csv,
proposals, training failures), then prints

- precision and recall of `inclusions` on the (paper, framework) pairs of
  bench/labels/inclusion_sample.csv (a pair is a true positive when both say included),
  and the median and largest date error of the true positives (days between the
  included_at and the committer time of the labelled commit);
- the rules alone (without overrides/inclusions.csv), on the whole sample and on each
  `batch` of it: `tuning`, the pairs the rules were written against, `held_out` …
  `held_out_4`, pairs drawn at random (seeded) from the rules' output and labelled after
  the rules of the time were frozen, and `recall_*`, rule-free candidates the rules
  rejected (bench/link_recall.py); how each was drawn is in bench/draw_link_sample.py.
  A batch's first reading (precision and recall, rules alone) is appended once to
  bench/readings/first_readings.csv, and shown again on later runs;
- the rows of overrides/inclusions.csv that correct nothing any more;
- every disagreement, to read;
- how many proposals and training-failure reports the recorded threads give, and a
  sample of each to check by hand.
"""

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.first_readings import record_first_reading  # noqa: E402
from assets.papers.aliases import paper_aliases_of, read_alias_overrides  # noqa: E402
from orchestration.clients.recorded_snapshot import recorded_frames  # noqa: E402
from assets.links.evidence import evidence_of  # noqa: E402
from assets.links.inclusions import inclusions_of, read_inclusion_overrides, stale_inclusion_overrides  # noqa: E402
from assets.papers.papers import papers_from_entries  # noqa: E402
from orchestration.as_of import as_of_of  # noqa: E402
from orchestration.clients.reports import REPORT_TEXT_SCHEMA, SnapshotReportTextSource, tech_report_config  # noqa: E402
from assets.links.proposals import proposals_of  # noqa: E402
from assets.links.training_failures import training_failures_of  # noqa: E402

SAMPLE = ROOT / "bench" / "labels" / "inclusion_sample.csv"
HAND_CHECK_SEED = 20261203
DEFAULT_SNAPSHOT = ROOT.parent / "shared" / "snapshots"


def load_snapshots(snapshot: Path) -> dict[str, pl.DataFrame]:
    """Commits, files, threads, comments and papers of the recorded snapshots."""
    recorded = recorded_frames(snapshot)
    papers = papers_from_entries(recorded["entries"])
    reports = tech_report_config().reports_among(papers["arxiv_id"].to_list())
    try:
        passages = SnapshotReportTextSource(snapshot).report_texts(reports)
    except FileNotFoundError:
        passages = pl.DataFrame(schema=REPORT_TEXT_SCHEMA)
    return {
        **{name: recorded[name] for name in ("commits", "files", "threads", "comments")},
        "papers": papers,
        "report_passages": passages,
    }


def snapshot_aliases(data: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """The aliases as the pipeline makes them: abstracts, report texts, overrides."""
    return paper_aliases_of(data["papers"], read_alias_overrides(), data["report_passages"])


def rules_output(data: dict[str, pl.DataFrame]) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Aliases, evidence and the inclusions of the rules alone (no overrides/inclusions.csv)."""
    aliases = snapshot_aliases(data)
    evidence = evidence_of(data["commits"], data["files"], data["threads"], data["comments"], data["papers"], aliases)
    inclusions = inclusions_of(evidence, data["papers"], data["commits"], read_inclusion_overrides().clear())
    return aliases, evidence, inclusions


def read_sample(path: Path = SAMPLE) -> pl.DataFrame:
    return pl.read_csv(path, schema_overrides={"arxiv_id": pl.Utf8, "commit_sha": pl.Utf8, "batch": pl.Utf8}).with_columns(
        included=pl.col("included").cast(pl.Utf8).str.to_lowercase() == "true"
    )


def scored(inclusions: pl.DataFrame, sample: pl.DataFrame, commits: pl.DataFrame) -> tuple[dict, pl.DataFrame]:
    """Precision, recall and date errors of `inclusions` on the sample's pairs."""
    labelled = sample.join(
        commits.select("framework", commit_sha="sha", labelled_at="committed_at"), on=["framework", "commit_sha"], how="left"
    )
    if labelled.filter(pl.col("included") & pl.col("labelled_at").is_null()).height:
        missing = labelled.filter(pl.col("included") & pl.col("labelled_at").is_null())
        raise SystemExit(f"labelled commits not in the snapshot: {missing.select('arxiv_id', 'framework', 'commit_sha').rows()}")
    joined = labelled.join(
        inclusions.select("arxiv_id", "framework", "included_at", found_sha="commit_sha", found_path="path", rule="rule"),
        on=["arxiv_id", "framework"],
        how="left",
    ).with_columns(found=pl.col("included_at").is_not_null())
    true_positive = joined.filter(pl.col("included") & pl.col("found"))
    errors = true_positive.select(
        error_days=((pl.col("included_at") - pl.col("labelled_at")).dt.total_seconds().abs() / 86_400)
    )["error_days"]
    predicted = joined["found"].sum()
    figures = {
        "pairs": joined.height,
        "labelled_included": int(joined["included"].sum()),
        "predicted_included": int(predicted),
        "true_positives": true_positive.height,
        "precision": true_positive.height / predicted if predicted else float("nan"),
        "recall": true_positive.height / joined["included"].sum(),
        "median_date_error_days": float(errors.median()) if len(errors) else float("nan"),
        "exact_commit": int((true_positive["found_sha"] == true_positive["commit_sha"]).sum()),
        "max_date_error_days": float(errors.max()) if len(errors) else float("nan"),
    }
    disagreements = joined.filter(
        (pl.col("included") != pl.col("found")) | (pl.col("included") & (pl.col("found_sha") != pl.col("commit_sha")))
    )
    return figures, disagreements


def print_figures(title: str, figures: dict) -> None:
    print(f"\n{title}")
    print(
        f"  pairs {figures['pairs']} (labelled included {figures['labelled_included']}, "
        f"predicted {figures['predicted_included']}, true positives {figures['true_positives']})"
    )
    print(f"  precision {figures['precision']:.3f}   recall {figures['recall']:.3f}   (targets >= 0.95, >= 0.95)")
    print(
        f"  date error of true positives: median {figures['median_date_error_days']:.2f} days, "
        f"max {figures['max_date_error_days']:.1f} days; same commit as labelled: "
        f"{figures['exact_commit']}/{figures['true_positives']}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshot", type=Path, default=DEFAULT_SNAPSHOT)
    parser.add_argument("--threads-sample", type=int, default=20, help="proposals and failures to list for a hand check")
    args = parser.parse_args()

    data = load_snapshots(args.snapshot)
    aliases, evidence, rules_only = rules_output(data)
    sample = read_sample()
    print(
        f"snapshot: {data['commits'].height} commits, {data['files'].height} file rows, {data['threads'].height} threads, "
        f"{data['papers'].height} papers, {aliases.height} aliases; {evidence.height} evidence rows"
    )
    print(evidence.group_by("evidence_class", "rule").len().sort("len", descending=True))

    overrides = read_inclusion_overrides()
    with_overrides = inclusions_of(evidence, data["papers"], data["commits"], overrides)
    figures, disagreements = scored(with_overrides, sample, data["commits"])
    print_figures(f"inclusions (rules + {overrides.height} override row(s)) vs {SAMPLE.name}", figures)
    stale = stale_inclusion_overrides(evidence, overrides)
    if stale.height:
        rows = stale.select("arxiv_id", "framework", "action").rows()
        print(f"\nstale rows in overrides/inclusions.csv (they correct nothing now): {rows}")
    rules_figures, _ = scored(rules_only, sample, data["commits"])
    print_figures("rules alone", rules_figures)
    for batch in sample["batch"].unique(maintain_order=True):
        batch_figures, _ = scored(rules_only, sample.filter(pl.col("batch") == batch), data["commits"])
        print_figures(f"rules alone, {batch} pairs", batch_figures)
        print("  " + record_first_reading(
            "link_quality", batch, batch_figures["pairs"],
            {"precision": batch_figures["precision"], "recall": batch_figures["recall"]},
        ))
    with pl.Config(tbl_rows=100, fmt_str_lengths=60, tbl_width_chars=220):
        print("\ndisagreements (labelled vs found):")
        print(
            disagreements.select(
                "arxiv_id",
                "framework",
                "included",
                pl.col("commit_sha").str.slice(0, 10),
                pl.col("labelled_at").dt.date(),
                pl.col("found_sha").str.slice(0, 10),
                pl.col("included_at").dt.date(),
                "rule",
                "found_path",
            )
        )

    # The recorded data's own end, as the snapshot run measures ages: the same figures on any day.
    as_of = as_of_of(data["commits"], data["threads"], data["comments"], snapshot=True, now=datetime.now(UTC))
    proposals = proposals_of(evidence, data["threads"], data["comments"], with_overrides, as_of)
    failures = training_failures_of(data["threads"], evidence, with_overrides)
    failure_issues = failures.select("framework", "number").unique()
    linked = failures.filter(pl.col("arxiv_id").is_not_null()).select("framework", "number").unique()
    print(
        f"\nrecorded threads: {data['threads'].height}; proposals: {proposals.height} rows in "
        f"{proposals.select('framework', 'number').n_unique()} threads, {int(proposals['without_reply'].sum())} without a reply, "
        f"{proposals['arxiv_id'].n_unique()} papers; training-failure reports: {failure_issues.height} issues, "
        f"{linked.height} linked to an implementation"
    )
    # Seeded random samples, so that a hand check can be repeated and extended.
    proposal_sample = proposals.sample(n=min(args.threads_sample, proposals.height), seed=HAND_CHECK_SEED)
    failure_issues_sample = (
        failures.group_by("framework", "number")
        .agg(
            pl.col("title").first(),
            pl.col("failure_kinds").first(),
            arxiv_ids=pl.col("arxiv_id").drop_nulls().unique().sort().str.join(","),
            link_keys=pl.col("link_key").drop_nulls().unique().sort().str.join(","),
        )
        .sort("framework", "number")
    )
    failure_issues_sample = failure_issues_sample.sample(
        n=min(args.threads_sample, failure_issues_sample.height), seed=HAND_CHECK_SEED
    )
    with pl.Config(tbl_rows=100, fmt_str_lengths=70, tbl_width_chars=220):
        print(f"\nproposals to check by hand ({proposal_sample.height} drawn with seed {HAND_CHECK_SEED}):")
        print(
            proposal_sample.sort("framework", "number").select(
                "framework", "number", "kind", "state", "arxiv_id", "matched_by", "named_in",
                pl.col("included_at").dt.date(), "replies_by_others", "title",
            )
        )
        print(f"\ntraining-failure reports to check by hand ({failure_issues_sample.height} issues drawn with seed {HAND_CHECK_SEED}):")
        print(failure_issues_sample.sort("framework", "number"))

if __name__ == "__main__":
    main()
