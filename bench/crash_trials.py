"""SIGKILL at chosen points of a snapshot run, across the source, link and metrics assets;
the next run must finish on its own and write the tables of a clean run.

    .venv/bin/python bench/crash_trials.py [--snapshot ../shared/snapshots] [--trials 21] [--seed 20261204]

First one clean run gives the reference (bench/table_hashes.py: the hash of every table
and of every partition slice) and the steps it ran, with their durations. Each trial
then aims at one step of one stage, in turn source (arxiv_entries, a framework's
refresh), link (evidence, inclusions, proposals, training failures, their checks) and
metrics (the cohort tables and the rest of the metrics group), and starts the same run in
a fresh DAGSTER_HOME and warehouse. It watches the run's event log for that step to
start, then SIGKILLs the run's whole process group either after a random part of the
step's clean duration (`random`) or at the first change of the warehouse file or its WAL
once the step runs (`write`: the kill lands in or right after a transaction), alternating.

After each kill it records which step was running (from the dead run's event log),
asserts that the warehouse opens (read-only, as a user would) and that every partition
slice it holds is the clean run's whole (none half-written), then reruns in the same home
and warehouse with no help: the rerun must exit 0 and every table must hash as the clean
run's. Prints one line per trial and a summary per stage; exits 1 when any trial failed
or a stage was never hit.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import dagster as dg
import duckdb

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.table_hashes import foreign_slices, slice_hashes, table_hashes  # noqa: E402

STAGES = ("source", "link", "metrics")
#: Asset group -> the stage a trial aims at (the other groups are reported by name).
STAGE_OF_GROUP = {"sources": "source", "links": "link", "metrics": "metrics"}
KILL_MODES = ("random", "write")
STEP_EVENTS = {dg.DagsterEventType.STEP_START, dg.DagsterEventType.STEP_SUCCESS, dg.DagsterEventType.STEP_FAILURE}
FIRST_RUN_LINE = "(arxiv_harvest, run "
POLL_S = 0.03
WRITE_POLL_S = 0.002


@dataclass(frozen=True)
class Step:
    """One step of a run: its key (an op: an asset, a multi-asset or an asset check) and
    the run's partition (a framework's slug), with its start and end (epoch seconds)."""

    key: str
    partition: str | None
    started: float
    ended: float | None

    @property
    def name(self) -> str:
        return f"{self.key}[{self.partition}]" if self.partition else self.key

    @property
    def seconds(self) -> float:
        return (self.ended or self.started) - self.started


@dataclass
class Trial:
    number: int
    stage: str
    target: Step
    mode: str
    delay_s: float
    killed_in: list[str] = field(default_factory=list)
    after: str = ""  # the last step that ended, when the kill fell between steps
    kill_note: str = ""
    opens: bool = False
    half_written: list[str] = field(default_factory=list)
    rerun_code: int | None = None
    rerun_s: float = 0.0
    differing: list[str] = field(default_factory=list)

    @property
    def hit_stages(self) -> set[str]:
        return {stage_of_step(name) for name in self.killed_in}

    @property
    def ok(self) -> bool:
        return self.opens and not self.half_written and self.rerun_code == 0 and not self.differing


def step_groups() -> dict[str, tuple[str, bool]]:
    """Op name -> (asset group, is an asset check), for every asset and check of the code location."""
    from orchestration.definitions import defs

    graph = defs.resolve_asset_graph()
    groups: dict[str, tuple[str, bool]] = {}
    for key in graph.get_all_asset_keys():
        node = graph.get(key)
        for step_key in _step_keys(node.assets_def.node_def):
            groups.setdefault(step_key, (node.group_name, False))
    for checks_def in defs.asset_checks or []:
        for check_key in checks_def.check_keys:
            groups.setdefault(checks_def.node_def.name, (graph.get(check_key.asset_key).group_name, True))
    return groups


def _step_keys(node_def: dg.NodeDefinition, path: str = "") -> list[str]:
    """The step keys of an asset's node: the op's name, or `graph.op` for each op of a
    graph-backed asset (arxiv_entries.fetch, framework_sources_refresh.write)."""
    path = path or node_def.name
    if isinstance(node_def, dg.GraphDefinition):
        return [key for node in node_def.nodes for key in _step_keys(node.definition, f"{path}.{node.name}")]
    return [path]


_GROUPS: dict[str, tuple[str, bool]] = {}


def stage_of(step_key: str) -> str:
    """source, link, metrics, or the asset group of another step (papers, tracker)."""
    if not _GROUPS:
        _GROUPS.update(step_groups())
    group = _GROUPS.get(step_key, ("other", False))[0]
    return STAGE_OF_GROUP.get(group, group)


def stage_of_step(name: str) -> str:
    """The stage of a step named as Step.name (`framework_sources_refresh[verl]`)."""
    return stage_of(name.split("[")[0])


def is_check(step_key: str) -> bool:
    stage_of(step_key)
    return _GROUPS.get(step_key, ("", False))[1]


# -- running ---------------------------------------------------------------------------------


def cli_environment(home: Path, warehouse: Path) -> dict[str, str]:
    """A run of its own: DAGSTER_HOME, warehouse and site beside each other, no live settings."""
    environ = {
        **os.environ,
        "DAGSTER_HOME": str(home),
        "TRACKER_DUCKDB_PATH": str(warehouse),
        "TRACKER_SITE_DIR": str(home.parent / f"{home.name}_site"),
        "TRACKER_MIRROR_DIR": str(home.parent / f"{home.name}_mirrors"),
    }
    for name in ("TRACKER_SNAPSHOT_DIR", "OPENALEX_API_KEY", "GITHUB_TOKEN"):
        environ.pop(name, None)
    return environ


def start_run(home: Path, warehouse: Path, snapshot: Path, window: Sequence[str]) -> subprocess.Popen:
    """`python -m orchestration run` in its own process group; stderr to <home>.stderr."""
    home.parent.mkdir(parents=True, exist_ok=True)
    with open(home.parent / f"{home.name}.stderr", "a") as stderr:
        return subprocess.Popen(
            [sys.executable, "-m", "orchestration", "run", "--snapshot", str(snapshot), *window],
            cwd=ROOT,
            env=cli_environment(home, warehouse),
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            start_new_session=True,
        )


def finish(process: subprocess.Popen, limit_s: float) -> int | None:
    """The exit code, or None (and the process group killed) after `limit_s`."""
    try:
        return process.wait(timeout=limit_s)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        return None


def stderr_text(home: Path) -> str:
    path = home.parent / f"{home.name}.stderr"
    return path.read_text(errors="replace") if path.exists() else ""


def last_error_line(home: Path) -> str:
    lines = stderr_text(home).strip().splitlines()
    return lines[-1] if lines else ""


def kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


# -- what the event log says ---------------------------------------------------------------


def run_steps(instance: dg.DagsterInstance, run: dg.DagsterRun) -> list[Step]:
    """The steps of `run` in the order they started, with their ends (None: not ended)."""
    partition = run.tags.get("dagster/partition")
    started: dict[str, float] = {}
    ended: dict[str, float] = {}
    for entry in instance.all_logs(run.run_id, of_type=STEP_EVENTS):
        if entry.dagster_event.event_type == dg.DagsterEventType.STEP_START:
            started.setdefault(entry.step_key, entry.timestamp)
        else:
            ended[entry.step_key] = entry.timestamp
    return [Step(key, partition, at, ended.get(key)) for key, at in sorted(started.items(), key=lambda item: item[1])]


def all_steps(home: Path) -> list[Step]:
    """Every step of every run on the instance in `home`, oldest run first."""
    with dg.DagsterInstance.from_config(str(home)) as instance:
        return [step for run in reversed(instance.get_runs()) for step in run_steps(instance, run)]


def interrupted(home: Path) -> tuple[list[str], str]:
    """The steps started and never ended on the instance in `home` (what a kill
    interrupted), and the last step that ended."""
    steps = all_steps(home) if (home / "history").is_dir() else []
    ended = [step for step in steps if step.ended is not None]
    last = max(ended, key=lambda step: step.ended).name if ended else ""
    return [step.name for step in steps if step.ended is None], last


def wait_for_step(home: Path, target: Step, process: subprocess.Popen, limit_s: float) -> bool:
    """Wait until the run in `home` starts `target` (True) or the process ends (False)."""
    deadline = time.monotonic() + limit_s
    # The CLI names its first run once its instance is set up: from then on it may be opened here too.
    while FIRST_RUN_LINE not in stderr_text(home) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(POLL_S)
    with dg.DagsterInstance.from_config(str(home)) as instance:
        while process.poll() is None and time.monotonic() < deadline:
            newest = instance.get_runs(limit=1)
            if newest and newest[0].tags.get("dagster/partition") == target.partition:
                if any(step.key == target.key for step in run_steps(instance, newest[0])):
                    return True
            time.sleep(POLL_S)
    return False


def file_state(warehouse: Path) -> tuple:
    """(size, mtime) of the warehouse file and of its write-ahead log: changes with a write."""
    state = []
    for path in (warehouse, warehouse.with_name(warehouse.name + ".wal")):
        try:
            stat = path.stat()
            state.append((stat.st_size, stat.st_mtime_ns))
        except FileNotFoundError:
            state.append(None)
    return tuple(state)


def wait_for_write(warehouse: Path, process: subprocess.Popen, limit_s: float) -> bool:
    """Wait for the warehouse (or its WAL) to change (True), the process to end or `limit_s`."""
    before = file_state(warehouse)
    deadline = time.monotonic() + limit_s
    while process.poll() is None and time.monotonic() < deadline:
        if file_state(warehouse) != before:
            return True
        time.sleep(WRITE_POLL_S)
    return False


# -- one trial -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reference:
    """What the clean run wrote and ran."""

    seconds: float
    hashes: dict[str, dict[str, object]]
    slices: dict[str, dict[str, str]]
    steps: list[Step]


def clean_run(snapshot: Path, work: Path, window: Sequence[str], limit_s: float = 1800.0) -> Reference:
    started = time.monotonic()
    code = finish(start_run(work / "clean_home", work / "clean.duckdb", snapshot, window), limit_s)
    seconds = time.monotonic() - started
    if code != 0:
        raise RuntimeError(f"crash_trials: the clean run failed ({code}): {last_error_line(work / 'clean_home')}")
    database = work / "clean.duckdb"
    return Reference(seconds, table_hashes(database), slice_hashes(database), all_steps(work / "clean_home"))


@dataclass(frozen=True)
class KillPoint:
    stage: str
    target: Step
    mode: str  # random: `delay_s` into the step; write: at the step's first write
    delay_s: float


def kill_points(steps: list[Step], trials: int, draw: random.Random) -> list[KillPoint]:
    """The stages in turn, an asset step of the stage drawn at random, the modes
    alternating per stage, a delay within the first three quarters of the step (the
    step's start is seen a poll late)."""
    writers = [step for step in steps if not is_check(step.key)]  # a check step reads only
    by_stage = {stage: [step for step in writers if stage_of(step.key) == stage] for stage in STAGES}
    missing = [stage for stage, candidates in by_stage.items() if not candidates]
    if missing:
        raise RuntimeError(f"crash_trials: the clean run ran no asset step of stage(s) {', '.join(missing)}")
    points = []
    for index in range(trials):
        stage = STAGES[index % len(STAGES)]
        target = draw.choice(by_stage[stage])
        mode = KILL_MODES[(index // len(STAGES)) % len(KILL_MODES)]
        points.append(KillPoint(stage, target, mode, draw.uniform(0.0, 0.75 * target.seconds)))
    return points


def run_trial(
    number: int, point: KillPoint, work: Path, snapshot: Path, window: Sequence[str], reference: Reference
) -> Trial:
    """Kill a fresh run at `point`, check the warehouse it leaves, rerun, compare."""
    target, mode, delay = point.target, point.mode, point.delay_s
    limit_s = max(600.0, 5 * reference.seconds)
    trial = Trial(number, point.stage, target, mode, delay)
    home, warehouse = work / f"home_{number}", work / f"tracker_{number}.duckdb"
    victim = start_run(home, warehouse, snapshot, window)
    try:
        if not wait_for_step(home, target, victim, limit_s):
            trial.kill_note = "the run ended before the step started"
        elif mode == "write":
            wrote = wait_for_write(warehouse, victim, max(5.0, 3 * target.seconds))
            trial.kill_note = "at a write" if wrote else "no write seen"
        else:
            time.sleep(delay)
            trial.kill_note = f"+{delay:.2f} s into the step"
        if victim.poll() is not None:
            trial.kill_note += "; the run had ended"
    finally:
        kill_group(victim)
    trial.killed_in, trial.after = interrupted(home)
    try:
        trial.half_written = foreign_slices(slice_hashes(warehouse), reference.slices) if warehouse.exists() else []
        trial.opens = True
    except duckdb.Error as error:
        trial.kill_note += f"; the warehouse does not open: {str(error).splitlines()[0]}"
    started = time.monotonic()
    trial.rerun_code = finish(start_run(home, warehouse, snapshot, window), limit_s)
    trial.rerun_s = time.monotonic() - started
    if trial.rerun_code == 0:
        rerun = table_hashes(warehouse)
        trial.differing = sorted(t for t in set(rerun) | set(reference.hashes) if rerun.get(t) != reference.hashes.get(t))
    else:
        trial.kill_note += f"; rerun: {last_error_line(home)}"
    return trial


def describe(trial: Trial) -> str:
    where = ", ".join(f"{name} ({stage_of_step(name)})" for name in trial.killed_in) or (
        f"between steps, after {trial.after}" if trial.after else "before the first step"
    )
    verdict = (
        "same tables"
        if trial.ok
        else "; ".join(
            part
            for part in (
                "" if trial.opens else "warehouse does not open",
                f"half-written: {', '.join(trial.half_written)}" if trial.half_written else "",
                f"rerun exit {trial.rerun_code}" if trial.rerun_code != 0 else "",
                f"differ: {', '.join(trial.differing)}" if trial.differing else "",
            )
            if part
        )
    )
    return (
        f"trial {trial.number:2}: aimed at {trial.target.name} ({trial.stage}, {trial.mode}); killed in {where}, "
        f"{trial.kill_note}; opens: {'yes' if trial.opens else 'NO'}, half-written slices: {len(trial.half_written)}; "
        f"rerun exit {trial.rerun_code} in {trial.rerun_s:.1f} s; {verdict}"
    )


def crash_trials(
    snapshot: Path, work: Path, window: Sequence[str], trials: int, seed: int, say=print
) -> tuple[Reference, list[Trial]]:
    """One clean run in `work`, then `trials` killed runs and their reruns."""
    reference = clean_run(snapshot, work, window)
    say(f"clean run: {reference.seconds:.1f} s, {len(reference.hashes)} tables, {len(reference.steps)} steps")
    results = []
    for number, point in enumerate(kill_points(reference.steps, trials, random.Random(seed)), start=1):
        results.append(run_trial(number, point, work, snapshot, window, reference))
        say(describe(results[-1]))
    return reference, results


def summary(results: list[Trial]) -> dict[str, object]:
    """The figures of a set of trials (for the summary line and bench/run_all.py)."""
    hit = Counter(stage for trial in results for stage in trial.hit_stages)
    return {
        "trials": len(results),
        "survived": sum(trial.ok for trial in results),
        "opened": sum(trial.opens for trial in results),
        "half_written": sum(len(trial.half_written) for trial in results),
        "stages_hit": {stage: hit[stage] for stage in sorted(hit)},
        "unhit": [stage for stage in STAGES if not hit[stage]],
    }


def default_window() -> list[str]:
    """The CLI's default window, fixed once, so that a trial after midnight (UTC) asks for the same days."""
    return ["--from", "2025-01-01", "--to", (datetime.now(UTC).date() - timedelta(days=1)).isoformat()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--snapshot", default=str(ROOT.parent / "shared" / "snapshots"))
    parser.add_argument("--trials", type=int, default=21)
    parser.add_argument("--seed", type=int, default=20261204)
    parser.add_argument("--keep", metavar="DIR", help="work in DIR and keep it (homes, warehouses, stderr of every run)")
    parser.add_argument("--json", metavar="OUT", help="also write the figures and every trial to this file")
    args = parser.parse_args(argv)
    snapshot = Path(args.snapshot).resolve()
    if not (snapshot / "arxiv").is_dir():
        print(f"crash_trials: {snapshot} is not a snapshot folder (no arxiv/): pass --snapshot DIR", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="crash_trials_") as scratch:
        work = Path(args.keep).resolve() if args.keep else Path(scratch)
        try:
            reference, results = crash_trials(snapshot, work, default_window(), args.trials, args.seed)
        except RuntimeError as error:
            print(error, file=sys.stderr)
            return 2
    figures = summary(results)
    if args.json:
        trials = [
            {"stage": t.stage, "aimed_at": t.target.name, "mode": t.mode, "killed_in": t.killed_in, "after": t.after,
             "note": t.kill_note, "opens": t.opens, "half_written": t.half_written, "rerun_code": t.rerun_code,
             "rerun_s": round(t.rerun_s, 1), "differing": t.differing, "ok": t.ok}
            for t in results
        ]  # fmt: skip
        Path(args.json).write_text(json.dumps({**figures, "clean_s": round(reference.seconds, 1), "runs": trials}, indent=2))
    print(
        f"\n{figures['survived']} of {figures['trials']} trials converged to the clean run's tables; "
        f"the warehouse opened after {figures['opened']} of {figures['trials']} kills; "
        f"half-written slices: {figures['half_written']}; kills landed in: "
        + ", ".join(f"{stage} {count}" for stage, count in figures["stages_hit"].items())
    )
    if figures["unhit"]:
        print(f"crash_trials: no kill landed in stage(s) {', '.join(figures['unhit'])}: raise --trials", file=sys.stderr)
    return 1 if figures["survived"] < figures["trials"] or figures["unhit"] else 0


if __name__ == "__main__":
    sys.exit(main())
