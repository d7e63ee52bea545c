"""Dagster resources: the warehouse and one resource per source, configured by environment."""

from __future__ import annotations

import logging
from collections.abc import MutableMapping
from pathlib import Path

import dagster as dg
import polars as pl
from pydantic import Field

from orchestration.clients.reports import (
    ARXIV_HTML_URL,
    LiveReportTextSource,
    ReportTextSource,
    SnapshotReportTextSource,
)
from orchestration.clients.arxiv import ArxivClient, LiveArxivClient, SnapshotArxivClient
from orchestration.clients.git import DEFAULT_REMOTE_URL_TEMPLATE, CommitSource, GitMirrorCommits, SnapshotCommits
from orchestration.clients.github import GithubApiThreads, GithubClient, SnapshotThreads, ThreadSource
from orchestration.clients.openalex import DEFAULT_API_URL as DEFAULT_OPENALEX_API_URL
from orchestration.clients.openalex import AffiliationLookup, OpenAlexClient
from orchestration.clients.recorded_affiliations import AFFILIATION_SCHEMA, read_snapshot_affiliations
from orchestration.curation import OVERRIDES_DIR
from orchestration.settings import arxiv_query
from orchestration.warehouse import DUCKDB, Warehouse, WarehouseSetting, parse_warehouse_setting

DEFAULT_DUCKDB_PATH = "data/tracker.duckdb"
DEFAULT_ARXIV_API_URL = "https://export.arxiv.org/api/query"
DEFAULT_GITHUB_API_URL = "https://api.github.com"
DEFAULT_MIRROR_DIR = "data/mirrors"
DEFAULT_SITE_DIR = "data/site"
#: The warehouse's backend, where a DuckLake keeps its files, and how many write at once.
WAREHOUSE_VARIABLES = ("TRACKER_WAREHOUSE", "TRACKER_DATA_PATH", "TRACKER_WRITERS", "AWS_ENDPOINT_URL")


def env_or(name: str, default: str | None) -> dg.EnvVar | str | None:
    """`EnvVar(name)` where it is set (the UI then shows the variable, not its value), else the default."""
    return dg.EnvVar(name) if dg.EnvVar(name).get_value() else default


class ArxivSource(dg.ConfigurableResource):
    """Where arXiv entries come from: the live API, or recorded responses in a snapshot folder."""

    api_url: str = Field(default=DEFAULT_ARXIV_API_URL, description="arXiv API query endpoint (ARXIV_API_URL).")
    snapshot_dir: str | None = Field(
        default=None,
        description="Read <dir>/arxiv/*.xml instead of the network (TRACKER_SNAPSHOT_DIR).",
    )
    html_url: str = Field(
        default=ARXIV_HTML_URL, description="arXiv's HTML rendering of papers, for report text (ARXIV_HTML_URL)."
    )
    page_size: int | None = Field(default=None, description="Entries per page; default from config, at most 2000.")
    min_interval_s: float = Field(default=3.0, description="Seconds between requests (arXiv asks for 3).")
    max_retries: int = Field(default=5, description="Retries of a failed request.")
    backoff_s: float = Field(default=5.0, description="First retry delay; doubles each retry.")
    timeout_s: float = Field(default=60.0, description="Timeout of one request.")
    deadline_minutes: float = Field(
        default=60.0,
        description="The longest one harvest (or one fetch of report texts) may take, waits and retries "
        "included; past it the fetch fails saying so.",
    )

    def client(self) -> ArxivClient:
        if self.snapshot_dir:
            return SnapshotArxivClient(self.snapshot_dir)
        return LiveArxivClient(
            self.api_url,
            arxiv_query(),
            page_size=self.page_size,
            min_interval_s=self.min_interval_s,
            max_retries=self.max_retries,
            backoff_s=self.backoff_s,
            timeout_s=self.timeout_s,
            deadline_minutes=self.deadline_minutes,
        )

    def report_texts(self) -> ReportTextSource:
        """Where the text of technical reports comes from: the recorded excerpts in
        <dir>/reports/ in snapshot mode, else the arXiv API's abstract and arXiv's HTML
        rendering, as polite as the harvest."""
        if self.snapshot_dir:
            return SnapshotReportTextSource(self.snapshot_dir)
        return LiveReportTextSource(
            self.api_url,
            self.html_url,
            min_interval_s=self.min_interval_s,
            max_retries=self.max_retries,
            backoff_s=self.backoff_s,
            timeout_s=self.timeout_s,
            deadline_minutes=self.deadline_minutes,
        )


