"""A real PostgreSQL 15 server for a test: Debian's ``postgresql`` package, a temp cluster on 127.0.0.1.

Used by test_grading.py (shared gradebook, two shards) and the fault table (a server stopped mid-class). The package is installed with apt-get
when missing and we are root (as in CI); it is mandatory under ``CI=true`` and skipped elsewhere
with a one-line message. PostgreSQL refuses to run as root, so as root initdb/pg_ctl run as the
``postgres`` system user the package creates. The server is always stopped and its folder removed.
"""
import contextlib
import dataclasses
import os
import pathlib
import shutil
import socket
import subprocess
import tempfile

import pytest

BIN = pathlib.Path("/usr/lib/postgresql/15/bin")
ENABLE = "install Debian's postgresql package (apt-get install postgresql) to run it"


def ensure_postgres() -> pathlib.Path:
    """The folder of initdb/pg_ctl; installs the package (root + apt) or skips / fails (CI)."""
    if not (BIN / "pg_ctl").exists() and os.geteuid() == 0 and shutil.which("apt-get"):
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True, timeout=600)
        subprocess.run(["apt-get", "install", "-y", "-qq", "postgresql"], env=env, capture_output=True, timeout=900)
    if not (BIN / "pg_ctl").exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL 15 is required under CI=true: {BIN / 'pg_ctl'} missing")
        pytest.skip(f"PostgreSQL 15 not found at {BIN}: {ENABLE}")
    return BIN


def _as_postgres(args):
    """Run ``args`` as the postgres user when we are root (PostgreSQL refuses root)."""
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else list(args)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclasses.dataclass(frozen=True)
class Server:
    """A running test server: its gradebook's URL, and ``pg_ctl`` on its cluster (to stop and start it again)."""
    url: str
    bin_dir: pathlib.Path
    data: pathlib.Path
    options: str
    log: pathlib.Path

    def ctl(self, action: str, *args) -> list:
        """The ``pg_ctl`` command line for ``action`` ("stop", "start" …) on this cluster, run as postgres."""
        extra = ["-o", self.options, "-l", str(self.log)] if action == "start" else []
        return _as_postgres([str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-w", *extra, action, *args])

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()


@contextlib.contextmanager
def postgres_server(database: str = "gradebook"):
    """Start a throw-away server; yield it (:class:`Server`) with an empty ``database`` on it."""
    bin_dir = ensure_postgres()
    folder = pathlib.Path(tempfile.mkdtemp(prefix="pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    data, port = folder / "data", _free_port()
    server = Server(f"postgresql://postgres@127.0.0.1:{port}/{database}", bin_dir, data,
                    f"-h 127.0.0.1 -p {port} -k {folder} -c fsync=off", folder / "server.log")

    def run(*args):
        return subprocess.run(_as_postgres(args), check=True, capture_output=True, text=True, timeout=120)

    try:
        run(str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync")
        subprocess.run(server.ctl("start"), check=True, capture_output=True, text=True, timeout=120)
        run("psql", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-c", f"CREATE DATABASE {database}")
        yield server
    finally:
        if server.running():  # running, or half-started: stop it either way
            subprocess.run(server.ctl("stop", "-m", "immediate"), capture_output=True, timeout=120)
        shutil.rmtree(folder, ignore_errors=True)
