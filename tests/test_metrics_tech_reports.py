"""metrics.tech_report_coverage, its configuration and the recorded report text."""

import json

import polars as pl
import pytest

from assets.metrics.tech_reports import TECH_REPORT_COVERAGE_SCHEMA, report_sentences, tech_report_coverage
from orchestration.clients.reports import (
    REPORT_TEXT_SCHEMA,
    SnapshotReportTextSource,
    parse_tech_report_config,
    tech_report_config,
)
from orchestration.settings import ConfigError
from tests.helpers import shared_snapshots
from tests.metrics_fixtures import inclusions, papers, t
from orchestration.tables import CORE_PAPER_ALIASES

FRAMEWORKS = ["a", "b", "c"]
AS_OF = t("2025-12-31")
PAPERS = papers([("2503.14476", "2025-03-18"), ("2507.18071", "2025-07-24"), ("2505.00003", "2025-05-01")]).with_columns(
    title=pl.Series(["DAPO: An Open-Source LLM Reinforcement Learning System at Scale", "Group Sequence Policy Optimization", "A Rarely Included Method For Things"])
)  # fmt: skip
ALIASES = pl.DataFrame(
    [
        ("2503.14476", "DAPO", "dapo", "title_prefix", False, True),
        ("2507.18071", "GSPO", "gspo", "acronym", False, True),
        ("2505.00003", "RIM", "rim", "acronym", False, True),
    ],
    schema=CORE_PAPER_ALIASES.schema,
    orient="row",
)
# DAPO and GSPO are in all three frameworks (widely included at K = 3); the third in two.
INCLUSIONS = inclusions(
    [(paper, framework, "2025-09-01") for paper in ("2503.14476", "2507.18071") for framework in FRAMEWORKS]
    + [("2505.00003", "a", "2025-09-01"), ("2505.00003", "b", "2025-09-01")],
    PAPERS,
)
CONFIG = parse_tech_report_config(
    {
        "widely_included_frameworks": 3,
        "report": [
            {"arxiv_id": "2601.00001", "model": "Big-1", "open_weights": True, "total_params_b": 100},
            {"arxiv_id": "2601.00002", "model": "Big-2", "open_weights": True},
            {"arxiv_id": "2601.00003", "model": "Big-3", "open_weights": False},
        ],
        "method_part": [
            {"arxiv_id": "2503.14476", "part": "clip-higher", "phrases": ["clip-higher"], "reason": "DAPO's raised upper clip"},
            {"arxiv_id": "2503.14476", "part": "dynamic sampling", "phrases": ["dynamic sampling"], "reason": "DAPO's term"},
        ],
    }
)
TEXTS = pl.DataFrame(
    [
        ("2601.00001", "RL", "We adopt DAPO (Yu et al., 2025) for stability. The dapo-style filter is off."),
        ("2601.00001", "RL", "Following arXiv:2507.18071v2, ratios are per sequence."),
        # Parts of DAPO, never its name; "gspo" in lower case is not the acronym.
        ("2601.00002", "RL", "We use Clip higher to avoid entropy collapse. • We also apply dynamic sampling. A gspo run failed."),
    ],
    schema=REPORT_TEXT_SCHEMA,
    orient="row",
)


def _coverage() -> pl.DataFrame:
    return tech_report_coverage(
        CONFIG.report_frame(), TEXTS, PAPERS, ALIASES, INCLUSIONS, CONFIG.naming_frame(), CONFIG.part_frame(),
        AS_OF, FRAMEWORKS, CONFIG.widely_included_frameworks,
    )  # fmt: skip


def test_a_report_names_a_method_by_alias_or_arxiv_id_with_the_sentence():
    table = _coverage()
    assert table.schema == pl.Schema(TECH_REPORT_COVERAGE_SCHEMA)
    # Reports in configuration order x the two widely included methods (the third is in 2 frameworks).
    assert table.select("report_id", "method", "stated").rows() == [
        ("2601.00001", "DAPO", "named"),
        ("2601.00001", "GSPO", "named"),
        ("2601.00002", "DAPO", "parts"),
        ("2601.00002", "GSPO", "no"),
        ("2601.00003", "DAPO", "no_text"),
        ("2601.00003", "GSPO", "no_text"),
    ]
    evidence = table["evidence"].to_list()
    assert evidence[0] == "We adopt DAPO (Yu et al., 2025) for stability."
    assert evidence[1] == "Following arXiv:2507.18071v2, ratios are per sequence."


