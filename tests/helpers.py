"""Small helpers shared by tests."""

import gzip
import json
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_SNAPSHOTS = REPO_ROOT.parent / "shared" / "snapshots"
ATOM = "{http://www.w3.org/2005/Atom}"


def shared_snapshots() -> Path:
    """../shared/snapshots, or skip: recorded real data is only on CI and developer machines."""
    if not SHARED_SNAPSHOTS.is_dir():
        pytest.skip("../shared/snapshots not found: recorded real data is only on CI and developer machines")
    return SHARED_SNAPSHOTS


@dataclass(frozen=True)
class RecordedCounts:
    """What a snapshot folder holds, counted straight from its files (the standard
    library's XML, gzip and JSON readers, none of the project's parsers), so the tests
    compare the loaders' output with the data, not with numbers copied from a run."""

    arxiv_entries: int  # distinct entry ids in arxiv/*.xml
    commits: dict[str, int]  # lines of github/<stem>.jsonl.gz, by framework slug
    #: their files[] entries, less the tab-suffixed second entries of paths with a space
    #: (the recorder split those in two; the loader merges them back)
    commit_files: int
    threads: int  # lines of github/*.threads.jsonl.gz
    docs: int  # lines of docs/*.docs.jsonl


def recorded_counts(snapshot: Path) -> RecordedCounts:
    from orchestration.settings import frameworks

    def lines(path: Path) -> int:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as handle:
            return sum(1 for line in handle if line.strip())

    ids = {
        element.text.rsplit("/", 1)[-1].rsplit("v", 1)[0]
        for path in sorted((snapshot / "arxiv").glob("*.xml"))
        for element in ElementTree.parse(path).getroot().iter(f"{ATOM}id")
        if element.text and "/abs/" in element.text
    }
    histories = [snapshot / "github" / f"{f.snapshot_stem}.jsonl.gz" for f in frameworks()]
    paths = []
    for history in histories:
        with gzip.open(history, "rt", encoding="utf-8") as handle:
            paths += [changed["path"] for line in handle if line.strip() for changed in json.loads(line)["files"]]
    return RecordedCounts(
        arxiv_entries=len(ids),
        commits={f.slug: lines(history) for f, history in zip(frameworks(), histories, strict=True)},
        commit_files=sum(not path.endswith("\t") for path in paths),
        threads=sum(lines(path) for path in (snapshot / "github").glob("*.threads.jsonl.gz")),
        docs=sum(lines(path) for path in (snapshot / "docs").glob("*.docs.jsonl")),
    )