class FrameworkSources(dg.ConfigurableResource):
    """Where the frameworks' commits and threads come from: git mirrors and the GitHub
    REST API, or the recorded histories in a snapshot folder."""

    mirror_dir: str = Field(default=DEFAULT_MIRROR_DIR, description="Bare git mirrors (TRACKER_MIRROR_DIR).")
    remote_url_template: str = Field(
        default=DEFAULT_REMOTE_URL_TEMPLATE,
        description="Where each mirror is cloned from; {repo}, {owner} and {name} are filled in.",
    )
    snapshot_dir: str | None = Field(
        default=None,
        description="Read <dir>/github/*.jsonl.gz instead of git and GitHub (TRACKER_SNAPSHOT_DIR).",
    )
    github_api_url: str = Field(default=DEFAULT_GITHUB_API_URL, description="GitHub REST API (GITHUB_API_URL).")
    github_token: str | None = Field(
        default=None,
        description="GitHub token (GITHUB_TOKEN); optional, never logged or stored. Sent to the API, and to the "
        "mirrors' remote host for clones and fetches (as a header, never into the mirrors' config).",
    )
    max_rate_limit_wait_s: float = Field(default=900, description="Longest wait for a primary rate-limit reset.")
    secondary_wait_s: float = Field(default=60, description="Least wait after a secondary rate limit.")
    max_retries: int = Field(default=5, description="Retries of a failed request.")
    backoff_s: float = Field(default=1.0, description="First retry delay; doubles each retry.")
    timeout_s: float = Field(default=30.0, description="Timeout of one GitHub request.")
    deadline_minutes: float = Field(
        default=30.0,
        description="The longest one framework's GitHub refresh may take, rate-limit waits and retries "
        "included; past it the refresh fails saying so.",
    )
    git_timeout_minutes: float = Field(
        default=30.0, description="The longest one git command (clone, fetch, log) may run before it is stopped."
    )

    def commits(self) -> CommitSource:
        if self.snapshot_dir:
            return SnapshotCommits(self.snapshot_dir)
        return GitMirrorCommits(
            self.mirror_dir, self.remote_url_template, token=self.github_token, timeout_s=self.git_timeout_minutes * 60
        )

    def threads(self, etags: MutableMapping[str, str]) -> ThreadSource:
        """The thread source; `etags` (URL → validator, updated in place) is what the last
        refresh saw: ETags of API answers, or fingerprints of snapshot files."""
        if self.snapshot_dir:
            return SnapshotThreads(self.snapshot_dir, fingerprints=etags)
        client = GithubClient(
            self.github_api_url,
            self.github_token,
            etags=etags,
            max_rate_limit_wait_s=self.max_rate_limit_wait_s,
            secondary_wait_s=self.secondary_wait_s,
            max_retries=self.max_retries,
            backoff_s=self.backoff_s,
            timeout_s=self.timeout_s,
            deadline_minutes=self.deadline_minutes,
        )
        return GithubApiThreads(client)


