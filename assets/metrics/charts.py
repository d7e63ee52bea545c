"""Charts of the cohort metrics, for the Dagster UI (PNG in markdown metadata) and the
static tracker site (inline SVG).

Pure functions: a metrics table (polars frame) in, a matplotlib Figure out; the renderers
turn a figure into markdown or SVG text. matplotlib is imported inside the functions so
loading the code location stays fast. Figures are built on an Agg canvas directly, never
through pyplot, so no figure is registered in pyplot's global list and none leaks in a
long run: a figure is freed with its last reference, and one figure can be rendered both
as PNG and as SVG.

Text from the data (cohort labels, feature names) is plain text: mathtext is off, so a
`$` is a dollar sign, and matplotlib's SVG writer escapes whatever it writes.
"""

from __future__ import annotations

import base64
import io
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import polars as pl

from assets.metrics.windows import ANY_FRAMEWORK, POOLED, WINDOW_DAYS

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: rcParams while a chart is built and rendered: plain-text labels, one bundled font drawn
#: as paths (renders the same offline and on every machine), fixed SVG ids (same input,
#: same bytes).
_STYLE = {
    "text.parse_math": False,
    "text.usetex": False,
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "svg.fonttype": "path",
    "svg.hashsalt": "inclusion-tracker",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "savefig.dpi": 100,
}
#: No date, creator or RDF block: they would vary between runs or versions, and the RDF
#: block names external URIs.
_NO_METADATA = {"svg": {"Date": None, "Creator": None, "Format": None, "Type": None}, "png": {"Software": None}}

_GENERAL, _INCLUDED, _PEERS = "#9aa5b1", "#1f77b4", "#ff7f0e"
FEATURE_LABELS = {
    "large_policy": "large policy (>= 30B)",
    "loss_tweak": "loss tweak",
    "code_released": "code released",
}


@contextmanager
def _style() -> Iterator[None]:
    import matplotlib

    with matplotlib.rc_context(_STYLE):
        yield


def _figure(width: float, height: float) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _no_data(figure: Figure, title: str, reason: str = "no data yet") -> Figure:
    axes = figure.add_subplot()
    axes.set_axis_off()
    axes.set_title(title)
    axes.text(0.5, 0.5, reason, ha="center", va="center", fontsize=12, color="#555555", transform=axes.transAxes)
    return figure


def _as_of_note(frame: pl.DataFrame) -> str:
    as_of = frame["as_of"].max() if "as_of" in frame.columns else None
    return "" if as_of is None else f" (as of {as_of:%Y-%m-%d})"


def cohort_chart(cohort_inclusion: pl.DataFrame) -> Figure:
    """Bars per cohort: general methods, and those included in any framework within 180
    days of v1 (the `any` rows of metrics.cohort_inclusion), with the share above. A
    provisional cohort's bars are lighter and hatched: its figures may still grow."""
    title = "General RL methods per cohort, and included within 180 days" + _as_of_note(cohort_inclusion)
    rows = cohort_inclusion.filter(pl.col("framework") == ANY_FRAMEWORK).sort("cohort")
    with _style():
        figure = _figure(7.5, 4)
        if rows.is_empty():
            return _no_data(figure, title)
        from matplotlib.patches import Patch

        axes = figure.add_subplot()
        width = 0.38
        positions = range(rows.height)
        provisional = (~rows["window_closed"].fill_null(False)).to_list()
        general = rows["general_methods"].to_list()
        within = rows["included_within_180d"].to_list()
        shares = [f"\n{share:.0%}" if share is not None else "" for share in rows["share_within_180d"].to_list()]
        for offset, counts, colour, notes in (
            (-width / 2, general, _GENERAL, [""] * rows.height),
            (width / 2, within, _INCLUDED, shares),
        ):
            bars = axes.bar([p + offset for p in positions], counts, width, color=colour, edgecolor=colour)
            for bar, open_window in zip(bars, provisional):
                if open_window:
                    bar.set_alpha(0.45)
                    bar.set_hatch("//")
                    bar.set_edgecolor("white")
            axes.bar_label(bars, [f"{count}{note}" for count, note in zip(counts, notes)], padding=2, fontsize=8)
        axes.set_ylim(0, max([*general, 1]) * 1.2)
        labels = [
            f"{cohort}\nprovisional" if open_window else str(cohort)
            for cohort, open_window in zip(rows["cohort"].to_list(), provisional)
        ]
        axes.set_xticks(list(positions), labels)
        axes.set_ylabel("papers")
        axes.set_title(title)
        figure.legend(
            handles=[
                Patch(color=_GENERAL, label="general methods"),
                Patch(color=_INCLUDED, label="included within 180 days (and share)"),
                Patch(facecolor="#cccccc", edgecolor="white", hatch="//", label="provisional: window still open"),
            ],
            loc="outside lower center",
            ncols=3,
            fontsize=8,
            frameon=False,
        )
        return figure


