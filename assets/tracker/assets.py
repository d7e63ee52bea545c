"""The tracker stage: the method switches of included implementations, and the published
tracker (static site, open data, feed) built from the warehouse."""

import shutil
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import polars as pl

from assets.metrics.charts import cohort_chart, peers_chart, survival_chart, svg_text
from assets.preview import table_metadata
from assets.tracker.exports import data_package, write_table
from assets.tracker.feed import atom_feed, feed_entries
from assets.tracker.method_switches import method_switches as method_switches_of
from assets.tracker.pages import FrameworkName, SiteTables, render_site
from orchestration import tables as contract
from orchestration.as_of import read_as_of
from orchestration.jobs import derived_automation
from orchestration.resources import FrameworkSources, TrackerSite
from orchestration.settings import ASSET_OWNERS, frameworks
from orchestration.tables import (
    CORE_EVIDENCE,
    CORE_INCLUSIONS,
    CORE_METHOD_SWITCHES,
    CORE_PAPER_ALIASES,
    CORE_PAPER_SCREENING,
    CORE_PAPERS,
    CORE_PROPOSALS,
    CORE_TRAINING_FAILURES,
    METRICS_COHORT_INCLUSION,
    METRICS_INCLUDED_VS_PEERS,
    METRICS_TECH_REPORT_COVERAGE,
    METRICS_TIME_TO_INCLUSION,
    RAW_FRAMEWORK_DOCS,
    RAW_GIT_COMMIT_FILES,
    Table,
    catalog,
)
from orchestration.warehouse import WRITER_POOL, Warehouse, replace_table

#: What the site exports as open data: every core and metrics table of the contract.
EXPORTED_TABLES = [
    table for table in vars(contract).values()
    if isinstance(table, Table) and table.name.split(".")[0] in ("core", "metrics")
]

#: The tables the site reads, by asset: it is rebuilt after any of them.
SITE_DEPS = [
    dg.AssetKey(name)
    for name in (
        "papers", "paper_screening", "evidence", "inclusions", "proposals", "training_failures", "framework_docs",
        "cohort_inclusion", "included_vs_peers", "time_to_inclusion", "thread_coverage", "failure_reports",
        "failure_report_coverage", "inclusion_lags", "first_inclusions", "tech_report_coverage",
    )
]


