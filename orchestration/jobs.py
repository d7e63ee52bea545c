"""Jobs: the harvest of each kind of partitioned source, and the derived tables."""

import dagster as dg

from assets.frameworks import framework_sources_refresh
from assets.sources import arxiv_entries

#: Groups whose assets are computed from the sources, unpartitioned.
DERIVED_GROUPS = ("papers", "links")

arxiv_harvest_job = dg.define_asset_job(
    "arxiv_harvest",
    selection=dg.AssetSelection.assets(arxiv_entries),
    description="Fetch the arXiv submissions of the selected days (a range runs as one query).",
)

framework_refresh_job = dg.define_asset_job(
    "framework_refresh",
    selection=dg.AssetSelection.assets(framework_sources_refresh),
    description="Refresh one framework's commits, issues, pull requests, comments and contribution rules.",
)

derived_job = dg.define_asset_job(
    "derived_tables",
    selection=dg.AssetSelection.groups(*DERIVED_GROUPS),
    description="Recompute every table derived from the sources.",
)