def _survival_steps(curve: pl.DataFrame) -> pl.DataFrame:
    """The curve with its start (day 0, nobody included yet) so the steps begin at 1."""
    start = pl.DataFrame({"day": [0.0], "survival": [1.0], "lower": [1.0], "upper": [1.0], "censored": [0]})
    return pl.concat([start, curve.select(start.columns)], how="vertical_relaxed")


def survival_chart(time_to_inclusion: pl.DataFrame) -> Figure:
    """Kaplan-Meier step curves of the share of general methods not yet included in any
    framework, by days since v1: one per cohort and the pooled one (black, thicker), the
    confidence band shaded, censorings marked with `+`."""
    title = "General RL methods not yet included in any framework"
    with _style():
        figure = _figure(8.5, 4.5)
        if time_to_inclusion.is_empty():
            return _no_data(figure, title)
        from matplotlib.ticker import PercentFormatter

        axes = figure.add_subplot()
        cohorts = sorted(set(time_to_inclusion["cohort"].to_list()) - {POOLED})
        for index, cohort in enumerate([*cohorts, POOLED]):
            curve = time_to_inclusion.filter(pl.col("cohort") == cohort).sort("day")
            if curve.is_empty():
                continue
            pooled = cohort == POOLED
            colour = "black" if pooled else f"C{index % 10}"
            steps = _survival_steps(curve)
            day, survival = steps["day"].to_list(), steps["survival"].to_list()
            axes.step(
                day,
                survival,
                where="post",
                color=colour,
                linewidth=2.2 if pooled else 1.3,
                label=f"{cohort} (n={curve['at_risk'][0]})",
            )
            axes.fill_between(
                day, steps["lower"].to_list(), steps["upper"].to_list(), step="post", color=colour, alpha=0.12, linewidth=0
            )
            censored = steps.filter(pl.col("censored") > 0)
            axes.plot(censored["day"].to_list(), censored["survival"].to_list(), "+", color=colour, markersize=7)
        axes.axvline(WINDOW_DAYS, color="#888888", linestyle=":", linewidth=1)
        axes.text(WINDOW_DAYS, 1.02, f" {WINDOW_DAYS} days", color="#555555", fontsize=8, va="bottom")
        axes.set_ylim(0, 1.08)
        axes.set_xlim(left=0)
        axes.yaxis.set_major_formatter(PercentFormatter(1.0))
        axes.set_xlabel("days since v1")
        axes.set_ylabel("share not yet included")
        axes.set_title(title + "\nKaplan-Meier estimate, 95% band shaded, + = censored")
        figure.legend(fontsize=8, frameon=False, loc="outside right upper")
        return figure


def _p_label(p_value: float | None) -> str:
    if p_value is None:
        return "p = n/a"
    return "p < 0.001" if p_value < 0.001 else f"p = {p_value:.3f}"


