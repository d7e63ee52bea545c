"""Secrets stay secret: a whole refresh against the fakes (arXiv, GitHub, OpenAlex, a git
remote over HTTP that demands credentials) with sentinel GITHUB_TOKEN and
OPENALEX_API_KEY values and Python logging at DEBUG, then a search for the sentinels in
everything the tracker writes: the logs and captured output, Dagster's run and event
storage (DAGSTER_HOME) and asset metadata, the DuckDB warehouse, the git mirrors and the
tracker site. Zero hits, while both secrets were sent where they belong. With Dagster's
instance in PostgreSQL, a sentinel password in TRACKER_DAGSTER_POSTGRES_URL is searched
for too, in DAGSTER_HOME and in every table of the instance's database."""

from __future__ import annotations

import base64
import io
import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from fakes.arxiv_server import arxiv_entry
from fakes.git_http_server import GitHttpFixtures, running_git_http_server
from fakes.git_repos import ISOLATED_GIT_ENV, GitRemote
from fakes.github_server import comment_item, issue_item
from fakes.openalex_server import OpenAlexFixtures, authorship, running_fake_openalex
from orchestration.cli import POSTGRES_URL_VAR, prepare_instance_home
from orchestration.clients.git import GitMirrorCommits, GitUnavailableError
from orchestration.clients.redaction import redact
from orchestration.definitions import tracker_definitions
from orchestration.jobs import arxiv_harvest_job, cohort_metrics_job, derived_job, framework_refresh_job, partition_range_tags
from orchestration.resources import ArxivSource, Curation, FrameworkSources, OpenAlexSource, TrackerSite
from orchestration.settings import framework
from orchestration.warehouse import Warehouse
from tests.cli_fixtures import database_text, instance_storage, postgres_instance_url  # noqa: F401  (instance_storage: the fixture)
from tests.github_fixtures import FakeGithub, fake_github  # noqa: F401  (the fixture)

GITHUB_TOKEN = "ghp_SENTINELtoken0123456789abcdef"
OPENALEX_KEY = "oa-SENTINELkey-9876543210"
PG_PASSWORD = "pg-SENTINELpassword-2718281"  # the test server trusts loopback: never asked for
SENTINELS = (GITHUB_TOKEN, OPENALEX_KEY, PG_PASSWORD)
VERL = framework("verl")
T0 = datetime(2025, 1, 6, 12, tzinfo=UTC)


def basic(user_password: str) -> str:
    return "Basic " + base64.b64encode(user_password.encode()).decode()


def test_redact_hides_secret_query_parameters_only():
    assert redact("GET http://x/works/doi:1?select=id&api_key=abc-123 200") == "GET http://x/works/doi:1?select=id&api_key=*** 200"
    assert redact('"GET /w?api_key=k"') == '"GET /w?api_key=***"' and redact("no_api_key=1") == "no_api_key=1"


def test_git_gets_the_token_as_a_header_for_one_command_and_never_keeps_it(tmp_path, monkeypatch):
    for name, value in ISOLATED_GIT_ENV.items():
        monkeypatch.setenv(name, value)
    remote = GitRemote(tmp_path / "remotes", VERL.repo)
    remote.commit("Init", {"a.py": "x = 1\n"})
    remote.push()
    server = GitHttpFixtures(tmp_path / "remotes", require_authorization=basic(f"x-access-token:{GITHUB_TOKEN}"))
    with running_git_http_server(server) as url:
        source = GitMirrorCommits(tmp_path / "mirrors", f"{url}/{{repo}}.git", token=GITHUB_TOKEN)
        cloned = source.refresh(VERL, None)
        assert cloned.commits.height == 1
        remote.commit("More", {"b.py": "y = 2\n"})
        remote.push()
        assert source.refresh(VERL, cloned.head).commits.height == 1  # fetched
        # Credentials in the remote's URL are moved into the header too, not into the config.
        with_userinfo = f"{url.replace('://', '://bot:' + GITHUB_TOKEN + '@')}/{{repo}}.git"
        server.require_authorization = basic(f"bot:{GITHUB_TOKEN}")
        assert GitMirrorCommits(tmp_path / "other", with_userinfo).refresh(VERL, None).commits.height == 2
    assert {headers.get("authorization") for _, headers in server.requests} == {
        basic(f"x-access-token:{GITHUB_TOKEN}"), basic(f"bot:{GITHUB_TOKEN}")
    }  # fmt: skip
    assert GITHUB_TOKEN not in repr(source)
    with running_git_http_server(server) as url, pytest.raises(GitUnavailableError, match="asks for credentials: set GITHUB_TOKEN"):
        GitMirrorCommits(tmp_path / "anonymous", f"{url}/{{repo}}.git").refresh(VERL, None)
    assert hits(tmp_path / "mirrors") == hits(tmp_path / "other") == []


