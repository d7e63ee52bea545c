"""The live source of technical-report text (arXiv abstract and HTML rendering) against
the fake arXiv, and its cache in raw.report_texts."""

import logging
from collections.abc import Iterator

import httpx
import polars as pl
import pytest

from fakes.arxiv_server import atom_feed
from fakes.arxiv_html_server import Fault, ReportFixtures, latexml_page, running_fake_arxiv_reports
from orchestration.clients.arxiv import USER_AGENT, SourceUnavailableError
from orchestration.clients.report_html import latexml_passages
from orchestration.clients.reports import (
    REPORT_TEXT_SCHEMA,
    LiveReportTextSource,
    ReportFetchError,
    SnapshotReportTextSource,
    cached_report_texts,
)
from orchestration.tables import RAW_REPORT_TEXTS
from orchestration.warehouse import Warehouse

LOG = logging.getLogger("test")

# An invented report page: numbered sections, a formula, a citation, a footnote, a figure
# caption, a table, LaTeXML's error marker, the bibliography and an appendix.
BODY = """
<section class="ltx_section" id="S1"><h2 class="ltx_title ltx_title_section"><span class="ltx_tag ltx_tag_section">1 </span>Introduction</h2>
<div class="ltx_para" id="S1.p1"><p class="ltx_p">We train the policy with <span class="ltx_text ltx_font_bold">GRPO</span>
and raise the upper bound <math alttext="\\varepsilon_{\\text{high}}" class="ltx_Math" display="inline"><semantics><msub><mi>ε</mi><mtext>high</mtext></msub>
<annotation encoding="application/x-tex">\\varepsilon_{\\text{high}}</annotation></semantics></math> (clip-higher).<span class="ltx_note ltx_role_footnote"><sup class="ltx_note_mark">1</sup><span class="ltx_note_outer"><span class="ltx_note_content"><sup class="ltx_note_mark">1</sup>As in DAPO.</span></span></span></p></div>
<section class="ltx_subsection" id="S1.SS1"><h3 class="ltx_title ltx_title_subsection"><span class="ltx_tag ltx_tag_subsection">1.1 </span>Dynamic Sampling</h3>
<div class="ltx_para"><p class="ltx_p">Groups whose rewards are all equal are <span class="ltx_ERROR undefined">\\bm</span>dropped
<cite class="ltx_cite ltx_citemacro_cite">[<a class="ltx_ref" href="#bib.bib3">3</a>]</cite>.</p></div>
<figure class="ltx_table"><figcaption class="ltx_caption"><span class="ltx_tag ltx_tag_table">Table 1: </span>Token-level loss&nbsp;settings.</figcaption>
<table class="ltx_tabular"><tr><td class="ltx_td">a table cell</td></tr></table></figure>
</section></section>
<section class="ltx_bibliography" id="bib"><h2 class="ltx_title ltx_title_bibliography">References</h2>
<ul class="ltx_biblist"><li class="ltx_bibitem"><span class="ltx_bibblock">Q. Yu et al. DAPO: an open-source LLM RL system.</span></li></ul></section>
<section class="ltx_appendix" id="A1"><h2 class="ltx_title ltx_title_appendix"><span class="ltx_tag">Appendix A </span>Hyperparameters</h2>
<div class="ltx_para"><p class="ltx_p">The learning rate is 1e-6.</p></div></section>
"""
PAGE = latexml_page("Example-1 Technical Report", BODY)
EXPECTED_PASSAGES = [
    ("1 Introduction", "We train the policy with GRPO and raise the upper bound \\varepsilon_{\\text{high}} (clip-higher). As in DAPO."),
    ("1.1 Dynamic Sampling", "Groups whose rewards are all equal are dropped [3]."),
    ("1.1 Dynamic Sampling", "Table 1: Token-level loss settings."),  # &nbsp; reads as a space
    ("Appendix A Hyperparameters", "The learning rate is 1e-6."),
]  # fmt: skip