def test_parts_of_a_method_are_reported_apart_from_naming_it():
    row = _coverage().row(2, named=True)
    assert row["evidence"] == (
        "clip-higher: We use Clip higher to avoid entropy collapse. | dynamic sampling: • We also apply dynamic sampling."
    )
    assert _coverage()["evidence"][3] is None


def test_configured_names_replace_a_papers_own_aliases():
    config = parse_tech_report_config(
        {
            "report": [{"arxiv_id": "2601.00001", "model": "Big-1", "open_weights": True}],
            "method": [{"arxiv_id": "2503.14476", "name": "Decoupled Clip", "aliases": ["DCDS"], "reason": "test"}],
        }
    )
    table = tech_report_coverage(
        config.report_frame(), TEXTS, PAPERS, ALIASES, INCLUSIONS, config.naming_frame(), config.part_frame(),
        AS_OF, FRAMEWORKS,
    )  # fmt: skip
    # "DAPO" no longer names it (the title and id still would); the table shows the configured name.
    assert table.filter(pl.col("arxiv_id") == "2503.14476").select("method", "stated").row(0) == ("Decoupled Clip", "no")


def test_sentences_split_at_full_stops_and_bullets():
    sentences = report_sentences(TEXTS.filter(pl.col("report_id") == "2601.00002"))["text"].to_list()
    assert sentences == ["We use Clip higher to avoid entropy collapse.", "• We also apply dynamic sampling.", "A gspo run failed."]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"report": []}, "no \\[\\[report\\]\\] entries"),
        ({"widely_included_frameworks": 0, "report": [{}]}, "positive integer"),
        ({"report": [{"arxiv_id": "2501.1", "model": "M", "open_weights": True}]}, "report #1 .*arXiv id"),
        ({"report": [{"arxiv_id": "2501.12948", "model": "M"}]}, "report #1 \\(2501.12948\\): 'open_weights'"),
        (
            {"report": [{"arxiv_id": "2501.12948", "model": "M", "open_weights": True}],
             "method_part": [{"arxiv_id": "2503.14476", "part": "p", "phrases": ["x"]}]},
            "method_part #1 \\(2503.14476\\): 'reason'",
        ),
        (
            {"report": [{"arxiv_id": "2501.12948", "model": "M", "open_weights": True}] * 2},
            "listed twice: \\['2501.12948'\\]",
        ),
    ],
)  # fmt: skip
def test_config_errors_name_the_entry_and_the_fix(raw, message):
    with pytest.raises(ConfigError, match=message):
        parse_tech_report_config(raw)


def test_the_shipped_configuration_loads():
    config = tech_report_config()
    assert config.widely_included_frameworks == 3
    assert len(config.reports) == 19
    assert all(part.reason for part in config.method_parts)


def test_a_malformed_recorded_report_line_names_the_file_and_line(tmp_path):
    (tmp_path / "reports").mkdir()
    good = json.dumps({"arxiv_id": "2601.00001", "passages": [{"section": "RL", "text": "We adopt DAPO."}]})
    (tmp_path / "reports" / "reports.jsonl").write_text(good + "\n{\"arxiv_id\": \"2601.00002\", \"passages\": [{}]}\n")
    with pytest.raises(ValueError, match=r"reports\.jsonl:2: not a report record"):
        SnapshotReportTextSource(tmp_path).report_texts(["2601.00001"])


@pytest.mark.snapshots
def test_the_recorded_reports_cover_every_configured_report():
    snapshots = shared_snapshots()
    config = tech_report_config()
    texts = SnapshotReportTextSource(snapshots).report_texts([report.arxiv_id for report in config.reports])
    assert texts.schema == pl.Schema(REPORT_TEXT_SCHEMA)
    assert set(texts["report_id"]) == {report.arxiv_id for report in config.reports}
    # DAPO, included in three invented frameworks: Seed1.5-Thinking's excerpts name it,
    # Magistral's state only its clip-higher.
    dapo = PAPERS.filter(pl.col("arxiv_id") == "2503.14476")
    table = tech_report_coverage(
        config.report_frame(), texts, dapo, ALIASES, INCLUSIONS, config.naming_frame(), config.part_frame(),
        AS_OF, FRAMEWORKS, config.widely_included_frameworks,
    )  # fmt: skip
    stated = dict(table.filter(pl.col("arxiv_id") == "2503.14476").select("report_id", "stated").rows())
    assert len(stated) == 19
    assert stated["2504.13914"] == "named"
    assert stated["2506.10910"] == "parts"
    assert stated["2501.12948"] == "no"
