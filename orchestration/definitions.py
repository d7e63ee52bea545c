"""The code location: every asset, check, job, schedule and resource of the tracker."""

import dagster as dg

from assets.links import assets as links
from assets.metrics import assets as metrics
from assets.papers import assets as papers
from assets.sources import assets as sources
from assets.tracker import assets as tracker
from orchestration.cli import cli_logger
from orchestration.jobs import arxiv_harvest_job, cohort_metrics_job, derived_job, framework_refresh_job
from orchestration.resources import build_resources
from orchestration.schedules import daily_framework_refresh, daily_refresh, dead_runs_sensor, derived_tables_sensor

#: The asset modules; their assets carry their checks (check_specs run on the staged rows
#: before they are published: assets/audits.py).
asset_modules = [sources, papers, links, metrics, tracker]


def tracker_definitions(resources: dict[str, dg.ConfigurableResource]) -> dg.Definitions:
    """Every asset, check, job, schedule, sensor and logger, bound to `resources`."""
    return dg.Definitions(
        assets=dg.load_assets_from_modules(asset_modules),
        asset_checks=dg.load_asset_checks_from_modules(asset_modules),
        jobs=[arxiv_harvest_job, framework_refresh_job, derived_job, cohort_metrics_job],
        schedules=[daily_refresh, daily_framework_refresh],
        sensors=[derived_tables_sensor, dead_runs_sensor],
        resources=resources,
        # `console` stays the default (runs without logger config, as in the UI); `cli` is the
        # one-line-per-message output of `python -m orchestration run`.
        loggers={"console": dg.colored_console_logger, "cli": cli_logger},
    )


defs = tracker_definitions(build_resources())
