"""How often the maintainer company is known on the recorded papers, by affiliation source.

    .venv/bin/python bench/affiliation_coverage.py [--snapshot DIR]

Builds `paper_screening` of the snapshot's papers as the pipeline does in snapshot mode
without an OpenAlex key (screening and affiliation overrides of the repository, arXiv's
affiliation field, the recorded `affiliations/`, code URLs, e-mail domains), and prints,
for all papers and for the general RL methods, how many have a known maintainer company,
by the source it came from.

Then it checks the two weaker sources against the recorded affiliations, the labels here:
on the papers with recorded affiliations, the company the code URL's organisation names,
and the company each recorded e-mail domain names, should be among the companies the
printed institutions name. The first reading of that check is kept in
bench/readings/first_readings.csv.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from assets.papers.affiliations import (  # noqa: E402
    arxiv_affiliations,
    code_url_affiliations,
    email_domain_affiliations,
    maintainer_companies_from_sources,
    maintainer_companies_of,
    override_affiliations,
    read_affiliation_overrides,
)
from assets.papers.papers import papers_from_entries  # noqa: E402
from assets.papers.screening import code_links, paper_screening_of, read_screening_overrides  # noqa: E402
from bench.first_readings import record_first_reading  # noqa: E402
from orchestration.clients.arxiv_feed import parse_feed  # noqa: E402
from orchestration.clients.recorded_affiliations import read_snapshot_affiliations  # noqa: E402
from orchestration.curation import OVERRIDES_DIR  # noqa: E402
from orchestration.settings import frameworks, maintainer_companies  # noqa: E402

DEFAULT_SNAPSHOT = REPO_ROOT.parent / "shared" / "snapshots"
FRAMEWORK_REPOS = [framework.repo for framework in frameworks()]


def snapshot_papers(snapshot: Path) -> pl.DataFrame:
    files = sorted((snapshot / "arxiv").glob("*.xml"))
    if not files:
        raise SystemExit(f"no arXiv responses under {snapshot / 'arxiv'}")
    return papers_from_entries(pl.concat([parse_feed(path.read_bytes(), str(path)).entries for path in files]))


def snapshot_screening(papers: pl.DataFrame, recorded: pl.DataFrame) -> pl.DataFrame:
    """`paper_screening` of the recorded papers, as the snapshot-mode pipeline computes it."""
    listed = [
        override_affiliations(read_affiliation_overrides(OVERRIDES_DIR / "affiliations.csv")),
        arxiv_affiliations(papers),
        recorded,
    ]
    maintainers = maintainer_companies_from_sources(papers, listed, maintainer_companies(), FRAMEWORK_REPOS)
    return paper_screening_of(papers, maintainers, read_screening_overrides(OVERRIDES_DIR / "screening.csv"))


def weak_source_agreement(papers: pl.DataFrame, recorded: pl.DataFrame, snapshot: Path) -> pl.DataFrame:
    """One row per company the code URL's organisation or a recorded e-mail domain names
    for a paper with recorded affiliations: `source`, `named` and `recorded` (the
    companies the printed institutions name) and whether they `agree`."""
    companies = maintainer_companies()
    printed = maintainer_companies_of(papers, recorded, companies).filter(pl.col("affiliation_source").is_not_null())
    # The recorded domains as addresses in an otherwise empty comment.
    domains = pl.read_ndjson(
        snapshot / "affiliations" / "affiliations.jsonl",
        schema={"arxiv_id": pl.Utf8, "email_domains": pl.List(pl.Utf8)},
    )
    addresses = domains.select(
        "arxiv_id", abstract=pl.lit(""), comment=pl.col("email_domains").list.eval("x@" + pl.element()).list.join(" ")
    )
    named = pl.concat(
        [
            code_url_affiliations(code_links(papers), companies, FRAMEWORK_REPOS),
            email_domain_affiliations(addresses, companies),
        ]
    )
    return named.join(printed, on="arxiv_id").select(
        "arxiv_id",
        "source",
        named="affiliation",
        recorded="maintainer_company",
        agree=pl.col("maintainer_company").str.split("; ").list.contains(pl.col("affiliation")),
    )


def coverage_by_source(screening: pl.DataFrame) -> pl.DataFrame:
    """One row per affiliation source (`unknown` for none): papers and general methods it
    gives the maintainer company of, with their shares, and how many name a company."""
    general = pl.col("is_general_rl_method")
    company = pl.col("maintainer_company").is_not_null() & (pl.col("maintainer_company") != "none")
    return (
        screening.group_by(source=pl.col("affiliation_source").fill_null("unknown"))
        .agg(
            papers=pl.len(),
            with_company=company.sum(),
            general_methods=general.sum(),
            general_with_company=(general & company).sum(),
        )
        .with_columns(
            papers_share=pl.col("papers") / screening.height,
            general_share=pl.col("general_methods") / screening["is_general_rl_method"].sum(),
        )
        .sort(pl.col("source") == "unknown", "source")
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshot", type=Path, default=DEFAULT_SNAPSHOT)
    args = parser.parse_args(argv)

    papers = snapshot_papers(args.snapshot)
    recorded = read_snapshot_affiliations(args.snapshot / "affiliations" / "affiliations.jsonl")
    screening = snapshot_screening(papers, recorded)
    known = screening["maintainer_company"].is_not_null()
    general = screening["is_general_rl_method"]
    print(
        f"maintainer company known: {int(known.sum())} of {screening.height} papers ({known.mean():.3f}), "
        f"{int((known & general).sum())} of {int(general.sum())} general methods "
        f"({(known & general).sum() / general.sum():.3f})"
    )
    with pl.Config(tbl_rows=-1, tbl_hide_dataframe_shape=True, float_precision=3):
        print(coverage_by_source(screening))
        agreement = weak_source_agreement(papers, recorded, args.snapshot)
        figures = {}
        for source in ("code_url", "email"):
            rows = agreement.filter(pl.col("source") == source)
            figures[f"{source}_agreement"] = rows["agree"].mean() if rows.height else float("nan")
            figures[f"{source}_attributions"] = rows.height
            print(f"\n{source}: {int(rows['agree'].sum())} of {rows.height} companies it names agree with the recorded ones")
            print(rows.sort("agree", "arxiv_id"))
    sample_size = agreement["arxiv_id"].n_unique()
    print(record_first_reading("affiliation_coverage", "recorded_affiliations", sample_size, figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
