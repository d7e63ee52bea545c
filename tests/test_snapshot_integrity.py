"""A truncated or corrupt recorded file fails the framework refresh with its path, into a
new warehouse and into one that already holds the file's earlier, sound load."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path

import dagster as dg
import pytest

from assets.frameworks import framework_sources_refresh, refresh_commits, refresh_threads, stored_state
from orchestration.clients.snapshot_files import SnapshotFileError
from orchestration.resources import FrameworkSources
from orchestration.settings import framework
from orchestration.warehouse import Warehouse

VERL = framework("verl")
QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}

COMMITS = [
    {
        "repo": VERL.repo, "sha": f"{n}" * 40, "parents": [f"{n - 1}" * 40] if n > 1 else [],
        "authored_at": f"2025-04-0{n}T10:00:00+08:00", "committed_at": f"2025-04-0{n}T10:00:00+08:00",
        "author": "Ada", "message": f"Commit {n}", "html_url": f"https://github.com/{VERL.repo}/commit/{n}",
        "diff_incomplete": False,
        "files": [{"path": "verl/loss.py", "additions": 1, "deletions": 0, "added_text": "", "added_tokens": ["dapo"]}],
    }
    for n in (3, 2, 1)
]  # fmt: skip
THREADS = [
    {
        "repo": VERL.repo, "number": n, "kind": "issue", "state": "open", "labels": [], "title": f"Support method {n}",
        "author": "a", "created_at": "2025-04-01", "html_url": f"https://github.com/{VERL.repo}/issues/{n}",
        "body_tokens": ["DAPO"], "body_complete": True, "comments": [],
    }
    for n in (1, 2, 3)
]  # fmt: skip
FILES = {
    "commits": (f"{VERL.snapshot_stem}.jsonl.gz", COMMITS),
    "threads": (f"{VERL.snapshot_stem}.threads.jsonl.gz", THREADS),
}


def write_gzip_lines(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.writelines(f"{line}\n" for line in lines)
    return path


def write_snapshot(folder: Path) -> None:
    for name, records in FILES.values():
        write_gzip_lines(folder / "github" / name, [json.dumps(record) for record in records])


def truncated(path: Path) -> str:
    content = path.read_bytes()
    path.write_bytes(content[: len(content) * 2 // 3])
    return "truncated or corrupt gzip"


def corrupt_line(path: Path) -> str:
    lines = gzip.decompress(path.read_bytes()).decode().splitlines()
    lines[1] = lines[1][: len(lines[1]) // 2]  # a line cut short, in a sound gzip stream
    write_gzip_lines(path, lines)
    return f"{path.name}:2: not a JSON line"


def refresh(sources: FrameworkSources, warehouse: Warehouse, which: str) -> None:
    """What the framework_sources_refresh step does for `which` (commits or threads)."""
    with warehouse.connect() as conn:
        state = stored_state(conn, VERL.slug)
    step = refresh_commits if which == "commits" else refresh_threads
    step(sources, warehouse, VERL.slug, state, dg.get_dagster_logger())


@pytest.mark.parametrize("which", ["commits", "threads"])
@pytest.mark.parametrize("damage", [truncated, corrupt_line], ids=["truncated_gzip", "corrupt_json_line"])
@pytest.mark.parametrize("warehouse_holds_data", [False, True], ids=["new_warehouse", "existing_warehouse"])
def test_a_damaged_recorded_file_fails_naming_it(
    tmp_path: Path, which: str, damage: Callable[[Path], str], warehouse_holds_data: bool
):
    snapshot = tmp_path / "snapshot"
    write_snapshot(snapshot)
    sources = FrameworkSources(snapshot_dir=str(snapshot))
    warehouse = Warehouse(database=str(tmp_path / "tracker.duckdb"))
    if warehouse_holds_data:
        refresh(sources, warehouse, which)
        refresh(sources, warehouse, which)  # the no-change refresh, with the watermark stored
    path = snapshot / "github" / FILES[which][0]
    problem = damage(path)

    with pytest.raises(SnapshotFileError) as failure:
        refresh(sources, warehouse, which)

    message = str(failure.value)
    assert str(path) in message and problem in message
    assert "\n" not in message


def test_a_line_that_is_json_but_no_commit_is_named(tmp_path: Path):
    snapshot = tmp_path / "snapshot"
    write_snapshot(snapshot)
    path = write_gzip_lines(
        snapshot / "github" / FILES["commits"][0], [json.dumps(COMMITS[0]), json.dumps({"repo": VERL.repo})]
    )
    with pytest.raises(SnapshotFileError, match=rf"{path.name}:2: no sha"):
        refresh(FrameworkSources(snapshot_dir=str(snapshot)), Warehouse(database=str(tmp_path / "t.duckdb")), "commits")


def test_the_run_fails_with_the_path_and_keeps_the_loaded_rows(tmp_path: Path):
    snapshot = tmp_path / "snapshot"
    write_snapshot(snapshot)
    resources = {
        "framework_sources": FrameworkSources(snapshot_dir=str(snapshot)),
        "warehouse": Warehouse(database=str(tmp_path / "tracker.duckdb")),
    }
    assert dg.materialize([framework_sources_refresh], partition_key=VERL.slug, run_config=QUIET, resources=resources).success
    path = snapshot / "github" / FILES["commits"][0]
    truncated(path)

    result = dg.materialize(
        [framework_sources_refresh], partition_key=VERL.slug, run_config=QUIET, resources=resources, raise_on_error=False
    )

    assert not result.success
    (failure,) = [event for event in result.all_events if event.is_step_failure]
    error = failure.step_failure_data.error
    while error.cause is not None and error.cls_name.startswith("Dagster"):
        error = error.cause
    assert str(path) in error.message
    with resources["warehouse"].connect() as conn:
        assert conn.execute("SELECT count(*) FROM raw.git_commits").fetchone()[0] == len(COMMITS)
