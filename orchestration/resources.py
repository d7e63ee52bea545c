"""Dagster resources: the warehouse and one resource per source, configured by environment."""

from __future__ import annotations

import dagster as dg
from pydantic import Field

from orchestration.clients.arxiv import ArxivClient, LiveArxivClient, SnapshotArxivClient
from orchestration.settings import arxiv_query
from orchestration.warehouse import Warehouse

DEFAULT_DUCKDB_PATH = "data/tracker.duckdb"
DEFAULT_ARXIV_API_URL = "https://export.arxiv.org/api/query"


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
    page_size: int | None = Field(default=None, description="Entries per page; default from config, at most 2000.")
    min_interval_s: float = Field(default=3.0, description="Seconds between requests (arXiv asks for 3).")
    max_retries: int = Field(default=5, description="Retries of a failed request.")
    backoff_s: float = Field(default=5.0, description="First retry delay; doubles each retry.")
    timeout_s: float = Field(default=60.0, description="Timeout of one request.")

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
        )


def build_resources() -> dict[str, dg.ConfigurableResource]:
    """The resources of the code location, read from the environment at load time."""
    return {
        "warehouse": Warehouse(database=env_or("TRACKER_DUCKDB_PATH", DEFAULT_DUCKDB_PATH)),
        "arxiv": ArxivSource(
            api_url=env_or("ARXIV_API_URL", DEFAULT_ARXIV_API_URL),
            snapshot_dir=env_or("TRACKER_SNAPSHOT_DIR", None),
        ),
    }
