"""The tracker site built from a small invented warehouse: pages, open data, feed,
metadata, and hostile text that stays text everywhere."""

import json
import re
from xml.etree import ElementTree

import polars as pl
import pytest

from assets.preview import markdown_preview
from assets.tracker.feed import atom_feed, feed_entries
from assets.tracker.pages import last_two_quarters
from orchestration.tables import CORE_METHOD_SWITCHES, CORE_PROPOSALS
from tests.tracker_fixtures import AS_OF, HOSTILE, build_site, fixture_tables


@pytest.fixture
def built_site(tmp_path):
    return build_site(tmp_path)


def page(site_dir, relative):
    return (site_dir / relative).read_text(encoding="utf-8")


def test_the_matrix_has_a_row_per_included_method_and_the_switch(built_site):
    site_dir, _ = built_site
    html = page(site_dir, "index.html")
    assert html.count('<tr data-arxiv="') == 2
    assert 'href="https://github.com/volcengine/verl/commit/' + "a" * 40 + '">2025-04-10</a>' in html
    assert '<span class="switch">algorithm.adv_estimator=dapo</span>' in html
    assert '<span class="switch">dapo_clip_higher</span>' in html


def test_the_framework_page_has_rules_proposals_failures_and_the_digest(built_site):
    site_dir, _ = built_site
    html = page(site_dir, "frameworks/trl.html")
    digest = html.split('<section id="digest">')[1].split("</section>")[0]
    # 2025-Q4 is the as-of quarter; nobody in trl named FreshPO; the hostile paper's
    # thread is the one waiting for a reply.
    assert "FreshPO: nobody proposed it" in digest
    assert "#7 Please add &lt;script&gt;" in digest
    assert "Open an issue first." in html
    verl = page(site_dir, "frameworks/verl.html")
    assert "NaN loss with DAPO" in verl
    # A failure naming an implementation no paper is known for shows the name it gave.
    assert "<code>fancy_kl_mode</code> <span class=\"muted\">(no paper known)</span>" in verl


def test_the_digest_quarters_are_relative_to_the_as_of_date():
    assert last_two_quarters(AS_OF) == ["2025-Q3", "2025-Q4"]
    assert last_two_quarters(AS_OF.replace(month=2)) == ["2024-Q4", "2025-Q1"]


def test_cohorts_mark_provisional_windows_and_reports_keep_the_sentence(built_site):
    site_dir, _ = built_site
    cohorts = page(site_dir, "cohorts.html")
    assert '<tr class="provisional">' in cohorts and "provisional until 2025-12-27" in cohorts
    assert "<details title=\"We use DAPO &lt;script&gt;" in page(site_dir, "reports.html")


def test_hostile_text_stays_text_in_every_page(built_site):
    site_dir, _ = built_site
    for path in site_dir.rglob("*.html"):
        html = path.read_text(encoding="utf-8")
        assert "<script>window" not in html, path
        assert "<img" not in html and "javascript:" not in html.replace("(javascript:window.pwned=3)", ""), path
        assert "\x07" not in html and "\x1b" not in html, path
        # the one script of the site is the matrix's own
        assert html.count("<script>") == (1 if path.name == "index.html" else 0), path
    paper = page(site_dir, "papers/2504.00002.html")
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in paper
    assert "[click](javascript:window.pwned=3)" in paper  # a markdown link is shown, not followed
    assert 'href="javascript' not in paper


def test_hostile_text_stays_text_in_the_feed():
    tables = fixture_tables()
    document = atom_feed(
        feed_entries(tables["core.inclusions"], tables["core.proposals"], tables["core.papers"]), AS_OF
    )
    assert b"\x07" not in document and b"<script>" not in document and b"javascript:" not in document.replace(b"(javascript:", b"")
    feed = ElementTree.fromstring(document)
    atom = "{http://www.w3.org/2005/Atom}"
    entries = feed.findall(f"{atom}entry")
    titles = [entry.find(f"{atom}title").text for entry in entries]
    assert titles[0].startswith("verl includes Hostile <script>window.pwned=1</script>")  # text, escaped in XML
    ids = [entry.find(f"{atom}id").text for entry in entries]
    assert ids == [
        "tag:inclusion-tracker,2025:inclusion/verl/2504.00002",
        "tag:inclusion-tracker,2025:inclusion/trl/2503.00001",
        "tag:inclusion-tracker,2025:proposal/trl/7",
        "tag:inclusion-tracker,2025:inclusion/verl/2503.00001",
    ]
    updated = [entry.find(f"{atom}updated").text for entry in entries]
    assert updated == sorted(updated, reverse=True)
    # no link where the URL is not http(s)
    assert entries[0].find(f"{atom}link") is None


def test_hostile_text_stays_text_in_the_metadata_previews():
    preview = markdown_preview(pl.DataFrame({"title": [HOSTILE, "[click](javascript:window.pwned=3) a|b"]}))
    hostile, link = preview.splitlines()[2:]
    assert "<" not in hostile and "\x07" not in hostile and "\x1b" not in hostile
    assert link == r"| \[click\]\(javascript\:window\.pwned\=3\) a\|b |"  # no markdown link, one cell


def test_open_data_has_every_core_and_metrics_table_with_a_data_package(built_site):
    site_dir, _ = built_site
    package = json.loads(page(site_dir, "datapackage.json"))
    assert package["as_of"] == AS_OF.isoformat()
    by_name = {resource["name"]: resource for resource in package["resources"]}
    assert "core.method_switches" in by_name and "metrics.tech_report_coverage.parquet" in by_name
    proposals = by_name[CORE_PROPOSALS.name]
    assert proposals["rows"] == 2 and proposals["path"] == "data/core.proposals.csv"
    assert {"name": "days_open", "type": "number"} in proposals["schema"]["fields"]
    for resource in package["resources"]:
        frame = (pl.read_csv if resource["format"] == "csv" else pl.read_parquet)(site_dir / resource["path"])
        assert frame.height == resource["rows"] and frame.columns == [f["name"] for f in resource["schema"]["fields"]]
    # a list column is a JSON array in the CSV (Table Schema's `array`)
    screening = pl.read_csv(site_dir / "data/core.paper_screening.csv")
    assert json.loads(screening["screening_reasons"][0]) == ["names a policy-gradient loss", HOSTILE]
    assert pl.read_parquet(site_dir / "data/core.method_switches.parquet").schema == pl.Schema(CORE_METHOD_SWITCHES.schema)


def test_the_metadata_links_the_index_and_counts_pages_and_exports(built_site):
    site_dir, result = built_site
    metadata = result.asset_materializations_for_node("tracker_site")[0].metadata
    assert metadata["site"].value == (site_dir / "index.html").as_uri()
    assert metadata["pages"].value == 3 + 7 + 3  # index, cohorts, reports; 7 frameworks; 3 papers
    assert re.search(r"\| core\.proposals \| 2 \|", metadata["exports"].value)
    assert "index.html" in metadata["page_sizes"].value and "papers/: 3 pages" in metadata["page_sizes"].value
