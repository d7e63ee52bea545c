"""A truncated or corrupt recorded file fails the framework refresh with its path, into a
new warehouse and into one that already holds the file's earlier, sound load."""

from __future__ import annotations

import gzip
import re
from collections.abc import Callable
from pathlib import Path

import dagster as dg
import pytest

from assets.sources.assets import framework_sources_refresh
from assets.sources.frameworks import refresh_commits, refresh_threads, stored_state
from orchestration.clients.snapshot_files import SnapshotFileError
from orchestration.resources import FrameworkSources
from orchestration.settings import framework
from orchestration.warehouse import Warehouse
from tests.snapshot_fixtures import commit_record, doc_record, write_docs, write_gzip_lines, write_history

VERL = framework("verl")
QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}

HISTORY, SAMPLE = (f"{VERL.snapshot_stem}.jsonl.gz", f"{VERL.snapshot_stem}.threads.jsonl.gz")
FILES = {"commits": HISTORY, "threads": SAMPLE}


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
    write_history(snapshot, VERL)
    sources = FrameworkSources(snapshot_dir=str(snapshot))
    warehouse = Warehouse(database=str(tmp_path / "tracker.duckdb"))
    if warehouse_holds_data:
        refresh(sources, warehouse, which)
        refresh(sources, warehouse, which)  # the no-change refresh, with the watermark stored
    path = snapshot / "github" / FILES[which]
    problem = damage(path)

    with pytest.raises(SnapshotFileError) as failure:
        refresh(sources, warehouse, which)

    message = str(failure.value)
    assert str(path) in message and problem in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("damaged_line", "problem"),
    [('{"repo": "volcengine/verl", "path": "GOVERN', ":2: not a JSON line"),
     ({**doc_record(VERL, "GOVERNANCE.md", "Maintainers decide.\n"), "text": "Maint"}, ": the text of GOVERNANCE.md")],
    ids=["corrupt_json_line", "cut_text"],
)  # fmt: skip
@pytest.mark.parametrize("warehouse_holds_data", [False, True], ids=["new_warehouse", "existing_warehouse"])
def test_a_damaged_docs_file_fails_naming_it(tmp_path: Path, damaged_line, problem: str, warehouse_holds_data: bool):
    snapshot = tmp_path / "snapshot"
    write_history(snapshot, VERL)
    sound = [
        doc_record(VERL, "CONTRIBUTING.md", "Open an issue first.\n"),
        doc_record(VERL, "GOVERNANCE.md", "Maintainers decide.\n"),
    ]
    path = write_docs(snapshot, VERL, sound)
    sources = FrameworkSources(snapshot_dir=str(snapshot))
    warehouse = Warehouse(database=str(tmp_path / "tracker.duckdb"))
    if warehouse_holds_data:
        refresh(sources, warehouse, "commits")
    write_docs(snapshot, VERL, [sound[0], damaged_line])

    with pytest.raises(SnapshotFileError, match=re.escape(f"{path}{problem}")):
        refresh(sources, warehouse, "commits")


def test_a_line_that_is_json_but_no_commit_is_named(tmp_path: Path):
    snapshot = tmp_path / "snapshot"
    write_history(snapshot, VERL)
    path = write_gzip_lines(snapshot / "github" / HISTORY, [commit_record(VERL, 2), {"repo": VERL.repo}])
    with pytest.raises(SnapshotFileError, match=rf"{path.name}:2: no sha"):
        refresh(FrameworkSources(snapshot_dir=str(snapshot)), Warehouse(database=str(tmp_path / "t.duckdb")), "commits")


def test_the_run_fails_with_the_path_and_keeps_the_loaded_rows(tmp_path: Path):
    snapshot = tmp_path / "snapshot"
    write_history(snapshot, VERL)
    resources = {
        "framework_sources": FrameworkSources(snapshot_dir=str(snapshot)),
        "warehouse": Warehouse(database=str(tmp_path / "tracker.duckdb")),
    }
    assert dg.materialize([framework_sources_refresh], partition_key=VERL.slug, run_config=QUIET, resources=resources).success
    path = snapshot / "github" / HISTORY
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
        assert conn.execute("SELECT count(*) FROM raw.git_commits").fetchone()[0] == 3