def _peers_panel(axes: Axes, rows: pl.DataFrame, title: str) -> None:
    """Horizontal bars per feature: share with the feature among included methods and
    among peers, `with/known` beside each bar, the p-value and unknown counts under the
    feature's name."""
    rows = rows.sort("feature")
    height = 0.38
    positions = list(range(rows.height))
    for offset, group, colour in ((-height / 2, "included", _INCLUDED), (height / 2, "peers", _PEERS)):
        known, having = rows[f"{group}_n"].to_list(), rows[f"{group}_with"].to_list()
        shares = [with_ / n if n else 0.0 for with_, n in zip(having, known)]
        bars = axes.barh([p + offset for p in positions], shares, height, color=colour, label=group)
        axes.bar_label(bars, [f"{w}/{n}" for w, n in zip(having, known)], padding=2, fontsize=8)
    labels = [
        f"{FEATURE_LABELS.get(feature, feature)}\n{_p_label(p)}\nunknown: {ui} incl., {up} peers"
        for feature, p, ui, up in rows.select("feature", "p_value", "unknown_included", "unknown_peers").iter_rows()
    ]
    axes.set_yticks(positions, labels)
    axes.invert_yaxis()
    axes.set_xlim(0, 1.15)
    axes.set_xticks([0, 0.25, 0.5, 0.75, 1.0], ["0%", "25%", "50%", "75%", "100%"])
    axes.set_xlabel("share with the feature (where known)")
    axes.set_title(title, fontsize=9)


def peers_chart(included_vs_peers: pl.DataFrame, cohort: str = POOLED) -> Figure:
    """Per feature, the share with it among included general methods vs their peers (the
    `cohort` rows of metrics.included_vs_peers, pooled by default): all general methods
    on the left, maintainer-company papers (and unknown affiliations) left out on the right."""
    title = f"Included general methods vs peers ({cohort})"
    rows = included_vs_peers.filter(pl.col("cohort") == cohort)
    with _style():
        figure = _figure(10, 4)
        if rows.is_empty():
            return _no_data(figure, title)
        figure.suptitle(title)
        panels = figure.subplots(1, 2, sharex=True)
        for axes, excluded in zip(panels, (False, True)):
            subset = rows.filter(pl.col("maintainers_excluded") == excluded)
            heading = "maintainer-company papers left out" if excluded else "all general methods"
            if excluded and "unknown_affiliation_included" in subset.columns and not subset.is_empty():
                heading += (
                    f"\n(also unknown affiliation: {subset['unknown_affiliation_included'].max()} incl., "
                    f"{subset['unknown_affiliation_peers'].max()} peers)"
                )
            if subset.is_empty():
                axes.set_axis_off()
                axes.set_title(heading, fontsize=9)
                axes.text(0.5, 0.5, "no data yet", ha="center", va="center", transform=axes.transAxes)
                continue
            _peers_panel(axes, subset, heading)
        panels[0].legend(fontsize=8, frameon=False, loc="lower right")
        return figure


def _rendered(figure: Figure, image_format: str) -> bytes:
    buffer = io.BytesIO()
    with _style():
        figure.savefig(buffer, format=image_format, metadata=_NO_METADATA[image_format])
    return buffer.getvalue()


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#!|])")


def png_markdown(figure: Figure, alt: str) -> str:
    """The figure as a markdown image with a base64 PNG data URI (for MetadataValue.md);
    `alt` is plain text."""
    alt_text = _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(alt.split()))
    encoded = base64.b64encode(_rendered(figure, "png")).decode("ascii")
    return f"![{alt_text}](data:image/png;base64,{encoded})"


def svg_text(figure: Figure) -> str:
    """The figure as an `<svg>` element to inline in HTML: glyphs as paths, no XML
    declaration or DOCTYPE (which names an external DTD), no metadata, no scripts; the
    same figure gives the same text."""
    text = _rendered(figure, "svg").decode("utf-8")
    return text[text.index("<svg") :]
