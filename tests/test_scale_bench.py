"""bench/scale.py --quick: the wide-scale simulation runs end to end on the recorded
volumes and prints its table (the full run's figures are in the report of issue 18)."""

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers import REPO_ROOT, shared_snapshots


def test_the_quick_simulation_prints_every_row_of_the_table(tmp_path: Path) -> None:
    snapshot = shared_snapshots()
    figures_file = tmp_path / "scale.json"
    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / "bench" / "scale.py"), "--quick", "--snapshot", str(snapshot), "--json", str(figures_file)],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    table = result.stdout
    for row in ("daily volume per repository", "GitHub API requests", "token-hours a day", "arXiv cs.*, one day",
                "write the day: duckdb (embedded file), 1 writer", "linking ratio"):  # fmt: skip
        assert row in table
    # DuckLake is not measured in the quick form, and says so instead of printing a figure.
    assert table.count("not measured: skipped by --quick") == 3
    figures = json.loads(figures_file.read_text())
    refresh = figures["github"]["refresh"]
    # Two API lists a repository at the recorded volumes (under 100 items a day): no more.
    assert refresh["requests"] == 2 * 6 == refresh["served"]
    assert refresh["commits"] == figures["github"]["volumes"].popitem()[1][0]
    assert figures["arxiv_day"]["entries"] == 800
    assert figures["link_scaled"]["papers"] == 2 * figures["link_baseline"]["papers"]
