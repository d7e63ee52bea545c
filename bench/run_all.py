"""Every benchmark in one go, and one table of their figures against the targets.

    .venv/bin/python bench/run_all.py [--snapshot ../shared/snapshots] [--crash-trials 21] [--out DIR]

Runs, each in its own process, on this machine as it is (the figures are of one run;
the machines are shared, so a bench compares against a baseline of the same run where
it can):
- end to end: `python -m orchestration run --snapshot DIR` in a fresh DAGSTER_HOME and
  warehouse: its wall time and peak memory (the resident memory of the process and its
  children, summed, sampled from /proc every 0.1 s; and the largest single process, from
  getrusage), targets ≤ 120 s and ≤ 2 GB;
- stopping: the same run without a network (ARXIV_API_URL on a closed port) fails in
  one line (target ≤ 60 s), and a run blocked in the arXiv step exits on SIGTERM
  (target ≤ 10 s);
- bench/ingest.py (snapshot load, no-change refresh through the git mirrors and the fake
  GitHub), bench/link.py (linking speed and memory);
- bench/faults.py (fault injection against the fake servers);
- tests/test_bad_input.py with --fuzz-examples fresh hostile inputs per property, and
  tests/test_secrets.py (sentinel secrets searched everywhere the tracker writes);
- bench/scale.py (a simulated day at 100 repositories and arXiv cs.*: GitHub requests
  and token-hours, write time per warehouse backend and writers, linking at 200,000 papers);
- bench/crash_trials.py with --crash-trials trials (0 skips it).

Every bench's own output and figures (JSON) are kept in --out (default: a temporary
folder, printed). Exits 1 when a bench failed or missed its target.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
sys.path.insert(0, str(ROOT))

from bench.crash_trials import default_window  # noqa: E402
from bench.scale import GITHUB_REQUESTS_PER_TOKEN_HOUR  # noqa: E402
from fakes.serving import free_port  # noqa: E402
GIB = 1024**3


@dataclass
class Row:
    bench: str
    figure: str
    target: str = ""
    ok: bool | None = None  # None: no target
    seconds: float = 0.0

    @property
    def verdict(self) -> str:
        return {True: "OK", False: "MISSED", None: ""}[self.ok]


def tree_rss_bytes(root_pid: int) -> int:
    """Resident memory of a process and all its descendants, summed (from /proc)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            parent, pages = int(fields[1]), int(fields[21])
        except (OSError, IndexError, ValueError):
            continue
        pid = int(entry.name)
        children.setdefault(parent, []).append(pid)
        rss[pid] = pages * os.sysconf("SC_PAGE_SIZE")
    total, pending = 0, [root_pid]
    while pending:
        pid = pending.pop()
        total += rss.get(pid, 0)
        pending += children.get(pid, [])
    return total


def run_sampled(command: list[str], environ: dict[str, str], log: Path, limit_s: float) -> tuple[int | None, float, int]:
    """Run `command`; (exit code or None on timeout, wall seconds, peak summed RSS of its process tree)."""
    started = time.monotonic()
    with log.open("w") as output:
        process = subprocess.Popen(command, cwd=ROOT, env=environ, stdout=output, stderr=subprocess.STDOUT, start_new_session=True)
        peak = 0
        while process.poll() is None:
            peak = max(peak, tree_rss_bytes(process.pid))
            if time.monotonic() - started > limit_s:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                return None, time.monotonic() - started, peak
            time.sleep(0.1)
    return process.returncode, time.monotonic() - started, peak


def run_environment(work: Path, name: str, **extra: str) -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("TRACKER_SNAPSHOT_DIR", "OPENALEX_API_KEY", "GITHUB_TOKEN")}
    return environ | {
        "DAGSTER_HOME": str(work / f"{name}_home"),
        "TRACKER_DUCKDB_PATH": str(work / f"{name}.duckdb"),
        "TRACKER_SITE_DIR": str(work / f"{name}_site"),
        "TRACKER_MIRROR_DIR": str(work / f"{name}_mirrors"),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        **extra,
    }


