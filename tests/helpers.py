"""Small helpers shared by tests."""

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_SNAPSHOTS = REPO_ROOT.parent / "shared" / "snapshots"


def shared_snapshots() -> Path:
    """../shared/snapshots, or skip: recorded real data is only on CI and developer machines."""
    if not SHARED_SNAPSHOTS.is_dir():
        pytest.skip("../shared/snapshots not found: recorded real data is only on CI and developer machines")
    return SHARED_SNAPSHOTS
