"""How often the maintainer company is known on the recorded papers, by affiliation source.

    .venv/bin/python bench/affiliation_coverage.py [--snapshot DIR]

Builds `paper_screening` of the snapshot's papers as the pipeline does in snapshot mode
without an OpenAlex key (screening and affiliation overrides of the repository, arXiv's
affiliation field, the recorded `affiliations/`), and prints, for all papers and for the
general RL methods, how many have a known maintainer company, by the source it came from.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from assets.papers.affiliations import (  # noqa: E402
    affiliations_by_precedence,
    arxiv_affiliations,
    maintainer_companies_of,
    override_affiliations,
    read_affiliation_overrides,
)
from assets.papers.papers import papers_from_entries  # noqa: E402
from assets.papers.screening import paper_screening_of, read_screening_overrides  # noqa: E402
from orchestration.clients.arxiv_feed import parse_feed  # noqa: E402
from orchestration.clients.recorded_affiliations import read_snapshot_affiliations  # noqa: E402
from orchestration.curation import OVERRIDES_DIR  # noqa: E402
from orchestration.settings import frameworks  # noqa: E402

DEFAULT_SNAPSHOT = REPO_ROOT.parent / "shared" / "snapshots"


def snapshot_screening(snapshot: Path) -> pl.DataFrame:
    """`paper_screening` of the recorded papers, as the snapshot-mode pipeline computes it."""
    files = sorted((snapshot / "arxiv").glob("*.xml"))
    if not files:
        raise SystemExit(f"no arXiv responses under {snapshot / 'arxiv'}")
    papers = papers_from_entries(pl.concat([parse_feed(path.read_bytes(), str(path)).entries for path in files]))
    affiliations = affiliations_by_precedence(
        override_affiliations(read_affiliation_overrides(OVERRIDES_DIR / "affiliations.csv")),
        arxiv_affiliations(papers),
        read_snapshot_affiliations(snapshot / "affiliations" / "affiliations.jsonl"),
    )
    companies = [company for framework in frameworks() for company in framework.maintainer_companies]
    maintainers = maintainer_companies_of(papers, affiliations, companies)
    return paper_screening_of(papers, maintainers, read_screening_overrides(OVERRIDES_DIR / "screening.csv"))


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

    screening = snapshot_screening(args.snapshot)
    known = screening["maintainer_company"].is_not_null()
    general = screening["is_general_rl_method"]
    print(
        f"maintainer company known: {int(known.sum())} of {screening.height} papers ({known.mean():.3f}), "
        f"{int((known & general).sum())} of {int(general.sum())} general methods "
        f"({(known & general).sum() / general.sum():.3f})"
    )
    with pl.Config(tbl_rows=-1, tbl_hide_dataframe_shape=True, float_precision=3):
        print(coverage_by_source(screening))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
