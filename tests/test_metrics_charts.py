"""Charts of the cohort metrics (assets/metrics/charts.py) from small invented tables:
each renders as PNG markdown and as inline SVG, the same table gives the same SVG bytes,
an empty table gives a "no data yet" figure, and hostile text stays text."""

import base64
import gc
import re
import subprocess
import sys
import weakref
import xml.etree.ElementTree as ET
from datetime import UTC, date, datetime
from pathlib import Path

import polars as pl
import pytest

from assets.metrics.charts import cohort_chart, peers_chart, png_markdown, survival_chart, svg_text
from assets.metrics.cohort_inclusion import COHORT_INCLUSION_SCHEMA
from assets.metrics.peers import PEERS_SCHEMA
from assets.metrics.time_to_inclusion import SURVIVAL_SCHEMA

AS_OF = datetime(2026, 1, 15, tzinfo=UTC)
HOSTILE = "<script>alert(1)</script> $\\frac{a}{$ ]](javascript:alert(1))"
SVG = "{http://www.w3.org/2000/svg}"


def cohort_inclusion(cohorts=("2025-Q1", "2025-Q3")) -> pl.DataFrame:
    """The `any` rows of two cohorts, the first closed and the second provisional, and one
    framework row the chart must leave out."""
    rows = [
        (cohort, "any", 40, 20, 9, 7 - index * 4, (7 - index * 4) / 20, index == 0, date(2025, 9, 27), AS_OF)
        for index, cohort in enumerate(cohorts)
    ]
    rows.append((cohorts[0], "a", 40, 20, 5, 4, 0.2, True, date(2025, 9, 27), AS_OF))
    return pl.DataFrame(rows, schema=COHORT_INCLUSION_SCHEMA, orient="row")


def time_to_inclusion(cohort="2025-Q1") -> pl.DataFrame:
    rows = [
        (cohort, 0.0, 4, 1, 0, 0.75, 0.13, 0.96),
        (cohort, 30.5, 3, 1, 2, 0.5, 0.06, 0.84),
        ("pooled", 0.0, 4, 1, 0, 0.75, 0.13, 0.96),
        ("pooled", 30.5, 3, 1, 2, 0.5, 0.06, 0.84),
    ]
    return pl.DataFrame(rows, schema=SURVIVAL_SCHEMA, orient="row")


def included_vs_peers(feature="large_policy", cohort="pooled") -> pl.DataFrame:
    rows = [
        (cohort, feature, False, 8, 5, 30, 6, 1, 7, 2, 3, 0.021),
        (cohort, "code_released", False, 9, 8, 37, 20, 0, 0, 2, 3, 0.0004),
        (cohort, feature, True, 5, 2, 20, 3, 1, 3, 2, 3, None),
        (cohort, "code_released", True, 6, 6, 22, 12, 0, 0, 2, 3, 0.06),
    ]
    return pl.DataFrame(rows, schema=PEERS_SCHEMA, orient="row")


CHARTS = {
    "cohort": (cohort_chart, cohort_inclusion),
    "survival": (survival_chart, time_to_inclusion),
    "peers": (peers_chart, included_vs_peers),
}


def texts(figure) -> list[str]:
    from matplotlib.text import Text

    return [text.get_text() for text in figure.findobj(Text)]