@dg.asset(
    group_name="tracker",
    **catalog(CORE_METHOD_SWITCHES),
    kinds={"polars", "duckdb"},
    deps=[dg.AssetKey("inclusions"), dg.AssetKey("framework_commits"), dg.AssetKey("paper_aliases")],
    pool=WRITER_POOL,
    automation_condition=derived_automation,
)
def method_switches(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    """One row per configuration key or flag that turns an included paper's method on in a
    framework (`algorithm.adv_estimator=grpo`, `loss_type: dr_grpo`, `--use_kl_loss`, a
    dataclass field), read from the implementing commit's added lines and identifiers,
    with the file and a `rank` (1: the value names the method, 2: the key, 3: the path)."""
    rows = method_switches_of(
        warehouse.read_table(CORE_INCLUSIONS),
        warehouse.read_table(RAW_GIT_COMMIT_FILES, ["framework", "sha", "path", "added_text", "added_tokens"]),
        warehouse.read_table(CORE_PAPER_ALIASES),
    )
    with warehouse.connect() as conn:
        replace_table(conn, CORE_METHOD_SWITCHES.name, rows)
    pairs = rows.select("arxiv_id", "framework").unique().height
    context.log.info(f"method_switches: {rows.height} rows for {pairs} (paper, framework) inclusions")
    return dg.MaterializeResult(
        metadata=table_metadata(rows, ["arxiv_id", "framework", "key", "value", "path", "rank"], inclusions_with_switch=pairs)
    )


def read_site_tables(warehouse: Warehouse) -> SiteTables:
    return SiteTables(
        papers=warehouse.read_table(CORE_PAPERS),
        screening=warehouse.read_table(CORE_PAPER_SCREENING),
        evidence=warehouse.read_table(CORE_EVIDENCE),
        inclusions=warehouse.read_table(CORE_INCLUSIONS),
        proposals=warehouse.read_table(CORE_PROPOSALS),
        training_failures=warehouse.read_table(CORE_TRAINING_FAILURES),
        framework_docs=warehouse.read_table(RAW_FRAMEWORK_DOCS),
        method_switches=warehouse.read_table(CORE_METHOD_SWITCHES),
        cohort_inclusion=warehouse.read_table(METRICS_COHORT_INCLUSION),
        tech_report_coverage=warehouse.read_table(METRICS_TECH_REPORT_COVERAGE),
    )


def chart_svgs(warehouse: Warehouse) -> dict[str, str]:
    """The cohort charts as inline SVG, by caption."""
    return {
        "General methods per cohort, and included within 180 days": svg_text(
            cohort_chart(warehouse.read_table(METRICS_COHORT_INCLUSION))
        ),
        "Share not yet included in any framework, by days since v1 (Kaplan-Meier)": svg_text(
            survival_chart(warehouse.read_table(METRICS_TIME_TO_INCLUSION))
        ),
        "Included general methods vs their peers (closed cohorts pooled)": svg_text(
            peers_chart(warehouse.read_table(METRICS_INCLUDED_VS_PEERS))
        ),
    }


def build_site(
    site_dir: Path, tables: SiteTables, exports: list[tuple[Table, pl.DataFrame]], as_of: datetime, charts: dict[str, str]
) -> tuple[list[str], dict[str, int]]:
    """Write the whole site into a fresh folder beside `site_dir`, then put it in place, so
    a reader never sees half a site. Returns the pages and the exported row counts."""
    building = site_dir.with_name(site_dir.name + ".building")
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    names = [FrameworkName(f.slug, f.slug, f.repo) for f in frameworks()]  # the repo name alone says "RL" for nemo-rl
    pages = render_site(building, tables, names, as_of, charts)
    resources = [resource for table, frame in exports for resource in write_table(building, table, frame)]
    (building / "datapackage.json").write_text(data_package(resources, as_of), encoding="utf-8")
    (building / "feed.xml").write_bytes(atom_feed(feed_entries(tables.inclusions, tables.proposals, tables.papers), as_of))
    shutil.rmtree(site_dir, ignore_errors=True)
    building.rename(site_dir)
    return pages, {table.name: frame.height for table, frame in exports}


def _size(path: Path) -> str:
    return f"{path.stat().st_size / 1024:.1f} KB"


def site_metadata(site_dir: Path, pages: list[str], rows: dict[str, int]) -> dict[str, object]:
    """A file:// link to the index, the pages with their sizes and the exports with row counts."""
    top = [page for page in pages if "/" not in page]
    grouped: dict[str, list[str]] = {}
    for page in pages:
        if "/" in page:
            grouped.setdefault(page.split("/")[0], []).append(page)
    page_lines = [f"- [{page}]({(site_dir / page).as_uri()}): {_size(site_dir / page)}" for page in top]
    page_lines += [
        f"- {folder}/: {len(group)} pages, {sum((site_dir / p).stat().st_size for p in group) / 1024:.1f} KB"
        for folder, group in grouped.items()
    ]
    export_lines = ["| table | rows | CSV | Parquet |", "| --- | --- | --- | --- |"] + [
        f"| {name} | {count} | {_size(site_dir / 'data' / f'{name}.csv')} | {_size(site_dir / 'data' / f'{name}.parquet')} |"
        for name, count in rows.items()
    ]
    return {
        "site": dg.MetadataValue.url((site_dir / "index.html").as_uri()),
        "site_dir": dg.MetadataValue.path(str(site_dir)),
        "pages": len(pages),
        "page_sizes": dg.MetadataValue.md("\n".join(page_lines)),
        "exports": dg.MetadataValue.md("\n".join(export_lines)),
        "feed": dg.MetadataValue.url((site_dir / "feed.xml").as_uri()),
    }


@dg.asset(
    group_name="tracker",
    kinds={"html", "parquet", "csv"},
    deps=[*SITE_DEPS, method_switches],
    owners=ASSET_OWNERS,
    code_version="1",
    pool=WRITER_POOL,
    automation_condition=derived_automation,
)
def tracker_site(
    context: dg.AssetExecutionContext, warehouse: Warehouse, framework_sources: FrameworkSources, site: TrackerSite
) -> dg.MaterializeResult:
    """The published tracker in TRACKER_SITE_DIR: static HTML that works from file:// or any
    static host (the methods x frameworks matrix, cohorts with charts, one page per
    framework with its rules, proposals, failure reports and digest, one page per paper,
    the technical reports), every core and metrics table as Parquet and CSV with
    datapackage.json, and the Atom feed feed.xml."""
    as_of = read_as_of(warehouse, framework_sources, now=datetime.now(UTC))
    site_dir = Path(site.site_dir).resolve()
    exports = [(table, warehouse.read_table(table)) for table in EXPORTED_TABLES]
    pages, rows = build_site(site_dir, read_site_tables(warehouse), exports, as_of, chart_svgs(warehouse))
    context.log.info(f"tracker_site: {len(pages)} pages and {len(rows)} tables in {site_dir} (as of {as_of:%Y-%m-%d})")
    return dg.MaterializeResult(metadata={**site_metadata(site_dir, pages, rows), "as_of": as_of.isoformat()})
