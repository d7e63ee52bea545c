"""The code location: every asset, check, job, schedule and resource of the tracker."""

import dagster as dg

from assets.links import assets as links
from assets.papers import assets as papers
from assets.sources import assets as sources
from checks import links as link_checks
from orchestration.jobs import arxiv_harvest_job, derived_job, framework_refresh_job
from orchestration.resources import build_resources
from orchestration.schedules import daily_framework_refresh, daily_refresh, derived_tables_sensor

asset_modules = [sources, papers, links]
#: Modules with asset checks only (they import the assets they check).
check_modules = [link_checks]



def tracker_definitions(resources: dict[str, dg.ConfigurableResource]) -> dg.Definitions:
    """Every asset, check, job, schedule and sensor, bound to `resources`."""
    return dg.Definitions(
        assets=dg.load_assets_from_modules(asset_modules),
        asset_checks=dg.load_asset_checks_from_modules([*asset_modules, *check_modules]),
        jobs=[arxiv_harvest_job, framework_refresh_job, derived_job],
        schedules=[daily_refresh, daily_framework_refresh],
        sensors=[derived_tables_sensor],
        resources=resources,
    )


defs = tracker_definitions(build_resources())
