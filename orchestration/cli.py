"""`python -m orchestration`: materialize everything for a window, or open the UI.

    python -m orchestration run [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--snapshot DIR]
    python -m orchestration ui [--snapshot DIR]

`run` materializes, in dependency order, the partitioned sources (arXiv for the window,
as one single-run backfill; then each framework's commits, threads and contribution
rules, incrementally) and then every derived table, on the Dagster
instance in DAGSTER_HOME (default data/dagster_home, SQLite; PostgreSQL where
TRACKER_DAGSTER_POSTGRES_URL is set), so the runs show in the UI.
It exits non-zero with a one-line reason when a step fails; the full log of each run,
stack traces included, is in DAGSTER_HOME/run_logs/<run id>.log.

Runs killed before they could record their end (SIGKILL, out of memory, a closed laptop)
are found at the next start, reported failed and their pool slots freed, so a crash
never blocks the next run.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import NoReturn

import dagster as dg
import yaml

from orchestration.partitions import cohort_partition_key
from orchestration.settings import HARVEST_START, ConfigError
from orchestration.warehouse import WRITER_POOL

DEFAULT_DAGSTER_HOME = Path("data") / "dagster_home"

#: What the CLI puts into DAGSTER_HOME/dagster.yaml; a value the file already has wins.
INSTANCE_SETTINGS: dict = {
    # DuckDB takes one writer at a time: the pool of the warehouse writers gets one slot
    # (DuckLake: TRACKER_WRITERS slots, see prepare_instance_home).
    "concurrency": {"pools": {"default_limit": 1}},
    # Under the UI the daemon fails runs stuck starting or canceling and frees the pool
    # slots that finished runs still hold (killed, or terminated from the UI).
    "run_monitoring": {
        "enabled": True,
        "start_timeout_seconds": 180,
        "cancel_timeout_seconds": 180,
        "poll_interval_seconds": 30,
        "free_slots_after_run_end_seconds": 60,
    },
    # Otherwise Dagster prints its telemetry banner into the first run's output.
    "telemetry": {"enabled": False},
}
INSTANCE_HEADER = "# Written by `python -m orchestration` (settings already here are kept).\n"

#: The one setting that puts Dagster's instance (runs, event logs, schedules, pool slots)
#: in PostgreSQL: a postgresql+psycopg2:// URL. Unset, the instance is SQLite under DAGSTER_HOME.
POSTGRES_URL_VAR = "TRACKER_DAGSTER_POSTGRES_URL"
#: What the CLI adds to dagster.yaml when it is set: a reference to the variable, so the
#: URL and any password in it stay in the environment, never in the file.
POSTGRES_STORAGE = {"postgres": {"postgres_url": {"env": POSTGRES_URL_VAR}}}
#: The driver named in that URL: dagster-postgres ships psycopg2, and SQLAlchemy 2.1 reads
#: a bare postgresql:// as psycopg 3 (dagster-io/dagster#33958).
POSTGRES_DRIVER = "postgresql+psycopg2"
POSTGRES_CONNECT_TIMEOUT_S = 10

# Public run tags that make one run cover a partition range (a single-run backfill).
RANGE_START_TAG = "dagster/asset_partition_range_start"
RANGE_END_TAG = "dagster/asset_partition_range_end"

# Which process runs a CLI run: a run of a dead pid on this host is dead.
HOST_TAG = "tracker/cli_host"
PID_TAG = "tracker/cli_pid"
PROCESS_START_TAG = "tracker/cli_process_start"  # tells a reused pid apart (Linux)

#: Statuses of a run that has not recorded its end (NOT_STARTED: killed while starting).
UNFINISHED = [
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
    dg.DagsterRunStatus.CANCELING,
]
WAIT_REMINDER_S = 60.0


class CliError(RuntimeError):
    """A failure the user can act on, reported as one line."""


class Interrupted(BaseException):
    """SIGTERM or SIGINT arrived; a BaseException so that no `except Exception` swallows it."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_interrupted(signum: int, _frame) -> None:
    raise Interrupted(signum)


@dataclass(frozen=True)
class Window:
    first_day: date
    last_day: date

    @property
    def first_cohort(self) -> str:
        return cohort_of_day(self.first_day)

    @property
    def last_cohort(self) -> str:
        return cohort_of_day(self.last_day)


