"""Imports run one way (README, "Layout"): `orchestration/` talks to the outside world
and the warehouse and never imports `assets/` (except `definitions.py`, the composition
root); `assets/` imports `orchestration/`, never tests or benches; nothing but the tests
imports `tests/` (the fake servers are in `fakes/`, for the tests and the benches). Read
from the source with `ast`, so a late import inside a function counts too."""

import ast
from pathlib import Path

import dagster as dg
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("orchestration", "assets", "bench", "fakes", "tests")
COMPOSITION_ROOT = "orchestration/definitions.py"

#: package of the importing module -> packages it must not import.
FORBIDDEN = {
    "orchestration": {"assets", "tests", "bench", "fakes"},
    "assets": {"tests", "bench", "fakes"},
    "bench": {"tests"},
    # The fake servers speak the sources' protocols; they may read the configuration.
    "fakes": {"assets", "tests", "bench"},
}


def imported_packages(source: str) -> set[str]:
    """The top-level packages a module imports, wherever in the module the import is."""
    packages = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            packages |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            packages.add(node.module.split(".")[0])
    return packages


def wrong_way_imports(root: Path) -> list[str]:
    """`path: imports package` for every import against the rule, under `root`."""
    problems = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            module = path.relative_to(root).as_posix()
            forbidden = set() if module == COMPOSITION_ROOT else FORBIDDEN.get(package, set())
            for imported in sorted(imported_packages(path.read_text(encoding="utf-8")) & forbidden):
                problems.append(f"{module}: imports {imported}")
    return problems


def test_imports_run_one_way():
    assert wrong_way_imports(ROOT) == []


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        ("orchestration/clients/x.py", "from assets.links.evidence import RULES\n", ["orchestration/clients/x.py: imports assets"]),
        ("orchestration/x.py", "def f():\n    import assets.links\n", ["orchestration/x.py: imports assets"]),
        ("orchestration/definitions.py", "from assets.links import assets\n", []),
        ("assets/links/x.py", "from tests.helpers import shared_snapshots\n", ["assets/links/x.py: imports tests"]),
        ("bench/x.py", "from tests.fakes.github_server import running_fake_github\n", ["bench/x.py: imports tests"]),
        ("assets/x.py", "from assets.links.assets import evidence\nfrom orchestration.tables import CORE_EVIDENCE\n", []),
    ],
)
def test_a_wrong_way_import_is_found(tmp_path, module, source, expected):
    path = tmp_path / module
    path.parent.mkdir(parents=True)
    path.write_text(source)
    assert wrong_way_imports(tmp_path) == expected


#: Assets that write files, not a warehouse table: the published tracker.
FILE_ASSETS = {"tracker_site"}


def test_every_table_asset_shows_its_contract_table_in_the_catalog():
    from orchestration import tables
    from orchestration.definitions import defs

    contract = {table.name: table for table in vars(tables).values() if isinstance(table, tables.Table)}
    for spec in defs.resolve_all_asset_specs():
        if spec.key.to_user_string() in FILE_ASSETS:
            assert spec.owners and spec.code_version
            continue
        name = spec.metadata.get("dagster/table_name")
        assert name in contract, f"{spec.key.to_user_string()}: no dagster/table_name of the table contract"
        assert spec.metadata["dagster/column_schema"] == tables.table_schema(contract[name])
        assert spec.owners and spec.code_version


def test_the_code_location_loads_as_the_ui_loads_it():
    # What `dagster definitions validate` and the UI check: partition mappings between
    # every pair of assets, jobs, schedules and sensors.
    from orchestration.definitions import defs

    dg.Definitions.validate_loadable(defs)