def parsed_svg(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root


def assert_inert(svg: str) -> None:
    """No script element, no event handler, no reference outside the SVG itself."""
    root = parsed_svg(svg)
    assert "<script" not in svg.lower() and "<!doctype" not in svg.lower()
    for element in root.iter():
        assert not element.tag.lower().endswith("script"), element.tag
        for name, value in element.attrib.items():
            assert not name.lower().startswith("on"), name
            if name.endswith("href"):
                assert value.startswith("#"), value


@pytest.mark.parametrize("name", CHARTS)
def test_a_chart_renders_as_png_markdown_and_inline_svg(name):
    chart, table = CHARTS[name]
    figure = chart(table())
    markdown = png_markdown(figure, f"{name} chart")
    svg = svg_text(figure)  # the same figure renders twice

    match = re.fullmatch(r"!\[(.*)\]\(data:image/png;base64,([A-Za-z0-9+/=]+)\)", markdown)
    assert match and match[1] == f"{name} chart"
    assert base64.b64decode(match[2]).startswith(b"\x89PNG\r\n\x1a\n")
    assert svg.startswith("<svg")
    assert_inert(svg)
    assert "<metadata" not in svg  # no date, no version: the bytes depend on the table only


def test_the_same_table_gives_the_same_svg_bytes():
    first, second = (svg_text(cohort_chart(cohort_inclusion())) for _ in range(2))
    assert first == second
    assert svg_text(cohort_chart(cohort_inclusion(("2025-Q1", "2025-Q4")))) != first


@pytest.mark.parametrize("name", CHARTS)
def test_an_empty_table_says_no_data_yet(name):
    chart, table = CHARTS[name]
    figure = chart(table().clear())
    assert "no data yet" in texts(figure)
    assert_inert(svg_text(figure))


def test_peers_without_pooled_rows_say_no_data_yet():
    figure = peers_chart(included_vs_peers(cohort="2025-Q3"))
    assert "no data yet" in texts(figure)
    assert "5/8" in texts(peers_chart(included_vs_peers(cohort="2025-Q3"), cohort="2025-Q3"))


def test_cohort_chart_hatches_the_provisional_cohort_and_says_so():
    figure = cohort_chart(cohort_inclusion())
    bars = list(figure.axes[0].patches)
    # general methods of Q1, Q3, then included within 180 days of Q1, Q3
    assert [bool(bar.get_hatch()) for bar in bars] == [False, True, False, True]
    assert [bar.get_height() for bar in bars] == [20, 20, 7, 3]
    shown = texts(figure)
    assert "2025-Q3\nprovisional" in shown and "2025-Q1" in shown
    assert "provisional: window still open" in shown
    assert "7\n35%" in shown and "3\n15%" in shown
    assert any("as of 2026-01-15" in text for text in shown)


def test_survival_chart_draws_a_step_curve_from_day_0_and_a_band_per_group():
    from matplotlib.collections import PolyCollection

    axes = survival_chart(time_to_inclusion()).axes[0]
    curves = {line.get_label(): line for line in axes.get_lines() if not line.get_label().startswith("_")}
    assert set(curves) == {"2025-Q1 (n=4)", "pooled (n=4)"}
    assert list(curves["pooled (n=4)"].get_xdata()) == [0.0, 0.0, 30.5]
    assert list(curves["pooled (n=4)"].get_ydata()) == [1.0, 0.75, 0.5]
    assert curves["pooled (n=4)"].get_drawstyle() == "steps-post"
    assert len([c for c in axes.collections if isinstance(c, PolyCollection)]) == 2


def test_peers_chart_shows_counts_and_p_values_in_two_panels():
    figure = peers_chart(included_vs_peers())
    shown = texts(figure)
    assert {"5/8", "6/30", "2/5", "3/20", "8/9", "20/37"} <= set(shown)
    assert "large policy (>= 30B)\np = 0.021\nunknown: 1 incl., 7 peers" in shown
    assert "large policy (>= 30B)\np = n/a\nunknown: 1 incl., 3 peers" in shown
    assert "code released\np < 0.001\nunknown: 0 incl., 0 peers" in shown
    assert [axes.get_title() for axes in figure.axes] == [
        "all general methods",
        "maintainer-company papers left out\n(also unknown affiliation: 2 incl., 3 peers)",
    ]


def test_hostile_labels_stay_plain_text():
    figures = [
        cohort_chart(cohort_inclusion((HOSTILE, "2025-Q3"))),
        survival_chart(time_to_inclusion(HOSTILE)),
        peers_chart(included_vs_peers(feature=HOSTILE)),
    ]
    for figure in figures:
        assert any(HOSTILE in text for text in texts(figure))  # shown as typed: no mathtext
        assert_inert(svg_text(figure))
    markdown = png_markdown(figures[0], f"cohorts {HOSTILE}\n<img src=x onerror=alert(1)>")
    # One image, whose only unescaped `](` opens the data URI; no raw `<`.
    assert len(re.findall(r"(?<!\\)\]\(", markdown)) == 1
    assert re.search(r"(?<!\\)<", markdown) is None
    assert "\n" not in markdown


def test_a_rendered_figure_is_freed_and_never_joins_pyplot():
    import matplotlib.pyplot as plt

    figure = cohort_chart(cohort_inclusion())
    svg_text(figure)
    freed = weakref.ref(figure)
    del figure
    gc.collect()
    assert freed() is None
    assert plt.get_fignums() == []


def test_loading_the_module_does_not_import_matplotlib():
    code = "import sys, assets.metrics.charts; print('matplotlib' in sys.modules)"
    root = Path(__file__).resolve().parents[1]
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, env={"PYTHONPATH": str(root)}, check=True
    )
    assert result.stdout.strip() == "False"
