"""A throwaway PostgreSQL server for tests and benchmarks: not a fake, the real thing.

Team mode keeps the Dagster instance and the DuckLake catalog in PostgreSQL, so the
tests run against a real server: Debian's `postgresql` package (installed with apt when
absent and this process may), a fresh cluster made by `initdb` in a temporary folder,
started by `pg_ctl` on a free loopback port with trust authentication, and removed
afterwards. When the server cannot be had, `PostgresUnavailable` says why in one line
(tests turn it into a skip with that reason).
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from fakes.serving import free_port

#: initdb refuses to run as root; the Debian package creates this user.
_SERVICE_USER = "postgres"
_APT_TIMEOUT_S = 900


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server can be started on this machine (the message says why)."""


def _server_bin_dir() -> Path | None:
    """The folder of initdb/pg_ctl/postgres: Debian keeps them out of PATH, under
    /usr/lib/postgresql/<major>/bin (the newest major wins)."""
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name), reverse=True)
    for folder in candidates:
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    initdb = shutil.which("initdb")
    return Path(os.path.realpath(initdb)).parent if initdb else None


def _install_with_apt() -> None:
    if shutil.which("apt-get") is None:
        raise PostgresUnavailable("PostgreSQL is not installed and there is no apt-get to install it")
    if os.geteuid() != 0:
        raise PostgresUnavailable("PostgreSQL is not installed; install it with `sudo apt-get install postgresql`")
    environ = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", "postgresql"]
    result = subprocess.run(install, env=environ, capture_output=True, text=True, timeout=_APT_TIMEOUT_S)
    if result.returncode != 0:  # the package lists may be missing on a fresh machine
        subprocess.run(["apt-get", "update", "-q"], env=environ, capture_output=True, timeout=_APT_TIMEOUT_S)
        result = subprocess.run(install, env=environ, capture_output=True, text=True, timeout=_APT_TIMEOUT_S)
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise PostgresUnavailable(f"apt-get install postgresql failed: {last}")


def server_bin_dir() -> Path:
    """Where the server's programs are, installing Debian's package first if needed."""
    found = _server_bin_dir()
    if found is None:
        _install_with_apt()
        found = _server_bin_dir()
    if found is None:
        raise PostgresUnavailable("apt installed postgresql, but no initdb/pg_ctl was found under /usr/lib/postgresql")
    return found


@dataclass(frozen=True)
class PostgresServer:
    """A running server: connect as `user` on 127.0.0.1:`port`, no password."""

    port: int
    user: str
    bin_dir: Path

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    def libpq(self, database: str = "postgres") -> str:
        """The same address as a libpq key=value string (DuckDB's postgres and DuckLake take this)."""
        return f"host=127.0.0.1 port={self.port} user={self.user} dbname={database}"

    def create_database(self, name: str) -> str:
        """A new empty database `name`; returns its URL."""
        subprocess.run(
            [str(self.bin_dir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", self.user, name],
            check=True, capture_output=True, timeout=60,
        )  # fmt: skip
        return self.url(name)


def _as_service_user(command: list[str]) -> list[str]:
    return ["runuser", "-u", _SERVICE_USER, "--", *command] if os.geteuid() == 0 else command


@contextmanager
def running_postgres() -> Iterator[PostgresServer]:
    """A fresh cluster in a temporary folder, started for the block, then stopped and removed."""
    bin_dir = server_bin_dir()
    root = Path(tempfile.mkdtemp(prefix="tracker-pg-"))
    data_dir, socket_dir = root / "data", root / "socket"
    socket_dir.mkdir()
    if os.geteuid() == 0:
        shutil.chown(root, _SERVICE_USER)
        shutil.chown(socket_dir, _SERVICE_USER)
    user = _SERVICE_USER if os.geteuid() == 0 else os.environ.get("USER", "postgres")
    port = free_port()
    try:
        init = subprocess.run(
            _as_service_user([str(bin_dir / "initdb"), "-D", str(data_dir), "-U", user, "--auth=trust", "-E", "UTF8", "--no-sync"]),
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        if init.returncode != 0:
            raise PostgresUnavailable(f"initdb failed: {init.stderr.strip().splitlines()[-1:]}")
        options = f"-p {port} -k {socket_dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        start = subprocess.run(
            _as_service_user([str(bin_dir / "pg_ctl"), "-D", str(data_dir), "-o", options, "-l", str(root / "server.log"), "-w", "start"]),
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        if start.returncode != 0:
            log = (root / "server.log").read_text(errors="replace").strip().splitlines()[-1:] if (root / "server.log").exists() else []
            raise PostgresUnavailable(f"pg_ctl start failed: {start.stderr.strip() or log}")
        try:
            yield PostgresServer(port=port, user=user, bin_dir=bin_dir)
        finally:
            subprocess.run(
                _as_service_user([str(bin_dir / "pg_ctl"), "-D", str(data_dir), "-m", "immediate", "-w", "stop"]),
                capture_output=True, timeout=120,
            )  # fmt: skip
    finally:
        shutil.rmtree(root, ignore_errors=True)