def cohort_of_day(day: date) -> str:
    """The quarterly cohort a day belongs to: 2025-05-17 -> 2025-Q2."""
    return f"{day.year}-Q{(day.month - 1) // 3 + 1}"


def cohort_window(cohort: str, today: date) -> Window:
    """The days of a cohort's quarter, up to yesterday (UTC) for the quarter in progress."""
    try:
        first_day = date.fromisoformat(cohort_partition_key(cohort))
    except ValueError as error:
        raise CliError(f"--cohort {cohort}: {error}") from error
    if cohort < cohort_of_day(HARVEST_START):  # labels of one form sort as the quarters
        raise CliError(f"--cohort {cohort} is before the first cohort, {cohort_of_day(HARVEST_START)}")
    if first_day >= today:
        raise CliError(f"--cohort {cohort} has no complete UTC day yet (today is {today}); give a cohort that has started")
    next_quarter = date(first_day.year + first_day.month // 10, (first_day.month + 2) % 12 + 1, 1)
    return resolve_window(first_day, min(next_quarter - timedelta(days=1), today - timedelta(days=1)), today)


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from error


def resolve_window(first_day: date | None, last_day: date | None, today: date) -> Window:
    """The window to materialize: default from the start of the study to yesterday (UTC)."""
    yesterday = today - timedelta(days=1)
    window = Window(first_day or HARVEST_START, last_day or yesterday)
    if window.first_day < HARVEST_START:
        raise CliError(f"--from {window.first_day} is before the first partition, {HARVEST_START}")
    if window.last_day > yesterday:
        raise CliError(f"--to {window.last_day} is after the last complete UTC day, {yesterday}")
    if window.first_day > window.last_day:
        raise CliError(f"--from {window.first_day} is after --to {window.last_day}")
    return window


# -- the instance ------------------------------------------------------------------------


def merged_settings(current: Mapping, defaults: Mapping) -> dict:
    """`current` with every setting of `defaults` it lacks, recursively; its own values win."""
    merged = dict(current)
    for key, default in defaults.items():
        if isinstance(default, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = merged_settings(merged[key], default)
        elif key not in merged:
            merged[key] = default
    return merged


def instance_settings(environ: Mapping[str, str]) -> dict:
    """INSTANCE_SETTINGS, with the PostgreSQL storage where POSTGRES_URL_VAR is set."""
    return {**INSTANCE_SETTINGS, **({"storage": POSTGRES_STORAGE} if environ.get(POSTGRES_URL_VAR) else {})}


def check_postgres_url(environ: Mapping[str, str], config: Path) -> None:
    """The instance's PostgreSQL URL is well formed and its server answers; else one line
    naming the fix (never the password)."""
    from sqlalchemy import create_engine, exc
    from sqlalchemy.engine import make_url

    text = environ.get(POSTGRES_URL_VAR)
    if not text:
        raise CliError(
            f"{config} keeps Dagster's instance in PostgreSQL ({POSTGRES_URL_VAR}), which is not set: "
            "set it, or delete the file's storage block to go back to SQLite under DAGSTER_HOME"
        )
    form = f"{POSTGRES_DRIVER}://user[:password]@host[:port]/database"
    try:
        url = make_url(text)
    except (exc.ArgumentError, ValueError) as error:
        raise CliError(f"{POSTGRES_URL_VAR} is not a URL of the form {form}; fix it") from error
    shown = url.render_as_string(hide_password=True)
    if url.drivername != POSTGRES_DRIVER or not url.database:
        raise CliError(f"{POSTGRES_URL_VAR} ({shown}) is not of the form {form}; fix it")
    engine = create_engine(url, connect_args={"connect_timeout": POSTGRES_CONNECT_TIMEOUT_S})
    try:
        with engine.connect():
            pass
    except exc.DBAPIError as error:
        reason = " ".join(str(error.orig).split()) or type(error.orig).__name__
        raise CliError(
            f"Dagster's instance database {shown} cannot be reached ({reason}): "
            f"start the server, create the database or fix {POSTGRES_URL_VAR}"
        ) from None
    finally:
        engine.dispose()


def prepare_instance_home(home: Path, writers: int = 1, environ: Mapping[str, str] = os.environ) -> Path:
    """`home` with a dagster.yaml holding INSTANCE_SETTINGS, added to an existing file
    (older versions wrote only the pool limit) without changing what it already says,
    except the writer pool's limit: `writers`, what the warehouse's backend admits. Where
    the file keeps the instance in PostgreSQL through POSTGRES_URL_VAR, its server is
    checked first."""
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    text = config.read_text() if config.exists() else ""
    try:
        current = yaml.safe_load(text) or {}
    except yaml.YAMLError as error:
        raise CliError(f"{config}: not valid YAML ({error}); fix or delete it") from error
    if not isinstance(current, dict):
        raise CliError(f"{config}: expected a mapping of settings; fix or delete it")
    pool_limit = {"concurrency": {"pools": {"default_limit": writers}}}
    merged = merged_settings(pool_limit, merged_settings(current, instance_settings(environ)))
    if merged.get("storage") == POSTGRES_STORAGE:
        check_postgres_url(environ, config)
    if merged != current:
        config.write_text(INSTANCE_HEADER + yaml.safe_dump(merged, sort_keys=False))
    return home


def _process_start(pid: int) -> str | None:
    """When process `pid` started (clock ticks after boot, /proc), or None where unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]  # field 22; fields before it hold no ")"


def _is_zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False


def cli_tags() -> dict[str, str]:
    """Tags naming this process, for the runs it launches."""
    pid = os.getpid()
    tags = {HOST_TAG: socket.gethostname(), PID_TAG: str(pid)}
    start = _process_start(pid)
    if start:
        tags[PROCESS_START_TAG] = start
    return tags


def process_gone(pid: int, recorded_start: str | None = None) -> bool:
    """Whether no process `pid` runs on this host (or only a zombie, or a newer process
    that reused the pid: its start differs from `recorded_start`)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # alive, another user's
    start = _process_start(pid)
    return _is_zombie(pid) or bool(recorded_start and start and recorded_start != start)


def worker_pid(instance: dg.DagsterInstance, run_id: str) -> int | None:
    """The pid of the process executing a run launched elsewhere (the UI): the first
    engine event that names one ("Started process for run (pid: …)")."""
    for entry in instance.all_logs(run_id, of_type=dg.DagsterEventType.ENGINE_EVENT):
        pid = entry.dagster_event.engine_event_data.metadata.get("pid") if entry.dagster_event else None
        if pid is not None and str(pid.value).isdigit():
            return int(pid.value)
    return None


def ui_runs_on_this_host(instance: dg.DagsterInstance) -> bool:
    """Whether the runs launched from the UI ran on this host: certainly where the instance is
    the local SQLite under DAGSTER_HOME (the default); on a server's storage, any host may have."""
    return "sqlite" in type(instance.run_storage).__module__


def dead_run_process(instance: dg.DagsterInstance, run: dg.DagsterRun, host: str, ui_runs_here: bool) -> str | None:
    """`pid N on host` of the process that ran `run` if that process is gone, else None.
    A run launched from the UI has no host tag; its pid is checked where `ui_runs_here`."""
    if PID_TAG in run.tags:
        if run.tags.get(HOST_TAG) != host or not run.tags[PID_TAG].isdigit():
            return None
        pid, recorded_start = int(run.tags[PID_TAG]), run.tags.get(PROCESS_START_TAG)
    elif ui_runs_here:
        pid, recorded_start = worker_pid(instance, run.run_id), None
    else:
        return None
    return f"pid {pid} on {host}" if pid is not None and process_gone(pid, recorded_start) else None


def release_dead_runs(instance: dg.DagsterInstance, ui_runs_here: bool | None = None) -> list[str]:
    """Report failed the unfinished runs whose process on this host is gone, and free the
    pool slots that finished runs still hold. Returns the ids of the runs reported failed.
    `ui_runs_here`: whether the UI's runs ran on this host (default: ui_runs_on_this_host)."""
    host = socket.gethostname()
    ui_runs_here = ui_runs_on_this_host(instance) if ui_runs_here is None else ui_runs_here
    released = []
    for record in instance.get_run_records(dg.RunsFilter(statuses=UNFINISHED)):
        run = record.dagster_run
        process = dead_run_process(instance, run, host, ui_runs_here)
        if process:
            instance.report_run_failed(run, f"The process that ran it ({process}) is gone: killed or crashed.")
            released.append(run.run_id)
    storage = instance.event_log_storage
    if storage.supports_global_concurrency_limits:
        for run_id in storage.get_concurrency_run_ids():
            run = instance.get_run_by_id(run_id)
            if run is None or run.is_finished:
                storage.free_concurrency_slots_for_run(run_id)
    return released


def describe_run(instance: dg.DagsterInstance, run_id: str) -> str:
    run = instance.get_run_by_id(run_id)
    if run is None:
        return f"run {run_id} (deleted)"
    where = (
        f"pid {run.tags[PID_TAG]} on {run.tags[HOST_TAG]}"
        if PID_TAG in run.tags
        else "started from the UI"
    )
    return f"run {run_id} ({run.job_name}, {run.status.value}, {where})"


def writer_slot_holders(instance: dg.DagsterInstance, run_id: str) -> list[str] | None:
    """The runs holding the writer pool while run `run_id` waits for it; None if it is not waiting."""
    if not instance.event_log_storage.supports_global_concurrency_limits:
        return None
    info = instance.event_log_storage.get_concurrency_info(WRITER_POOL)
    if not any(step.run_id == run_id and step.assigned_timestamp is None for step in info.pending_steps):
        return None
    return sorted({slot.run_id for slot in info.claimed_slots} - {run_id})


# -- output ------------------------------------------------------------------------------


class _FirstLineFormatter(logging.Formatter):
    """`  HH:MM:SS message`: the message without Dagster's prefix and without the stack
    trace that Dagster appends to failure events (those go to the run's log file)."""

    def format(self, record: logging.LogRecord) -> str:
        meta = getattr(record, "dagster_meta", None) or {}
        text = (meta.get("orig_message") or record.getMessage()).strip()
        lines = text.splitlines()
        level = "" if record.levelno == logging.INFO else f"{record.levelname} "
        return f"  {self.formatTime(record, '%H:%M:%S')} {level}{lines[0] if lines else ''}"


@dg.logger(
    config_schema={"log_dir": dg.Field(str, description="Folder of the per-run log files.")},
    description="The CLI's output: one line per progress message on stderr; everything, "
    "with stack traces, in <log_dir>/<run id>.log.",
)
def cli_logger(init_context: dg.InitLoggerContext) -> logging.Logger:
    log = logging.Logger(f"orchestration.cli.{init_context.run_id}", level=logging.DEBUG)
    console = logging.StreamHandler(sys.stderr)
    console.setLevel(logging.INFO)
    console.setFormatter(_FirstLineFormatter())
    log.addHandler(console)
    log_file = run_log_file(Path(init_context.logger_config["log_dir"]), init_context.run_id)
    log_file.parent.mkdir(parents=True, exist_ok=True)
    to_file = logging.FileHandler(log_file, encoding="utf-8", delay=True)
    to_file.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    log.addHandler(to_file)
    return log


def run_log_file(log_dir: Path, run_id: str) -> Path:
    return log_dir / f"{run_id}.log"


def failure_reason(result) -> str:
    """The first error of ours (under Dagster's wrappers) of the first failed step, on one line."""
    for event in result.all_events:
        if event.is_step_failure:
            error = event.step_failure_data.error
            while error.cls_name.startswith("Dagster") and error.cause is not None:
                error = error.cause
            # Dagster's message starts with the exception's qualified class; ours say enough.
            message = re.sub(rf"^(?:[\w.]+\.)?{re.escape(error.cls_name or '')}: ", "", " ".join(error.message.split()))
            return f"{event.step_key}: {message or error.cls_name}"
    return "the run failed before any step did"


# -- running -----------------------------------------------------------------------------


def say(message: str) -> None:
    print(f"orchestration run: {message}", file=sys.stderr, flush=True)


def execute_watched(
    instance: dg.DagsterInstance, execute: Callable[[], dg.ExecuteInProcessResult], run_id: str
) -> dg.ExecuteInProcessResult:
    """`execute()` in a worker thread while this (main) thread stays free to act on
    signals, says which run it waits for when the writer slot is taken, and releases
    the slot when that run's process is gone."""
    outcome: dict = {}

    def work() -> None:
        try:
            outcome["result"] = execute()
        except Exception as error:  # reported by the main thread
            outcome["error"] = error

    worker = threading.Thread(target=work, name=f"run {run_id}", daemon=True)
    worker.start()
    last_said, last_holders = 0.0, None
    while worker.is_alive():
        worker.join(1.0)
        holders = writer_slot_holders(instance, run_id) if worker.is_alive() else None
        if not holders:
            last_holders = None
            continue
        if release_dead_runs(instance):
            continue
        if holders != last_holders or time.monotonic() - last_said > WAIT_REMINDER_S:
            held_by = "; ".join(describe_run(instance, holder) for holder in holders)
            say(f"waiting for the {WRITER_POOL} pool slot, held by {held_by}")
            last_said, last_holders = time.monotonic(), holders
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


def end_run(instance: dg.DagsterInstance, run_id: str, reason: str, *, canceled: bool) -> None:
    """Record the end of run `run_id`, cut short in this process, and free its pool slot."""
    run = instance.get_run_by_id(run_id)
    if run is not None and not run.is_finished:
        if canceled:
            instance.report_run_canceled(run, reason)
        else:
            instance.report_run_failed(run, reason)
    if instance.event_log_storage.supports_global_concurrency_limits:
        instance.event_log_storage.free_concurrency_slots_for_run(run_id)


def run(instance: dg.DagsterInstance, window: Window, home: Path, snapshot: str | None = None) -> None:
    """Materialize everything for `window`, from the recorded data in `snapshot` where given."""
    from orchestration.curation import OverrideError
    from orchestration.definitions import check_curation, tracker_definitions
    from orchestration.jobs import arxiv_harvest_job, cohort_metrics_job, derived_job, framework_refresh_job
    from orchestration.resources import build_resources
    from orchestration.settings import frameworks

    resources = build_resources(snapshot_dir=snapshot)
    try:
        check_curation(resources["curation"])
    except OverrideError as error:  # before any run: a harvest would end at the same error
        raise CliError(f"{error}; fix that row (overrides: TRACKER_OVERRIDES_DIR)") from error
    defs = tracker_definitions(resources)
    released = release_dead_runs(instance)
    if released:
        say(f"marked {len(released)} run(s) failed whose process is gone: {', '.join(released)}")
    log_dir = home / "run_logs"
    run_config = {"loggers": {"cli": {"config": {"log_dir": str(log_dir)}}}}
    # (label, job, partition key, tags): sources first, then what is derived from them.
    stages = [
        (
            f"arXiv {window.first_day} .. {window.last_day}",
            arxiv_harvest_job.name,
            None,
            {RANGE_START_TAG: window.first_day.isoformat(), RANGE_END_TAG: window.last_day.isoformat()},
        ),
        *((f"framework {f.slug}", framework_refresh_job.name, f.slug, {}) for f in frameworks()),
        ("derived tables", derived_job.name, None, {}),
        (
            f"cohort metrics {window.first_cohort} .. {window.last_cohort}",
            cohort_metrics_job.name,
            None,
            {
                RANGE_START_TAG: cohort_partition_key(window.first_cohort),
                RANGE_END_TAG: cohort_partition_key(window.last_cohort),
            },
        ),
    ]
    for label, job_name, partition_key, tags in stages:
        run_id = str(uuid.uuid4())
        log_file = run_log_file(log_dir, run_id)
        say(f"{label} ({job_name}, run {run_id})")
        job = defs.resolve_job_def(job_name)
        try:
            result = execute_watched(
                instance,
                lambda: job.execute_in_process(
                    instance=instance,
                    run_config=run_config,
                    partition_key=partition_key,
                    tags={**tags, **cli_tags()},
                    run_id=run_id,
                    raise_on_error=False,
                ),
                run_id,
            )
        except Interrupted as stop:
            end_run(instance, run_id, f"Stopped by {stop} (python -m orchestration run).", canceled=True)
            raise CliError(f"stopped by {stop} during {label}; run {run_id} marked canceled (log: {log_file})") from stop
        except Exception as error:
            end_run(instance, run_id, f"Failed outside its steps: {error}", canceled=False)
            raise CliError(f"{label} failed: {type(error).__name__}: {str(error).strip().splitlines()[0]}") from error
        if not result.success:
            raise CliError(f"{label} failed: {failure_reason(result)} (run {run_id}; full log: {log_file})")


# -- the command line ---------------------------------------------------------------------


def snapshot_folder(option: str) -> str:
    """The snapshot folder, checked for what every run reads: recorded arXiv responses and
    each configured framework's history (threads, documents and affiliations are optional)."""
    from orchestration.settings import frameworks

    snapshot = Path(option).resolve()
    if not (snapshot / "arxiv").is_dir():
        raise CliError(f"--snapshot {option}: no arxiv/ folder there (expected the snapshot format)")
    missing = [] if any((snapshot / "arxiv").glob("*.xml")) else ["arxiv/*.xml"]
    missing += [
        f"github/{f.snapshot_stem}.jsonl.gz" for f in frameworks() if not (snapshot / "github" / f"{f.snapshot_stem}.jsonl.gz").is_file()
    ]
    if missing:
        raise CliError(
            f"--snapshot {option}: a partial snapshot, without {', '.join(missing)}; copy the whole recorded folder "
            "(the format of ../shared/snapshots) or point --snapshot at a complete one"
        )
    return str(snapshot)


class OneLineParser(argparse.ArgumentParser):
    """argparse, with a usage error on one line that says where help is (exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message}; see {self.prog} --help\n")


def ui_environment(environ: Mapping[str, str], home: Path, snapshot: str | None) -> dict[str, str]:
    """The environment of `dagster dev`: its code location reads TRACKER_SNAPSHOT_DIR."""
    return {**environ, "DAGSTER_HOME": str(home), **({"TRACKER_SNAPSHOT_DIR": snapshot} if snapshot else {})}


def serve_ui(environ: Mapping[str, str], dev_args: list[str]) -> int:
    """`dagster dev` on this project, stopped with it on SIGTERM or Ctrl-C."""
    command = [sys.executable, "-m", "dagster", "dev", "-w", "workspace.yaml", *dev_args]
    server = subprocess.Popen(command, env=dict(environ))
    try:
        return server.wait()
    except Interrupted:
        server.send_signal(signal.SIGTERM)  # dagster dev stops its webserver, daemon and code server
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
        raise


def main(argv: list[str] | None = None) -> int:
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, _raise_interrupted)
    parser = OneLineParser(prog="python -m orchestration", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    snapshot_help = "read recorded data from DIR (instead of TRACKER_SNAPSHOT_DIR)"
    run_parser = commands.add_parser("run", help="materialize every asset for a window")
    run_parser.add_argument("--from", dest="first_day", type=_day, help=f"first day (default {HARVEST_START})")
    run_parser.add_argument("--to", dest="last_day", type=_day, help="last day (default yesterday, UTC)")
    run_parser.add_argument(
        "--cohort", metavar="YYYY-QN", help="one quarterly cohort (2025-Q2): its days, the links, its metrics"
    )
    run_parser.add_argument("--snapshot", metavar="DIR", help=snapshot_help)
    ui_parser = commands.add_parser(
        "ui", help="open the Dagster UI on this project (dagster dev; other options, e.g. --port, go to it)"
    )
    ui_parser.add_argument("--snapshot", metavar="DIR", help=snapshot_help + "; the schedules start stopped")
    args, dev_args = parser.parse_known_args(argv)
    if dev_args and args.command != "ui":
        parser.error(f"unrecognized arguments: {' '.join(dev_args)}")

    prefix = f"orchestration {args.command}"
    home = Path(os.environ.get("DAGSTER_HOME") or DEFAULT_DAGSTER_HOME).resolve()
    try:
        from orchestration.resources import warehouse_setting

        prepare_instance_home(home, warehouse_setting().writers)
        snapshot = snapshot_folder(args.snapshot) if args.snapshot else None
        with dg.DagsterInstance.from_config(str(home)) as instance:
            if args.command == "ui":
                released = release_dead_runs(instance)
            else:
                today = datetime.now(UTC).date()
                if args.cohort and (args.first_day or args.last_day):
                    raise CliError("--cohort names the window itself: give it without --from and --to")
                window = (
                    cohort_window(args.cohort, today)
                    if args.cohort
                    else resolve_window(args.first_day, args.last_day, today)
                )
                run(instance, window, home, snapshot)
        if args.command == "ui":
            if released:
                print(f"{prefix}: marked {len(released)} run(s) failed whose process is gone", file=sys.stderr)
            return serve_ui(ui_environment(os.environ, home, snapshot), dev_args)
    except (CliError, ConfigError) as error:
        print(f"{prefix}: {error}", file=sys.stderr, flush=True)
        if isinstance(error.__cause__, Interrupted):
            # The run's thread may be inside a DuckDB write: leave now, as a crash would
            # (DuckDB rolls the transaction back), rather than wait for it.
            sys.stdout.flush()
            os._exit(128 + error.__cause__.signum)
        return 1
    except Interrupted as stop:
        print(f"{prefix}: stopped by {stop}", file=sys.stderr, flush=True)
        return 128 + stop.signum
    print(f"{prefix}: done", file=sys.stderr)
    return 0