def hits(folder: Path) -> list[str]:
    """The files under `folder` whose bytes hold a sentinel."""
    return [
        f"{path}: {secret[:12]}…"
        for path in sorted(folder.rglob("*"))
        if path.is_file()
        for secret in SENTINELS
        if secret.encode() in path.read_bytes()
    ]


def warehouse_hits(database: Path) -> list[str]:
    """Every cell of every table, as text, searched for the sentinels."""
    found = []
    with duckdb.connect(str(database), read_only=True) as conn:
        tables = conn.sql("SELECT table_schema || '.' || table_name FROM information_schema.tables").fetchall()
        for (table,) in tables:
            text = conn.sql(f"SELECT string_agg(t::VARCHAR, '\n') FROM {table} t").fetchone()[0] or ""
            found += [f"{table}: {secret[:12]}…" for secret in SENTINELS if secret in text]
    return found


@pytest.fixture
def debug_logs():
    """Everything Python logs, at DEBUG, into a buffer (httpx logs each request's URL)."""
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setLevel(logging.DEBUG)
    root = logging.getLogger()
    previous = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    yield buffer
    root.removeHandler(handler)
    root.setLevel(previous)


def test_a_refresh_with_sentinel_secrets_leaves_no_trace_of_them(
    tmp_path, monkeypatch, fake_github, fake_arxiv, debug_logs, capfd, instance_storage
):
    for name, value in ISOLATED_GIT_ENV.items():
        monkeypatch.setenv(name, value)
    if instance_storage:  # Dagster's instance in PostgreSQL, its URL with a password
        monkeypatch.setenv(POSTGRES_URL_VAR, postgres_instance_url(instance_storage[POSTGRES_URL_VAR], PG_PASSWORD))
    monkeypatch.setenv("GITHUB_TOKEN", GITHUB_TOKEN)
    monkeypatch.setenv("OPENALEX_API_KEY", OPENALEX_KEY)
    # arXiv: two papers of January 2025, without affiliations (so OpenAlex is asked).
    for number, title in ((1, "Clipped Policy Optimization (CPO11) for reasoning"), (2, "A study of [links](javascript:x)")):
        published = T0 + timedelta(days=number)
        fake_arxiv.fixtures.add(published, arxiv_entry(f"2501.0000{number}", published, title=title))
    # verl: a git remote over HTTP that wants the token, and threads on the fake GitHub.
    remote = GitRemote(tmp_path / "remotes", VERL.repo)
    remote.commit("Add CPO11 (arXiv:2501.00001)", {"docs/cpo.md": "# CPO11\nhttps://arxiv.org/abs/2501.00001\n"}, at="2025-01-20T10:00:00+00:00")
    remote.push()
    fake_github.fixtures.add_issues(VERL.repo, issue_item(VERL.repo, 1, updated_at=T0, title="Support CPO11 (2501.00001)"))
    fake_github.fixtures.add_comments(VERL.repo, comment_item(VERL.repo, 9, 1, updated_at=T0))
    openalex = OpenAlexFixtures()
    openalex.works["2501.00002"] = [authorship("Ada Lovelace", "Analytical Engines Ltd")]
    git_server = GitHttpFixtures(tmp_path / "remotes", require_authorization=basic(f"x-access-token:{GITHUB_TOKEN}"))
    home, database, mirrors, site = tmp_path / "dagster_home", tmp_path / "tracker.duckdb", tmp_path / "mirrors", tmp_path / "site"

    with running_git_http_server(git_server) as git_url, running_fake_openalex(openalex) as openalex_url:
        # The resources as build_resources makes them: the secrets as EnvVars, read at run time.
        resources = {
            "warehouse": Warehouse(database=str(database)),
            "arxiv": ArxivSource(api_url=fake_arxiv.url, html_url=f"{fake_arxiv.url}/html", min_interval_s=0.01, backoff_s=0.01),
            "framework_sources": FrameworkSources(
                mirror_dir=str(mirrors), remote_url_template=f"{git_url}/{{repo}}.git", github_api_url=fake_github.url,
                github_token=dg.EnvVar("GITHUB_TOKEN"), backoff_s=0.01,
            ),
            "openalex": OpenAlexSource(api_url=openalex_url, api_key=dg.EnvVar("OPENALEX_API_KEY"), min_interval_s=0),
            "curation": Curation(),
            "site": TrackerSite(site_dir=str(site)),
        }  # fmt: skip
        defs = tracker_definitions(resources)
        debug = {"loggers": {"console": {"config": {"log_level": "DEBUG"}}}}
        with dg.DagsterInstance.from_config(str(prepare_instance_home(home))) as instance:  # as the CLI's
            runs = [
                (arxiv_harvest_job, None, partition_range_tags(datetime(2025, 1, 1).date(), datetime(2025, 1, 31).date())),
                (framework_refresh_job, VERL.slug, {}),
                (derived_job, None, {}),
                (cohort_metrics_job, None, {"dagster/asset_partition_range_start": "2025-01-01", "dagster/asset_partition_range_end": "2025-01-01"}),
            ]
            for job, partition, tags in runs:
                result = defs.resolve_job_def(job.name).execute_in_process(
                    instance=instance, run_config=debug, partition_key=partition, tags=tags, raise_on_error=False
                )
                assert result.success, (job.name, [e.message for e in result.all_events if e.is_failure][:3])
            metadata = "\n".join(
                str(record.event_log_entry)
                for record in instance.fetch_materializations(dg.AssetRecordsFilter(asset_key=dg.AssetKey("framework_threads")), limit=100).records
            ) + "\n".join(str(entry) for run in instance.get_runs() for entry in instance.all_logs(run.run_id))

    # No sentinel anywhere the tracker writes ...
    logged, captured = debug_logs.getvalue(), capfd.readouterr()
    for name, text in {"python logs": logged, "stdout": captured.out, "stderr": captured.err, "event storage": metadata}.items():
        assert not [secret[:12] for secret in SENTINELS if secret in text], name
    assert hits(home) == [] and hits(mirrors) == [] and hits(site) == []
    assert warehouse_hits(database) == []
    if instance_storage:
        instance_text = database_text(instance_storage[POSTGRES_URL_VAR])
        assert [secret[:12] for secret in SENTINELS if secret in instance_text] == []
        assert "FRAMEWORK_THREADS" in instance_text.upper()  # what it searched holds the runs' events
    assert (site / "index.html").is_file() and (instance_storage or any(home.rglob("*.db"))) and (mirrors / "volcengine__verl.git" / "config").is_file()
    # ... though both were sent where they belong, and httpx logged the OpenAlex URLs (redacted).
    assert {headers.get("authorization") for _, headers in git_server.requests} == {basic(f"x-access-token:{GITHUB_TOKEN}")}
    assert {r.headers.get("authorization") for r in fake_github.fixtures.requests} == {f"Bearer {GITHUB_TOKEN}"}
    assert {query.get("api_key") for _, query in openalex.requests} == {OPENALEX_KEY}
    assert "api_key=***" in logged and "HTTP Request: GET" in logged
