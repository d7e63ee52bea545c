"""Jobs: the harvest of each kind of partitioned source, and the derived tables."""

from datetime import date

import dagster as dg

#: Groups whose assets are computed from the sources, unpartitioned.
DERIVED_GROUPS = ("papers", "links")

#: Derived assets recompute when their inputs change, without waiting for every
#: upstream partition to exist (the harvest may cover only part of the window).
derived_automation = dg.AutomationCondition.eager().without(~dg.AutomationCondition.any_deps_missing())

# Public run tags that make one run cover a partition range (a single-run backfill).
RANGE_START_TAG = "dagster/asset_partition_range_start"
RANGE_END_TAG = "dagster/asset_partition_range_end"


def partition_range_tags(first_day: date, last_day: date) -> dict[str, str]:
    """Run tags asking for the daily partitions `first_day` .. `last_day` in one run."""
    return {RANGE_START_TAG: first_day.isoformat(), RANGE_END_TAG: last_day.isoformat()}


arxiv_harvest_job = dg.define_asset_job(
    "arxiv_harvest",
    selection=dg.AssetSelection.assets("arxiv_entries"),
    description="Fetch the arXiv submissions of the selected days (a range runs as one query).",
)

framework_refresh_job = dg.define_asset_job(
    "framework_refresh",
    selection=dg.AssetSelection.assets(
        "framework_commits", "framework_docs", "framework_threads", "framework_comments"
    ),
    description="Refresh one framework's commits, issues, pull requests, comments and contribution rules.",
)

#: The metrics partitioned by quarterly cohort (orchestration/partitions.py): their own job.
COHORT_METRICS = ("cohort_inclusion", "included_vs_peers", "time_to_inclusion")

#: The published tracker: built last, after the cohort metrics it shows.
TRACKER_SITE = "tracker_site"

#: What the derived-tables job and sensor recompute: the derived groups, the OpenAlex
#: lookup of the papers without affiliations, which screening reads, the metrics that
#: describe all cohorts at once, and the tracker's tables (the method switches).
DERIVED_SELECTION = (
    dg.AssetSelection.groups(*DERIVED_GROUPS)
    | dg.AssetSelection.assets("openalex_works")
    | (dg.AssetSelection.groups("metrics") - dg.AssetSelection.assets(*COHORT_METRICS))
    | (dg.AssetSelection.groups("tracker") - dg.AssetSelection.assets(TRACKER_SITE))
)

derived_job = dg.define_asset_job(
    "derived_tables",
    selection=DERIVED_SELECTION,
    description="Recompute every table derived from the sources.",
)

cohort_metrics_job = dg.define_asset_job(
    "cohort_metrics",
    selection=dg.AssetSelection.assets(*COHORT_METRICS, TRACKER_SITE),
    description="Recompute the cohort tables of the selected quarters (a range runs as one run), "
    "then the published tracker (site, open data, feed).",
)
