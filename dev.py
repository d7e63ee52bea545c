"""Set up the project's environment on first use, then run a command in it.

    python3.11 dev.py run [ARGS]   materialize everything (python -m orchestration run ARGS)
    python3.11 dev.py test [ARGS]  run the test suite (pytest ARGS)
    python3.11 dev.py ui [ARGS]    open the Dagster UI (python -m orchestration ui ARGS,
                                   e.g. --snapshot DIR)

Needs nothing but Python 3.11 and git: the first call creates `.venv` and installs the
project with its dev extra; later calls reinstall only when pyproject.toml changed.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / ".installed-pyproject-sha256"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")


def fail(message: str) -> None:
    print(f"dev.py: {message}", file=sys.stderr)
    raise SystemExit(2)


def ensure_environment() -> None:
    if sys.version_info[:2] != (3, 11):
        fail(f"needs Python 3.11, this is {sys.version.split()[0]}: run it as python3.11 dev.py ...")
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text().strip() == wanted:
        return
    if not (BIN / "python").exists():
        print("dev.py: creating .venv", file=sys.stderr)
        venv.EnvBuilder(with_pip=True).create(VENV)
    print("dev.py: installing the project and its dependencies into .venv (first run: a few minutes)", file=sys.stderr)
    pip = [str(BIN / "python"), "-m", "pip", "--disable-pip-version-check", "-q"]
    for command in (pip + ["install", "--upgrade", "pip"], pip + ["install", "-e", f"{ROOT}[dev]"]):
        if subprocess.call(command, cwd=ROOT) != 0:
            fail("installing the dependencies failed (see pip's output above)")
    STAMP.write_text(wanted)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"run", "test", "ui"}:
        print(__doc__, file=sys.stderr)
        return 2
    ensure_environment()
    command, args = argv[0], argv[1:]
    env = dict(os.environ)
    # The embedded default: Dagster's SQLite instance lives beside the DuckDB warehouse.
    env.setdefault("DAGSTER_HOME", str(ROOT / "data" / "dagster_home"))
    python = str(BIN / "python")
    if command == "run":
        argv_out = [python, "-m", "orchestration", "run", *args]
    elif command == "test":
        argv_out = [python, "-m", "pytest", *args]
    else:
        argv_out = [python, "-m", "orchestration", "ui", *args]
    if os.name == "nt":
        return subprocess.call(argv_out, cwd=ROOT, env=env)
    # Become the command, so that SIGTERM and Ctrl-C reach it directly: a wrapper would
    # be killed first (SIGTERM) or kill its child outright (subprocess.call on Ctrl-C),
    # leaving a run that never recorded its end.
    os.chdir(ROOT)
    os.execve(python, argv_out, env)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