@pytest.fixture
def fake() -> Iterator[tuple[ReportFixtures, LiveReportTextSource]]:
    """The fake arXiv with two reports (one without HTML) and a source pointed at it."""
    fixtures = ReportFixtures()
    fixtures.add("2601.00001", abstract="We present Example-1, trained with GRPO.", html=PAGE)
    fixtures.add("2601.00002", abstract="We present Example-2, a mixture of experts.")
    with running_fake_arxiv_reports(fixtures) as urls:
        yield fixtures, LiveReportTextSource(
            urls.api_url, urls.html_url, min_interval_s=0, backoff_s=0.01, max_retries=2, timeout_s=5
        )


@pytest.fixture
def warehouse(tmp_path) -> Warehouse:
    return Warehouse(database=str(tmp_path / "tracker.duckdb"))


def test_sections_and_paragraphs_are_read_from_a_latexml_page():
    # Title block, abstract, navigation, table of contents, bibliography, table cells,
    # MathML tokens and annotations, error markers and scripts are left out.
    assert latexml_passages(PAGE) == EXPECTED_PASSAGES


def test_a_report_is_its_abstract_then_its_html_paragraphs(fake):
    fixtures, source = fake
    fetch = source.fetch(["2601.00001"], LOG)
    assert (fetch.missing, fetch.failed, fetch.requests) == ((), {}, 2)
    assert fetch.rows.schema == pl.Schema(RAW_REPORT_TEXTS.schema)
    assert fetch.rows.select("passage", "section", "text", "source").rows() == [
        (0, "Abstract", "We present Example-1, trained with GRPO.", "abstract"),
        *((index, section, text, "html") for index, (section, text) in enumerate(EXPECTED_PASSAGES, start=1)),
    ]
    assert set(fetch.rows["status"]) == {"full_text"}
    api, html = fixtures.requests
    assert api.path == "/api/query" and api.query == {"id_list": "2601.00001", "max_results": "1"}
    assert html.path == "/html/2601.00001"
    assert {request.headers["user-agent"] for request in fixtures.requests} == {USER_AGENT}


def test_a_report_without_html_rendering_keeps_its_abstract(fake):
    fixtures, source = fake
    texts = source.report_texts(["2601.00002"])
    assert texts.schema == pl.Schema(REPORT_TEXT_SCHEMA)
    assert texts.rows() == [("2601.00002", "Abstract", "We present Example-2, a mixture of experts.")]
    assert set(source.fetch(["2601.00002"], LOG).rows["status"]) == {"no_html"}


def test_all_abstracts_come_in_one_api_request(fake):
    fixtures, source = fake
    source.fetch(["2601.00002", "2601.00001"], LOG)
    assert fixtures.paths() == ["/api/query", "/html/2601.00002", "/html/2601.00001"]
    assert fixtures.requests[0].query["id_list"] == "2601.00002,2601.00001"


def test_a_503_then_a_200_is_retried_and_retry_after_is_honoured(fake):
    fixtures, source = fake
    slept: list[float] = []
    source.retry_policy.sleep = slept.append  # record the waits instead of waiting
    fixtures.queue(Fault(503), Fault(429, retry_after="7"))
    fetch = source.fetch(["2601.00001"], LOG)
    assert fetch.failed == {} and fetch.rows.height == 1 + len(EXPECTED_PASSAGES)
    assert fixtures.paths() == ["/api/query"] * 3 + ["/html/2601.00001"]
    assert slept[1] == 7.0


def test_requests_are_spaced(fake):
    fixtures, source = fake
    source.pacer.interval_s = 0.2
    source.fetch(["2601.00001", "2601.00002"], LOG)
    times = [request.at for request in fixtures.requests]
    assert len(times) == 3 and min(later - earlier for earlier, later in zip(times, times[1:])) >= 0.19


def test_a_report_that_keeps_failing_is_named_and_the_others_are_cached(fake, warehouse):
    fixtures, source = fake
    # The API answers; the first HTML page fails three times (every attempt), the second answers.
    fixtures.queue(Fault(), Fault(503), Fault(502), Fault(drop=True))
    with pytest.raises(ReportFetchError) as raised:
        cached_report_texts(warehouse, source, ["2601.00001", "2601.00002"], LOG)
    message = str(raised.value)
    assert "\n" not in message and "2601.00001" in message and "2601.00002" not in message
    assert "rerun" in message
    assert warehouse.read_table(RAW_REPORT_TEXTS)["report_id"].unique().to_list() == ["2601.00002"]
    # The next run asks only for the report that failed.
    fixtures.requests.clear()
    texts = cached_report_texts(warehouse, source, ["2601.00001", "2601.00002"], LOG)
    assert fixtures.paths() == ["/api/query", "/html/2601.00001"]
    assert texts["report_id"].unique(maintain_order=True).to_list() == ["2601.00001", "2601.00002"]