def end_to_end(snapshot: Path, work: Path) -> list[Row]:
    command = [sys.executable, "-m", "orchestration", "run", "--snapshot", str(snapshot), *default_window()]
    code, seconds, peak = run_sampled(command, run_environment(work, "e2e"), work / "e2e.log", 1800)
    largest = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # KiB on Linux
    if code != 0:
        return [Row("end to end (snapshot)", f"exit {code}: see {work / 'e2e.log'}", "exit 0", False, seconds)]
    return [
        Row("end to end (snapshot)", f"{seconds:.1f} s", "≤ 120 s", seconds <= 120, seconds),
        Row(
            "end to end (snapshot)",
            f"peak memory {peak / GIB:.2f} GiB (process tree, summed); largest process {largest / GIB:.2f} GiB",
            "≤ 2 GiB",
            peak <= 2 * GIB,
        ),
    ]


def stopping(snapshot: Path, work: Path) -> list[Row]:
    rows = []
    closed = free_port()
    command = [sys.executable, "-m", "orchestration", "run", "--from", "2025-01-01", "--to", "2025-01-02"]
    environ = run_environment(work, "offline", ARXIV_API_URL=f"http://127.0.0.1:{closed}/api/query")
    code, seconds, _ = run_sampled(command, environ, work / "offline.log", 300)
    last = (work / "offline.log").read_text().strip().splitlines()[-1:]
    one_line = code == 1 and bool(last) and last[0].startswith("orchestration run: ")
    rows.append(Row("no network: run fails", f"exit {code} in {seconds:.1f} s, one-line reason: {one_line}", "≤ 60 s", one_line and seconds <= 60, seconds))

    # A snapshot whose first arXiv month is a pipe nobody writes: the arXiv step blocks there.
    blocked = work / "blocked_snapshot"
    for folder in sorted(path for path in snapshot.iterdir() if path.is_dir()):
        (blocked / folder.name).mkdir(parents=True)
        for path in folder.iterdir():
            (blocked / folder.name / path.name).symlink_to(path)
    first_month = sorted((blocked / "arxiv").glob("*.xml"))[0]
    first_month.unlink()
    os.mkfifo(first_month)
    log = work / "sigterm.log"
    with log.open("w") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "orchestration", "run", "--snapshot", str(blocked), *default_window()],
            cwd=ROOT, env=run_environment(work, "sigterm"), stdout=output, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    deadline = time.monotonic() + 300
    while "arxiv_entries: fetching" not in log.read_text() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1.0)  # into the blocking read
    sent = time.monotonic()
    process.send_signal(signal.SIGTERM)
    try:
        code = process.wait(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        code = process.wait()
    seconds = time.monotonic() - sent
    rows.append(Row("SIGTERM: run stops", f"exit {code} in {seconds:.1f} s", "≤ 10 s, exit 143", code == 143 and seconds <= 10, seconds))
    return rows


def run_bench(script: str, work: Path, *arguments: str, limit_s: float = 7200) -> tuple[int | None, dict, float]:
    """A bench script with --json: (exit code, its figures, seconds)."""
    name = Path(script).stem
    out = work / f"{name}.json"
    command = [sys.executable, str(BENCH / script), *arguments, "--json", str(out)]
    code, seconds, _ = run_sampled(command, run_environment(work, name), work / f"{name}.log", limit_s)
    figures = json.loads(out.read_text()) if out.exists() else {}
    return code, figures, seconds


def ingest(snapshot: Path, work: Path) -> list[Row]:
    code, figures, seconds = run_bench("ingest.py", work, "--snapshot", str(snapshot))
    if code != 0 or not figures:
        return [Row("ingest", f"exit {code}: see {work / 'ingest.log'}", "exit 0", False, seconds)]
    load, first, quiet = figures["snapshot_load"], figures["first_refresh"], figures["no_change_refresh"]
    fraction = quiet["seconds"] / first["seconds"]
    worst = max(quiet["requests"].values())
    all_304 = quiet["requests"] == quiet["not_modified"]
    return [
        Row("ingest: snapshot load", f"{load['commits']} commits of 7 histories in {load['seconds']:.1f} s", "≤ 20 s", load["seconds"] <= 20, seconds),
        Row("ingest: no-change refresh", f"{quiet['seconds']:.2f} s = {fraction:.1%} of the first refresh (git mirrors, fake GitHub)", "≤ 5%", fraction <= 0.05),
        Row("ingest: no-change requests", f"at most {worst} per framework, {'all' if all_304 else 'not all'} 304", "≤ 2, all 304", worst <= 2 and all_304),
    ]


def link(snapshot: Path, work: Path) -> list[Row]:
    code, figures, seconds = run_bench("link.py", work, "--snapshot", str(snapshot))
    if code != 0 or not figures:
        return [Row("link", f"exit {code}: see {work / 'link.log'}", "exit 0", False, seconds)]
    return [
        Row("link: evidence", f"{figures['evidence_s']:.1f} s for {figures['papers']} papers, peak {figures['peak_rss_mb']:.0f} MB", "≤ 10 s, ≤ 2048 MB",
            figures["evidence_s"] <= 10 and figures["peak_rss_mb"] <= 2048, seconds),
        Row("link: speed-up", f"{figures['speed_up']:.0f}x over one regex per paper", "≥ 20x", figures["speed_up"] >= 20),
    ]  # fmt: skip


def faults(snapshot: Path, work: Path) -> list[Row]:
    code, figures, seconds = run_bench("faults.py", work)
    if not figures:
        return [Row("faults", f"exit {code}: see {work / 'faults.log'}", "exit 0", False, seconds)]
    same = not figures["differing_tables"]
    return [
        Row("faults: injected", f"{figures['injected']} of {figures['requests']} requests ({figures['kinds']} kinds), "
            f"{figures['retries']} retries", "", None, seconds),
        Row("faults: tables", f"{figures['tables']} tables, {figures['rows']} rows: hashes "
            f"{'equal to' if same else 'DIFFER from'} a fault-free run; {figures['duplicates']} duplicate rows", "equal, 0", same and not figures["duplicates"]),
        Row("faults: arXiv spacing", f"smallest gap {figures['smallest_arxiv_gap_s']:.3f} s (configured {figures['arxiv_interval_s']} s)",
            "never below", figures["smallest_arxiv_gap_s"] >= figures["arxiv_interval_s"]),
    ]  # fmt: skip


def pytest_run(work: Path, name: str, test_file: str, *arguments: str, **extra: str) -> tuple[int | None, str, float]:
    """A test file run by pytest: (exit code, its output, seconds)."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test_file, *arguments]
    code, seconds, _ = run_sampled(command, run_environment(work, name, **extra), work / f"{name}.log", 7200)
    return code, (work / f"{name}.log").read_text(errors="replace"), seconds


def fuzzed_inputs(work: Path, examples: int) -> list[Row]:
    """The property-based tests of hostile input with `examples` fresh inputs per property."""
    code, output, seconds = pytest_run(
        work, "fuzz", "tests/test_bad_input.py", "--hypothesis-show-statistics", TRACKER_FUZZ_EXAMPLES=str(examples)
    )
    passing = sum(int(count) for count in re.findall(r"(\d+) passing\b", output))
    failing = sum(int(count) for count in re.findall(r"(\d+) failing\b", output))
    return [Row("inputs fuzzed", f"{passing} hostile inputs passed, {failing} failed ({examples} per property)",
                "0 failed", code == 0 and failing == 0, seconds)]  # fmt: skip


def leaks(work: Path) -> list[Row]:
    code, output, seconds = pytest_run(work, "secrets", "tests/test_secrets.py")
    summary = (output.strip().splitlines() or [""])[-1]
    return [Row("secrets leaked", f"{'0' if code == 0 else 'see ' + str(work / 'secrets.log')} (sentinel token and key "
                f"searched in logs, run storage, metadata, warehouse, mirrors, site: {summary})", "0", code == 0, seconds)]  # fmt: skip


def scale(snapshot: Path, work: Path) -> list[Row]:
    code, figures, seconds = run_bench("scale.py", work, "--snapshot", str(snapshot))
    if code != 0 or not figures:
        return [Row("scale", f"exit {code}: see {work / 'scale.log'}", "exit 0", False, seconds)]
    refresh = figures["github"]["refresh"]
    billable = refresh["requests"] - refresh["not_modified"]
    writes = ", ".join(
        f"{row['backend'].split()[0]} x{row['writers']} " + (f"{row['seconds']:.1f} s" if "seconds" in row else "not measured")
        for row in figures["github"]["writes"]
    )
    link = figures["link_scaled"]
    return [
        Row("scale: GitHub, 100 repos a day", f"{refresh['requests']} requests, {refresh['not_modified']} 304, {billable / GITHUB_REQUESTS_PER_TOKEN_HOUR:.3f} token-hours", "≤ 1 token-hour", billable <= GITHUB_REQUESTS_PER_TOKEN_HOUR, seconds),
        Row("scale: writes of the day", writes, ""),
        Row("scale: linking", f"{link['seconds']:.0f} s for {link['papers']:,} papers, peak {link['peak_rss_mb']:.0f} MB", ""),
    ]  # fmt: skip


def crashes(snapshot: Path, work: Path, trials: int) -> list[Row]:
    if trials <= 0:
        return [Row("crashes", "skipped (--crash-trials 0)", "")]
    code, figures, seconds = run_bench("crash_trials.py", work, "--snapshot", str(snapshot), "--trials", str(trials))
    if not figures:
        return [Row("crashes", f"exit {code}: see {work / 'crash_trials.log'}", "exit 0", False, seconds)]
    stages = ", ".join(f"{stage} {count}" for stage, count in figures["stages_hit"].items())
    return [
        Row("crashes: survived", f"{figures['survived']} of {figures['trials']} SIGKILLs (kills landed in: {stages})", "all", code == 0, seconds),
        Row("crashes: warehouse opens", f"after {figures['opened']} of {figures['trials']} kills", "all", figures["opened"] == figures["trials"]),
        Row("crashes: half-written slices", str(figures["half_written"]), "0", figures["half_written"] == 0),
    ]  # fmt: skip


def table(rows: list[Row]) -> list[str]:
    header = ("bench", "figure", "target", "", "time")
    cells = [header] + [(r.bench, r.figure, r.target, r.verdict, f"{r.seconds:.0f} s" if r.seconds else "") for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = [" | ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in cells]
    lines.insert(1, "-+-".join("-" * width for width in widths))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--snapshot", default=str(ROOT.parent / "shared" / "snapshots"))
    parser.add_argument("--crash-trials", type=int, default=21)
    parser.add_argument("--out", metavar="DIR", help="keep every bench's output and figures here")
    parser.add_argument("--fuzz-examples", type=int, default=1000, help="hostile inputs per property (default 1000)")
    args = parser.parse_args(argv)
    snapshot = Path(args.snapshot).resolve()
    if not (snapshot / "arxiv").is_dir():
        print(f"run_all: {snapshot} is not a snapshot folder (no arxiv/): pass --snapshot DIR", file=sys.stderr)
        return 2
    work = Path(args.out).resolve() if args.out else Path(tempfile.mkdtemp(prefix="bench_run_all_"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"run_all: output of every bench in {work}", flush=True)
    rows: list[Row] = []
    # The end-to-end run first, before the long benches have warmed (or loaded) the machine.
    for name, bench in (
        ("end to end", lambda: end_to_end(snapshot, work)),
        ("stopping", lambda: stopping(snapshot, work)),
        ("ingest", lambda: ingest(snapshot, work)),
        ("link", lambda: link(snapshot, work)),
        ("faults", lambda: faults(snapshot, work)),
        ("inputs fuzzed", lambda: fuzzed_inputs(work, args.fuzz_examples)),
        ("secrets", lambda: leaks(work)),
        ("scale", lambda: scale(snapshot, work)),
        ("crashes", lambda: crashes(snapshot, work, args.crash_trials)),
    ):
        started = time.monotonic()
        produced = bench()
        rows += produced
        print(f"run_all: {name} done in {time.monotonic() - started:.0f} s", flush=True)
        (work / "rows.json").write_text(json.dumps([row.__dict__ for row in rows], indent=2))
    print()
    for line in table(rows):
        print(line)
    return 1 if any(row.ok is False for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