class OpenAlexSource(dg.ConfigurableResource):
    """Author affiliations from OpenAlex, optional: without an API key the lookup is
    skipped (with a logged note) and affiliations come from overrides and arXiv only.
    In snapshot mode the recorded affiliations rank above OpenAlex."""

    api_url: str = Field(default=DEFAULT_OPENALEX_API_URL, description="OpenAlex API (OPENALEX_API_URL).")
    api_key: str | None = Field(default=None, description="OpenAlex API key (OPENALEX_API_KEY); never logged.")
    snapshot_dir: str | None = Field(
        default=None,
        description="Read recorded affiliations from <dir>/affiliations/affiliations.jsonl, ranked above "
        "OpenAlex (TRACKER_SNAPSHOT_DIR).",
    )
    min_interval_s: float = Field(default=0.1, description="Seconds between requests.")
    max_requests_per_run: int = Field(default=1000, description="Papers looked up per run; the rest wait.")
    max_retries: int = Field(default=4, description="Retries of a failed request.")
    backoff_s: float = Field(default=1.0, description="First retry delay; doubles each retry.")
    deadline_minutes: float = Field(
        default=30.0, description="The longest one run's lookups may take, waits and retries included."
    )

    def recorded_affiliations(self, log: logging.Logger) -> pl.DataFrame:
        """The affiliations recorded in the snapshot folder (none outside snapshot mode)."""
        if not self.snapshot_dir:
            return pl.DataFrame(schema=AFFILIATION_SCHEMA)
        path = Path(self.snapshot_dir) / "affiliations" / "affiliations.jsonl"
        if not path.is_file():
            log.warning(f"{path} not found: no recorded affiliations in this snapshot")
            return pl.DataFrame(schema=AFFILIATION_SCHEMA)
        return read_snapshot_affiliations(path)

    def lookup(self) -> AffiliationLookup | None:
        """The OpenAlex client, or None when no API key is configured."""
        if not self.api_key:
            return None
        return OpenAlexClient(
            self.api_url,
            self.api_key,
            min_interval_s=self.min_interval_s,
            max_requests=self.max_requests_per_run,
            max_retries=self.max_retries,
            backoff_s=self.backoff_s,
            deadline_minutes=self.deadline_minutes,
        )


class Curation(dg.ConfigurableResource):
    """Where the curation CSVs (aliases, screening, affiliations, inclusions) are read from."""

    overrides_dir: str = Field(
        default=str(OVERRIDES_DIR),
        description="Folder of aliases.csv, screening.csv, affiliations.csv and inclusions.csv "
        "(TRACKER_OVERRIDES_DIR; default the repository's overrides/).",
    )

    def path(self, file_name: str) -> Path:
        return Path(self.overrides_dir) / file_name


class TrackerSite(dg.ConfigurableResource):
    """Where the published tracker (static site, open data, feed) is written."""

    site_dir: str = Field(default=DEFAULT_SITE_DIR, description="The site's folder (TRACKER_SITE_DIR).")


def warehouse_setting() -> WarehouseSetting:
    """TRACKER_WAREHOUSE, TRACKER_DATA_PATH, TRACKER_WRITERS and AWS_ENDPOINT_URL, parsed
    (ConfigError when malformed)."""
    return parse_warehouse_setting(*(dg.EnvVar(name).get_value() for name in WAREHOUSE_VARIABLES))


def build_resources(snapshot_dir: str | None = None) -> dict[str, dg.ConfigurableResource]:
    """The resources of the code location, read from the environment at load time;
    `snapshot_dir` (the CLI's --snapshot) wins over TRACKER_SNAPSHOT_DIR."""
    snapshot = snapshot_dir or env_or("TRACKER_SNAPSHOT_DIR", None)
    # Checked here, once, so a malformed setting fails at load with one line naming the fix.
    lake = warehouse_setting()
    return {
        "warehouse": Warehouse(
            database=env_or("TRACKER_DUCKDB_PATH", DEFAULT_DUCKDB_PATH),
            backend=env_or("TRACKER_WAREHOUSE", DUCKDB),  # an EnvVar: the catalog's conninfo may hold a password
            data_path=lake.data_path,
            s3_endpoint=lake.s3_endpoint,
        ),
        "arxiv": ArxivSource(
            api_url=env_or("ARXIV_API_URL", DEFAULT_ARXIV_API_URL),
            html_url=env_or("ARXIV_HTML_URL", ARXIV_HTML_URL),
            snapshot_dir=snapshot,
        ),
        "framework_sources": FrameworkSources(
            mirror_dir=env_or("TRACKER_MIRROR_DIR", DEFAULT_MIRROR_DIR),
            snapshot_dir=snapshot,
            github_api_url=env_or("GITHUB_API_URL", DEFAULT_GITHUB_API_URL),
            github_token=env_or("GITHUB_TOKEN", None),
        ),
        "curation": Curation(overrides_dir=env_or("TRACKER_OVERRIDES_DIR", str(OVERRIDES_DIR))),
        "openalex": OpenAlexSource(
            api_url=env_or("OPENALEX_API_URL", DEFAULT_OPENALEX_API_URL),
            api_key=env_or("OPENALEX_API_KEY", None),
            snapshot_dir=snapshot,
        ),
        "site": TrackerSite(site_dir=env_or("TRACKER_SITE_DIR", DEFAULT_SITE_DIR)),
    }