def test_the_cache_means_a_second_call_sends_no_request(fake, warehouse):
    fixtures, source = fake
    ids = ["2601.00001", "2601.00002"]
    first = cached_report_texts(warehouse, source, ids, LOG)
    assert len(fixtures.requests) == 3
    second = cached_report_texts(warehouse, source, ids, LOG)
    assert len(fixtures.requests) == 3
    assert first.equals(second) and first.schema == pl.Schema(REPORT_TEXT_SCHEMA)
    assert first.filter(pl.col("report_id") == "2601.00001")["section"].to_list() == [
        "Abstract",
        *(section for section, _ in EXPECTED_PASSAGES),
    ]
    # Forced: fetched again, and the cache still holds each report once.
    cached_report_texts(warehouse, source, ids, LOG, refresh=True)
    assert len(fixtures.requests) == 6
    assert warehouse.read_table(RAW_REPORT_TEXTS).height == first.height


def test_an_id_missing_from_the_api_answer_is_reported_and_not_cached(fake, warehouse, caplog):
    fixtures, source = fake
    with caplog.at_level(logging.WARNING, logger="test"):
        texts = cached_report_texts(warehouse, source, ["2601.00001", "2699.99999"], LOG)
    assert source.fetch(["2699.99999"], LOG).missing == ("2699.99999",)
    assert "/html/2699.99999" not in fixtures.paths()  # not asked: arXiv has no such paper
    assert texts["report_id"].unique().to_list() == ["2601.00001"]
    (warning,) = [record.getMessage() for record in caplog.records if "2699.99999" in record.getMessage()]
    assert "tech_reports.toml" in warning
    assert "2699.99999" not in warehouse.read_table(RAW_REPORT_TEXTS)["report_id"].to_list()


def test_the_fetchs_deadline_stops_asking(fake):
    fixtures, source = fake
    source.deadline_minutes = 0
    fetch = source.fetch(["2601.00001"], LOG)
    assert fixtures.requests == [] and "deadline" in fetch.failed["2601.00001"]


def test_unreachable_arxiv_fails_at_once_with_the_snapshot_hint(unused_port):
    source = LiveReportTextSource(f"http://127.0.0.1:{unused_port}/api/query", min_interval_s=0, backoff_s=0.01)
    with pytest.raises(SourceUnavailableError, match="--snapshot"):
        source.fetch(["2601.00001"], LOG)
    assert source.requests == 1


def test_a_timeout_is_retried():
    calls = []

    def answer(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        if len(calls) == 1:
            raise httpx.ReadTimeout("timed out", request=request)
        return httpx.Response(200, text=atom_feed("id_list=2601.00001", [], total=0, start=0))

    source = LiveReportTextSource(
        "http://arxiv.test/api/query", "http://arxiv.test/html", min_interval_s=0, backoff_s=0.01,
        transport=httpx.MockTransport(answer),
    )  # fmt: skip
    fetch = source.fetch(["2601.00001"], LOG)
    assert calls == ["/api/query", "/api/query"] and fetch.missing == ("2601.00001",)


def test_a_recorded_source_is_read_as_is_and_not_cached(tmp_path, warehouse):
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "reports.jsonl").write_text(
        '{"arxiv_id": "2601.00001", "passages": [{"section": "4.2 RL", "text": "We use GRPO."}]}\n'
    )
    texts = cached_report_texts(warehouse, SnapshotReportTextSource(tmp_path), ["2601.00001"], LOG)
    assert texts.rows() == [("2601.00001", "4.2 RL", "We use GRPO.")]
    assert warehouse.read_table(RAW_REPORT_TEXTS).height == 0
