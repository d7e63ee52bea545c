"""metrics.included_vs_peers and the exact Fisher test, on hand-computed tables."""

import polars as pl
import pytest

from assets.metrics.peers import PEERS_SCHEMA, fisher_exact_two_sided, included_vs_peers
from tests.metrics_fixtures import FRAMEWORKS, inclusions, observed, papers, screening, t


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        # Fisher's tea-tasting table: (16 + 1 + 16 + 1 + 1) / C(8, 4) = 34 / 70.
        ([3, 1, 1, 3], 0.4857142857142857),
        # The example of scipy.stats.fisher_exact's documentation.
        ([1, 9, 11, 3], 0.002759456185220083),
        # The two most extreme tables of C(10, 5) = 252: 2 / 252.
        ([0, 5, 5, 0], 2 / 252),
        ([5, 0, 0, 5], 2 / 252),
        ([2, 2, 2, 2], 1.0),
    ],
)
def test_fisher_exact_matches_known_two_sided_p_values(table, expected):
    assert fisher_exact_two_sided(*table) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("table", [[0, 0, 1, 1], [1, 1, 0, 0], [0, 2, 0, 3], [2, 0, 3, 0]])
def test_fisher_exact_is_none_when_a_margin_is_zero(table):
    assert fisher_exact_two_sided(*table) is None


PAPERS = papers(
    [
        ("2501.00001", "2025-01-05"),  # included; large; clip; code; no maintainer company
        ("2501.00002", "2025-01-06"),  # included; size unknown; new objective; ByteDance
        ("2501.00003", "2025-01-07"),  # peer; small; weight; code; no maintainer company
        ("2501.00004", "2025-01-08"),  # peer; small; no loss change; affiliation unknown
        ("2501.00005", "2025-01-09"),  # peer; large; no loss change; code; no maintainer company
        ("2504.00006", "2025-04-02"),  # Q2 peer (Q2's window is open): large
    ]
)
SCREENING = screening(
    PAPERS,
    large_policy={"2501.00001": True, "2501.00003": False, "2501.00004": False, "2501.00005": True, "2504.00006": True},
    loss_change_kind={
        "2501.00001": "clip", "2501.00002": "new_objective", "2501.00003": "weight",
        "2501.00004": "other", "2501.00005": "other", "2504.00006": "other",
    },
    code_released={"2501.00001": True, "2501.00002": False, "2501.00003": True, "2501.00004": False, "2501.00005": True, "2504.00006": False},
    maintainer_company={"2501.00001": "none", "2501.00002": "ByteDance", "2501.00003": "none", "2501.00005": "none", "2504.00006": "none"},
)  # fmt: skip
INCLUSIONS = inclusions([("2501.00001", "a", "2025-02-01"), ("2501.00002", "b", "2025-03-01")], PAPERS)
# Q1's window ends 2025-09-28: both frameworks observed past it; Q2's (2025-12-28) is open.
AS_OF = t("2025-11-01")
OBSERVED = observed({"a": "2025-10-30", "b": "2025-10-31"})


def _table() -> pl.DataFrame:
    return included_vs_peers(PAPERS, SCREENING, INCLUSIONS, OBSERVED, AS_OF, FRAMEWORKS)


def _row(cohort: str, feature: str, maintainers_excluded: bool) -> dict:
    table = _table()
    return table.filter(
        (pl.col("cohort") == cohort) & (pl.col("feature") == feature) & (pl.col("maintainers_excluded") == maintainers_excluded)
    ).row(0, named=True)


def test_rows_cover_every_cohort_feature_and_exclusion_then_pooled():
    table = _table()
    assert table.schema == pl.Schema(PEERS_SCHEMA)
    assert table["cohort"].unique(maintain_order=True).to_list() == ["2025-Q1", "2025-Q2", "2025-Q3", "2025-Q4", "pooled"]
    assert table.height == 5 * 3 * 2


def test_an_unknown_size_is_never_counted_as_small():
    row = _row("2025-Q1", "large_policy", False)
    # Included: 2501.00001 large, 2501.00002 unknown -> 1 known, 1 with, 1 unknown.
    # Peers: .00003 small, .00004 small, .00005 large -> 3 known, 1 with.
    assert (row["included_n"], row["included_with"], row["unknown_included"]) == (1, 1, 1)
    assert (row["peers_n"], row["peers_with"], row["unknown_peers"]) == (3, 1, 0)
    # [[1, 0], [1, 2]]: tables x = 0 and x = 1 both weigh C(1,x) C(3,2-x) = 3: p = 6 / 6.
    assert row["p_value"] == pytest.approx(1.0)


def test_loss_tweak_counts_coefficient_clip_mask_and_weight():
    row = _row("2025-Q1", "loss_tweak", False)
    # Included: clip yes, new_objective no; peers: weight yes, none, none.
    assert (row["included_n"], row["included_with"], row["peers_n"], row["peers_with"]) == (2, 1, 3, 1)


def test_maintainers_excluded_drops_maintainer_and_unknown_affiliations_and_reports_the_unknown():
    row = _row("2025-Q1", "large_policy", True)
    # Left: 2501.00001 (included, large), .00003 (small), .00005 (large); ByteDance's
    # .00002 and the unknown-affiliation .00004 are out.
    assert (row["included_n"], row["included_with"], row["peers_n"], row["peers_with"]) == (1, 1, 2, 1)
    assert (row["unknown_included"], row["unknown_peers"]) == (0, 0)
    assert (row["unknown_affiliation_included"], row["unknown_affiliation_peers"]) == (0, 1)


def test_pooled_covers_closed_cohorts_only():
    q2 = _row("2025-Q2", "large_policy", False)
    assert (q2["included_n"], q2["peers_n"], q2["peers_with"], q2["p_value"]) == (0, 1, 1, None)
    pooled = _row("pooled", "large_policy", False)
    # Q2 is provisional: its peer 2504.00006 is not pooled.
    assert (pooled["included_n"], pooled["peers_n"], pooled["peers_with"]) == (1, 3, 1)


def test_an_empty_cohort_is_zeros_with_no_p_value():
    row = _row("2025-Q4", "code_released", False)
    assert (row["included_n"], row["peers_n"], row["unknown_peers"], row["p_value"]) == (0, 0, 0, None)
