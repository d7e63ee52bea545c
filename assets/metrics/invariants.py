"""What must hold in every metrics table, whatever the data: shares are shares, counts add
up, every cohort has all its rows, provisional flags agree with the as-of date, and a
window once closed stays closed. Each function returns the problems found (empty: none),
for the blocking checks the metrics assets run on their staged rows (assets/audits.py)."""

from __future__ import annotations

import polars as pl

from assets.metrics.windows import ANY_FRAMEWORK

_SHOWN = 5
STATED_KINDS = ("named", "parts", "no", "no_text")


def _problems(frame: pl.DataFrame, rules: dict[str, pl.Expr], key: list[str]) -> list[str]:
    """One line per violated rule (an expression true on the rows that break it), with examples."""
    found = []
    for description, broken in rules.items():
        bad = frame.filter(broken.fill_null(False))
        if bad.height:
            examples = [", ".join(str(value) for value in row) for row in bad.select(key).head(_SHOWN).iter_rows()]
            found.append(f"{description}: {bad.height} row(s), e.g. {examples}")
    return found


def _share_outside_unit(share: pl.Expr) -> pl.Expr:
    return share.is_not_null() & ((share < 0) | (share > 1))


def cohort_inclusion_problems(rows: pl.DataFrame, frameworks: list[str]) -> list[str]:
    """Shares in [0, 1] and equal to their counts; 0 <= within 180 days <= included <=
    general methods <= papers; no framework beyond `any`; one row per cohort and each of
    `any` + the frameworks; a closed window only once the as-of date is past it."""
    any_rows = rows.filter(pl.col("framework") == ANY_FRAMEWORK).select(
        "cohort", any_included="included", any_closed="window_closed"
    )
    joined = rows.join(any_rows, on="cohort", how="left")
    rules = {
        "share_within_180d outside [0, 1]": _share_outside_unit(pl.col("share_within_180d")),
        "share_within_180d is not included_within_180d / general_methods": (
            (pl.col("share_within_180d") - pl.col("included_within_180d") / pl.col("general_methods")).abs() > 1e-9
        )
        | (pl.col("share_within_180d").is_null() != (pl.col("general_methods") == 0)),
        "counts do not add up (0 <= within 180d <= included <= general methods <= papers)": (
            (pl.col("included_within_180d") < 0)
            | (pl.col("included_within_180d") > pl.col("included"))
            | (pl.col("included") > pl.col("general_methods"))
            | (pl.col("general_methods") > pl.col("papers"))
        ),
        "a framework included more methods than any framework": pl.col("included") > pl.col("any_included"),
        "the any window is closed while a framework's is open": pl.col("any_closed") & ~pl.col("window_closed"),
        "a window is closed before the as-of date passed it": pl.col("window_closed")
        & (pl.col("as_of").dt.date() <= pl.col("provisional_until")),
    }
    found = _problems(joined, rules, ["cohort", "framework"])
    expected = {ANY_FRAMEWORK, *frameworks}
    per_cohort = rows.group_by("cohort").agg(pl.col("framework").sort())
    for cohort, present in per_cohort.sort("cohort").iter_rows():
        if sorted(present) != sorted(expected):
            found.append(f"cohort {cohort}: frameworks {sorted(present)}, expected one row each of {sorted(expected)}")
    return found


def reopened_windows(stored: pl.DataFrame, rows: pl.DataFrame) -> list[str]:
    """(cohort, framework) pairs whose window the stored table had closed and the new rows
    open again: the data went backwards (a history rewritten, a source lost)."""
    reopened = stored.filter(pl.col("window_closed")).join(
        rows.filter(~pl.col("window_closed")), on=["cohort", "framework"], how="semi"
    )
    return [f"window reopened: {cohort} in {framework}" for cohort, framework in reopened.select("cohort", "framework").iter_rows()]


def peers_problems(rows: pl.DataFrame) -> list[str]:
    rules = {
        "p_value outside [0, 1]": _share_outside_unit(pl.col("p_value")),
        "counts do not add up (0 <= with <= n)": (pl.col("included_with") < 0)
        | (pl.col("included_with") > pl.col("included_n"))
        | (pl.col("peers_with") < 0)
        | (pl.col("peers_with") > pl.col("peers_n")),
        "negative unknown counts": (pl.col("unknown_included") < 0) | (pl.col("unknown_peers") < 0),
    }
    found = _problems(rows, rules, ["cohort", "feature", "maintainers_excluded"])
    scopes = rows.group_by("cohort", "feature").agg(pl.col("maintainers_excluded").n_unique())
    incomplete = scopes.filter(pl.col("maintainers_excluded") != 2)
    if incomplete.height:
        found.append(f"cohort x feature without both scopes: {incomplete.select('cohort', 'feature').rows()[:_SHOWN]}")
    return found


def survival_problems(rows: pl.DataFrame) -> list[str]:
    ordered = rows.sort("cohort", "day").with_columns(previous=pl.col("survival").shift(1).over("cohort"))
    rules = {
        "survival outside [0, 1]": _share_outside_unit(pl.col("survival")),
        "survival not inside its band": (pl.col("lower") > pl.col("survival") + 1e-12)
        | (pl.col("upper") < pl.col("survival") - 1e-12),
        "survival rises over time": pl.col("survival") > pl.col("previous") + 1e-12,
        "more events and censorings than methods at risk": pl.col("events") + pl.col("censored") > pl.col("at_risk"),
    }
    return _problems(ordered, rules, ["cohort", "day"])


def coverage_problems(rows: pl.DataFrame) -> list[str]:
    """metrics.thread_coverage: shares are shares of their totals."""
    rules = {
        "share outside [0, 1]": _share_outside_unit(pl.col("share")),
        "count above total": pl.col("count") > pl.col("total"),
    }
    return _problems(rows, rules, ["framework", "measure"])


def failure_coverage_problems(rows: pl.DataFrame) -> list[str]:
    rules = {
        "share_without_report outside [0, 1]": _share_outside_unit(pl.col("share_without_report")),
        "more implementations with a report than implementations": pl.col("with_failure_report")
        > pl.col("implementations"),
    }
    return _problems(rows, rules, ["framework"])


def first_inclusion_problems(rows: pl.DataFrame) -> list[str]:
    rules = {
        "rank outside 1 .. frameworks": (pl.col("rank") < 1) | (pl.col("rank") > pl.col("frameworks")),
        "included before the first inclusion": pl.col("days_after_first") < 0,
    }
    return _problems(rows, rules, ["arxiv_id", "framework"])


def tech_report_problems(rows: pl.DataFrame) -> list[str]:
    rules = {
        f"stated not one of {list(STATED_KINDS)}": ~pl.col("stated").is_in(list(STATED_KINDS)),
        "named or parts without the sentence that states it": pl.col("stated").is_in(["named", "parts"])
        & pl.col("evidence").is_null(),
    }
    return _problems(rows, rules, ["report_id", "arxiv_id"])
