"""Papers: one row per arXiv paper, the unit every later stage counts."""

import dagster as dg
import polars as pl

from assets.preview import table_metadata
from assets.sources import ARXIV_ENTRIES_TABLE, ARXIV_ENTRY_ROW_SCHEMA, arxiv_entries
from orchestration.warehouse import WRITER_POOL, Warehouse, replace_table

PAPERS_TABLE = "core.papers"

#: Derived assets recompute when their inputs change, without waiting for every
#: upstream partition to exist (the harvest may cover only part of the window).
derived_automation = dg.AutomationCondition.eager().without(~dg.AutomationCondition.any_deps_missing())


def cohort_of(timestamp: pl.Expr) -> pl.Expr:
    """Calendar quarter (UTC) of a timestamp, as text like `2025-Q1`."""
    utc = timestamp.dt.convert_time_zone("UTC")
    return pl.format("{}-Q{}", utc.dt.year(), utc.dt.quarter())


def papers_from_entries(entries: pl.DataFrame) -> pl.DataFrame:
    """One row per arXiv id: the latest version's metadata, the first version's date, the cohort."""
    first_posted = entries.group_by("arxiv_id").agg(pl.col("published_at").min().alias("first_published_at"))
    latest = entries.sort(["arxiv_id", "version"]).unique("arxiv_id", keep="last", maintain_order=True)
    return (
        latest.join(first_posted, on="arxiv_id")
        .with_columns(published_at=pl.col("first_published_at"))
        .with_columns(cohort=cohort_of(pl.col("published_at")))
        .select(
            "arxiv_id",
            "version",
            "title",
            "abstract",
            "authors",
            "author_affiliations",
            "primary_category",
            "categories",
            "comment",
            "journal_ref",
            "doi",
            "published_at",
            "updated_at",
            "cohort",
            "abstract_url",
            "pdf_url",
        )
        .sort("published_at", "arxiv_id")
    )


@dg.asset(
    group_name="papers",
    kinds={"polars", "duckdb"},
    deps=[arxiv_entries],
    pool=WRITER_POOL,
    automation_condition=derived_automation,
)
def papers(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    """One row per arXiv paper (id without version): its latest version's metadata,
    `published_at` of its first version (UTC) and its `cohort`, the quarter of that date.
    """
    entries = warehouse.table_or_empty(ARXIV_ENTRIES_TABLE, pl.DataFrame(schema=ARXIV_ENTRY_ROW_SCHEMA))
    result = papers_from_entries(entries)
    with warehouse.connect() as conn:
        replace_table(conn, PAPERS_TABLE, result)
    per_cohort = result.group_by("cohort").len().sort("cohort")
    context.log.info(f"papers: {result.height} papers from {entries.height} entry versions")
    return dg.MaterializeResult(
        metadata=table_metadata(
            result,
            ["arxiv_id", "version", "cohort", "published_at", "title"],
            papers_per_cohort=dg.MetadataValue.md(
                "\n".join(f"- {cohort}: {count}" for cohort, count in per_cohort.iter_rows())
            ),
        )
    )
