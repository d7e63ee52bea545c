"""The tracker site's pages, rendered with Jinja2 (autoescaping on) from the warehouse's
tables. Everything a page needs is inline or in the site folder, so it works from
`file://` and from any static host; untrusted text stays text (assets/tracker/text.py).

The page models are pure polars: each `*_rows` function returns the rows one page table
shows; `render_site` writes the pages and returns their paths relative to the site."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import jinja2
import polars as pl
from markupsafe import Markup

from assets.metrics.cohort_inclusion import IS_GENERAL_METHOD
from assets.tracker.method_switches import best_switches
from assets.tracker.text import plain_text, safe_url

TEMPLATES = Path(__file__).parent / "templates"


@dataclass(frozen=True)
class SiteTables:
    """The warehouse's tables the site shows (contract schemas; any may be empty)."""

    papers: pl.DataFrame
    screening: pl.DataFrame
    evidence: pl.DataFrame
    inclusions: pl.DataFrame
    proposals: pl.DataFrame
    training_failures: pl.DataFrame
    framework_docs: pl.DataFrame
    method_switches: pl.DataFrame
    cohort_inclusion: pl.DataFrame
    tech_report_coverage: pl.DataFrame


@dataclass(frozen=True)
class FrameworkName:
    slug: str
    name: str
    repo: str


def quarter_of(moment: datetime) -> str:
    return f"{moment.year}-Q{(moment.month - 1) // 3 + 1}"


def last_two_quarters(as_of: datetime) -> list[str]:
    """The cohort of the as-of date and the one before it."""
    previous = (as_of.year, as_of.month - 3) if as_of.month > 3 else (as_of.year - 1, as_of.month + 9)
    return [quarter_of(datetime(previous[0], previous[1], 1)), quarter_of(as_of)]


def matrix_rows(tables: SiteTables, frameworks: list[str]) -> list[dict[str, object]]:
    """One row per included method: `arxiv_id`, `title`, `cohort`, `general`, and per
    framework a cell (`date`, `url`, `switch`) or None."""
    switches = best_switches(tables.method_switches).select(
        "arxiv_id", "framework", switch=pl.when(pl.col("value").is_null()).then(pl.col("key"))
        .when(pl.col("key").str.starts_with("--")).then(pl.format("{} {}", "key", "value"))
        .otherwise(pl.format("{}={}", "key", "value"))
    )
    cells = (
        tables.inclusions.join(switches, on=["arxiv_id", "framework"], how="left")
        .select("arxiv_id", "framework", date=pl.col("included_at").dt.strftime("%Y-%m-%d"), url=pl.col("commit_url"), switch="switch")
    )
    methods = (
        cells.select("arxiv_id").unique()
        .join(tables.papers.select("arxiv_id", "title", "cohort"), on="arxiv_id", how="left")
        .join(tables.screening.select("arxiv_id", general="is_general_rl_method"), on="arxiv_id", how="left")
        .sort("cohort", "arxiv_id", nulls_last=True)
    )
    by_method: dict[str, dict[str, dict[str, object]]] = {}
    for cell in cells.iter_rows(named=True):
        by_method.setdefault(cell["arxiv_id"], {})[cell["framework"]] = cell
    return [
        {**method, "cells": [by_method.get(method["arxiv_id"], {}).get(slug) for slug in frameworks]}
        for method in methods.iter_rows(named=True)
    ]


def digest_unproposed(tables: SiteTables, framework: str, as_of: datetime) -> pl.DataFrame:
    """General methods of the last two quarters (relative to `as_of`) that `framework` has
    not included and that no thread or comment there cites or names yet."""
    named_in_threads = tables.evidence.filter(
        (pl.col("framework") == framework) & pl.col("source_type").is_in(["thread", "comment"])
    ).select("arxiv_id")
    included = tables.inclusions.filter(pl.col("framework") == framework).select("arxiv_id")
    return (
        tables.screening.filter(IS_GENERAL_METHOD & pl.col("cohort").is_in(last_two_quarters(as_of)))
        .select("arxiv_id")
        .join(named_in_threads, on="arxiv_id", how="anti")
        .join(included, on="arxiv_id", how="anti")
        .join(tables.papers.select("arxiv_id", "title", "cohort", "published_at"), on="arxiv_id")
        .sort("published_at", "arxiv_id", descending=[True, False])
    )


def proposal_rows(tables: SiteTables, framework: str) -> pl.DataFrame:
    """The framework's proposals (a thread per paper it names), oldest first, with an
    `outcome` a reader can scan: merged, included later, open (with/without reply), closed."""
    return (
        tables.proposals.filter(pl.col("framework") == framework)
        .with_columns(
            outcome=pl.when(pl.col("merged").fill_null(False)).then(pl.lit("merged"))
            .when(pl.col("included_at").is_not_null()).then(pl.lit("included later"))
            .when((pl.col("state") == "open") & pl.col("without_reply").fill_null(False)).then(pl.lit("open, unanswered"))
            .when(pl.col("state") == "open").then(pl.lit("open"))
            .otherwise(pl.col("state")),
            waiting_for_maintainer=(pl.col("state") == "open")
            & (pl.col("without_reply").fill_null(False) | (pl.col("maintainer_replied") == False)),  # noqa: E712
        )
        .sort("created_at", "number")
    )


