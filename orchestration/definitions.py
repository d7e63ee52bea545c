"""The code location: every asset, check, job, schedule and resource of the tracker."""

import dagster as dg

from assets.links import assets as links
from assets.links.inclusions import read_inclusion_overrides
from assets.metrics import assets as metrics
from assets.papers import assets as papers
from assets.papers.affiliations import read_affiliation_overrides
from assets.papers.aliases import read_alias_overrides
from assets.papers.screening import read_screening_overrides
from assets.sources import assets as sources
from assets.tracker import assets as tracker
from orchestration.cli import cli_logger
from orchestration.jobs import arxiv_harvest_job, cohort_metrics_job, derived_job, framework_refresh_job
from orchestration.maintenance import warehouse_maintenance, weekly_compaction
from orchestration.resources import Curation, build_resources
from orchestration.schedules import daily_framework_refresh, daily_refresh, dead_runs_sensor, derived_tables_sensor

#: The asset modules; their assets carry their checks (check_specs run on the staged rows
#: before they are published: assets/audits.py).
asset_modules = [sources, papers, links, metrics, tracker]


#: Each curation file and the reader that validates it (as the assets read it).
CURATION_READERS = {
    "screening.csv": read_screening_overrides,
    "aliases.csv": read_alias_overrides,
    "affiliations.csv": read_affiliation_overrides,
    "inclusions.csv": read_inclusion_overrides,
}


def check_curation(curation: Curation) -> None:
    """Reads every curation file as its asset will: a malformed row raises OverrideError
    (`file:line: column value: reason`) before any run starts."""
    with dg.build_resources({"curation": curation}) as built:  # resolves TRACKER_OVERRIDES_DIR
        for name, read in CURATION_READERS.items():
            read(built.curation.path(name))


def tracker_definitions(resources: dict[str, dg.ConfigurableResource]) -> dg.Definitions:
    """Every asset, check, job, schedule, sensor and logger, bound to `resources`."""
    return dg.Definitions(
        assets=dg.load_assets_from_modules(asset_modules),
        asset_checks=dg.load_asset_checks_from_modules(asset_modules),
        jobs=[arxiv_harvest_job, framework_refresh_job, derived_job, cohort_metrics_job, warehouse_maintenance],
        schedules=[daily_refresh, daily_framework_refresh, weekly_compaction],
        sensors=[derived_tables_sensor, dead_runs_sensor],
        resources=resources,
        # `console` stays the default (runs without logger config, as in the UI); `cli` is the
        # one-line-per-message output of `python -m orchestration run`.
        loggers={"console": dg.colored_console_logger, "cli": cli_logger},
    )


defs = tracker_definitions(build_resources())
