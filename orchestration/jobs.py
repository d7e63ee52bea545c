"""Jobs: the daily harvest of the partitioned sources, and the derived tables."""

import dagster as dg

from assets.sources import arxiv_entries

#: Groups whose assets are computed from the sources, unpartitioned.
DERIVED_GROUPS = ("papers",)

arxiv_harvest_job = dg.define_asset_job(
    "arxiv_harvest",
    selection=dg.AssetSelection.assets(arxiv_entries),
    description="Fetch the arXiv submissions of the selected days (a range runs as one query).",
)

derived_job = dg.define_asset_job(
    "derived_tables",
    selection=dg.AssetSelection.groups(*DERIVED_GROUPS),
    description="Recompute every table derived from the sources.",
)