def report_matrix(coverage: pl.DataFrame) -> tuple[list[str], list[dict[str, object]]]:
    """The technical reports x widely included methods: the method names, and one row per
    report with a cell (`stated`, `evidence`) per method."""
    methods = coverage.select("method").unique().sort("method")["method"].to_list()
    rows = []
    for (report_id, model), group in coverage.sort("report_id").group_by("report_id", "model", maintain_order=True):
        by_method = {row["method"]: row for row in group.iter_rows(named=True)}
        rows.append({"report_id": report_id, "model": model, "cells": [by_method.get(m) for m in methods]})
    return methods, rows


def environment() -> jinja2.Environment:
    """Jinja2 with autoescaping for every template, control characters dropped from every
    value, and `url` keeping only http(s) links."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        finalize=plain_text,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["url"] = safe_url
    env.filters["day"] = lambda moment: moment.strftime("%Y-%m-%d") if moment else ""
    env.filters["days"] = lambda days: "" if days is None else f"{days:.0f}"
    return env


def _write(site_dir: Path, relative: str, html: str) -> str:
    path = site_dir / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html, encoding="utf-8")
    return relative


def render_site(
    site_dir: Path,
    tables: SiteTables,
    frameworks: list[FrameworkName],
    as_of: datetime,
    charts: Mapping[str, str],
) -> list[str]:
    """Write every page into `site_dir`; return their paths relative to it. `charts` maps a
    chart's title to its inline SVG (our own rendering, inserted as markup)."""
    env = environment()
    common = {"as_of": as_of, "frameworks": frameworks}
    slugs = [framework.slug for framework in frameworks]
    written = [
        _write(site_dir, "index.html", env.get_template("index.html.j2").render(
            **common, root="", rows=matrix_rows(tables, slugs))),
        _write(site_dir, "cohorts.html", env.get_template("cohorts.html.j2").render(
            **common, root="", cohorts=tables.cohort_inclusion.filter(pl.col("framework") == "any").sort("cohort").to_dicts(),
            charts={title: Markup(svg) for title, svg in charts.items()})),
    ]
    methods, reports = report_matrix(tables.tech_report_coverage)
    written.append(_write(site_dir, "reports.html", env.get_template("reports.html.j2").render(
        **common, root="", methods=methods, reports=reports)))
    titles = tables.papers.select("arxiv_id", "title")
    for framework in frameworks:
        proposals = proposal_rows(tables, framework.slug)
        failures = (
            tables.training_failures.filter(pl.col("framework") == framework.slug)
            .join(titles, on="arxiv_id", how="left", suffix="_paper")
            .sort("created_at", "number")
        )
        written.append(_write(site_dir, f"frameworks/{framework.slug}.html", env.get_template("framework.html.j2").render(
            **common, root="../", framework=framework,
            docs=tables.framework_docs.filter(pl.col("framework") == framework.slug).sort("path").to_dicts(),
            proposals=proposals.to_dicts(),
            waiting=proposals.filter(pl.col("waiting_for_maintainer")).to_dicts(),
            unproposed=digest_unproposed(tables, framework.slug, as_of).to_dicts(),
            quarters=last_two_quarters(as_of),
            failures=failures.to_dicts())))
    paper_template = env.get_template("paper.html.j2")
    screening = per_paper(tables.screening, "arxiv_id")
    evidence = per_paper(tables.evidence, "framework", "occurred_at")
    proposals = per_paper(tables.proposals, "framework", "created_at")
    inclusions = per_paper(tables.inclusions, "framework")
    switches = per_paper(tables.method_switches, "framework", "rank")
    for paper in tables.papers.sort("arxiv_id").iter_rows(named=True):
        arxiv_id = paper["arxiv_id"]
        written.append(_write(site_dir, f"papers/{arxiv_id}.html", paper_template.render(
            **common, root="../", paper=paper, screening=(screening.get(arxiv_id) or [None])[0],
            evidence=evidence.get(arxiv_id, []), proposals=proposals.get(arxiv_id, []),
            inclusions=inclusions.get(arxiv_id, []), switches=switches.get(arxiv_id, []))))
    return written


def per_paper(frame: pl.DataFrame, *order: str) -> dict[str, list[dict[str, object]]]:
    """The rows of `frame` per arxiv_id, each paper's sorted by `order` (one pass, not a
    filter per paper)."""
    return {
        key[0]: rows.to_dicts()
        for key, rows in frame.sort("arxiv_id", *order).partition_by("arxiv_id", as_dict=True, maintain_order=True).items()
    }
