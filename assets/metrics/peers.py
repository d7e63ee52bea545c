"""metrics.included_vs_peers: do included general methods differ from the other general
methods of the same quarters? Per cohort, and `pooled` over the cohorts whose window is
closed (a provisional cohort's peers may still be included).

`included` = included in at least one framework by the as-of date; `peers` = the other
general methods of the same cohort(s). Features (null = unknown):

- `large_policy`: the largest policy trained has >= 30B parameters;
- `loss_tweak`: `loss_change_kind` is a coefficient, clip, mask or weight in an existing loss;
- `code_released`: the paper links a code repository.

Each feature is reported twice: over all general methods (`maintainers_excluded` false)
and over those whose authors are known to have no maintainer-company affiliation
(`maintainers_excluded` true: maintainer-company papers AND papers of unknown
affiliation are left out, the latter counted in `unknown_affiliation_*`).

| column | meaning |
|---|---|
| `cohort` | `2025-Q2`, or `pooled` |
| `feature` | large_policy, loss_tweak, code_released |
| `maintainers_excluded` | see above |
| `included_n`, `peers_n` | included methods / peers whose feature is known |
| `included_with`, `peers_with` | of those, how many have the feature |
| `unknown_included`, `unknown_peers` | feature unknown: in neither count (an unknown size is never "small") |
| `unknown_affiliation_included`, `unknown_affiliation_peers` | methods of the scope whose affiliation is unknown (left out of the `maintainers_excluded` rows) |
| `p_value` | two-sided Fisher's exact test on [[included_with, included_n - included_with], [peers_with, peers_n - peers_with]]; null when a margin is 0 |
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from math import comb

import polars as pl

from assets.papers.affiliations import NO_MAINTAINER_COMPANY
from assets.metrics.cohort_inclusion import earliest_inclusions, general_methods, inclusions_as_of
from assets.metrics.windows import ANY_FRAMEWORK, POOLED, cohort_windows, cohorts_through, utc_as_of
from orchestration.tables import METRICS_INCLUDED_VS_PEERS

#: Loss changes that tweak an existing loss rather than replace it.
LOSS_TWEAK_KINDS = ("coefficient", "clip", "mask", "weight")

FEATURES: dict[str, pl.Expr] = {
    "large_policy": pl.col("large_policy"),
    "loss_tweak": pl.col("loss_change_kind").is_in(list(LOSS_TWEAK_KINDS)),
    "code_released": pl.col("code_released"),
}

PEERS_SCHEMA = METRICS_INCLUDED_VS_PEERS.schema


def fisher_exact_two_sided(a: int, b: int, c: int, d: int) -> float | None:
    """Two-sided p-value of Fisher's exact test on [[a, b], [c, d]]: the probability,
    under fixed margins, of every table no more likely than the observed one. Exact:
    the hypergeometric terms share the denominator C(n, a + c), so their numerators
    C(a + b, x) * C(c + d, a + c - x) are compared as integers. None when a margin is 0."""
    row1, row2, col1 = a + b, c + d, a + c
    n = row1 + row2
    if min(row1, row2, col1, n - col1) == 0:
        return None
    weights = {x: comb(row1, x) * comb(row2, col1 - x) for x in range(max(0, col1 - row2), min(row1, col1) + 1)}
    observed = weights[a]
    return sum(weight for weight in weights.values() if weight <= observed) / comb(n, col1)


def _with_scopes(methods: pl.DataFrame, closed_cohorts: Sequence[str]) -> pl.DataFrame:
    """Each method once under its cohort, and once more under `pooled` if its cohort is closed."""
    pooled = methods.filter(pl.col("cohort").is_in(list(closed_cohorts))).with_columns(scope=pl.lit(POOLED))
    return pl.concat([methods.with_columns(scope=pl.col("cohort")), pooled])


def included_vs_peers(
    papers: pl.DataFrame,
    screening: pl.DataFrame,
    inclusions: pl.DataFrame,
    observed: pl.DataFrame,
    as_of: datetime,
    frameworks: Sequence[str],
) -> pl.DataFrame:
    """metrics.included_vs_peers (PEERS_SCHEMA; see the module docstring): one row per
    (each cohort up to the as-of quarter, then `pooled`) x feature x maintainers_excluded."""
    as_of = utc_as_of(as_of)
    cohorts = cohorts_through(as_of)
    included = earliest_inclusions(inclusions_as_of(inclusions, as_of, frameworks))
    affiliation = pl.col("maintainer_company")
    methods = (
        general_methods(papers, screening, as_of)
        .with_columns(
            included=pl.col("arxiv_id").is_in(included["arxiv_id"].implode()),
            known_non_maintainer=(affiliation == NO_MAINTAINER_COMPANY).fill_null(False),
            unknown_affiliation=affiliation.is_null(),
            **FEATURES,
        )
    )
    windows = cohort_windows(cohorts, observed, as_of, frameworks)
    closed = windows.filter((pl.col("framework") == ANY_FRAMEWORK) & pl.col("window_closed"))["cohort"].to_list()
    scoped = _with_scopes(methods, closed)
    long = scoped.unpivot(
        on=list(FEATURES),
        index=["scope", "arxiv_id", "included", "known_non_maintainer", "unknown_affiliation"],
        variable_name="feature",
        value_name="has",
    )
    both = pl.concat(
        [
            long.with_columns(maintainers_excluded=pl.lit(False)),
            long.filter("known_non_maintainer").with_columns(maintainers_excluded=pl.lit(True)),
        ]
    )
    inc, known = pl.col("included"), pl.col("has").is_not_null()
    counts = both.group_by("scope", "feature", "maintainers_excluded").agg(
        included_n=(inc & known).sum(),
        included_with=(inc & pl.col("has")).sum(),
        peers_n=(~inc & known).sum(),
        peers_with=(~inc & pl.col("has")).sum(),
        unknown_included=(inc & ~known).sum(),
        unknown_peers=(~inc & ~known).sum(),
    )
    unknown_affiliations = scoped.group_by("scope").agg(
        unknown_affiliation_included=(pl.col("unknown_affiliation") & inc).sum(),
        unknown_affiliation_peers=(pl.col("unknown_affiliation") & ~inc).sum(),
    )
    # Every scope x feature x exclusion gets a row, an empty cohort one of zeros.
    grid = (
        pl.DataFrame({"scope": [*cohorts, POOLED]})
        .join(pl.DataFrame({"feature": list(FEATURES)}), how="cross")
        .join(pl.DataFrame({"maintainers_excluded": [False, True]}), how="cross")
        .with_row_index("_order")
    )
    count_columns = [column for column in PEERS_SCHEMA if column.endswith(("_n", "_with", "_included", "_peers"))]
    table = (
        grid.join(counts, on=["scope", "feature", "maintainers_excluded"], how="left")
        .join(unknown_affiliations, on="scope", how="left")
        .with_columns(pl.col(count_columns).fill_null(0))
        .sort("_order")
    )
    p_values = [
        fisher_exact_two_sided(row["included_with"], row["included_n"] - row["included_with"],
                               row["peers_with"], row["peers_n"] - row["peers_with"])
        for row in table.select("included_with", "included_n", "peers_with", "peers_n").iter_rows(named=True)
    ]  # fmt: skip
    return (
        table.with_columns(p_value=pl.Series(p_values, dtype=pl.Float64))
        .rename({"scope": "cohort"})
        .select(list(PEERS_SCHEMA))
        .cast(PEERS_SCHEMA)
    )
