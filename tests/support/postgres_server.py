"""A real PostgreSQL 15 server for a test: Debian's ``postgresql`` package, a temp cluster on 127.0.0.1.

Used by test_classgrade.py (shared gradebook, two shards). The package is installed with apt-get
when missing and we are root (as in CI); it is mandatory under ``CI=true`` and skipped elsewhere
with a one-line message. PostgreSQL refuses to run as root, so as root initdb/pg_ctl run as the
``postgres`` system user the package creates. The server is always stopped and its folder removed.
"""
import contextlib
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


@contextlib.contextmanager
def postgres_server(database: str = "gradebook"):
    """Start a throw-away server; yield the SQLAlchemy URL of an empty ``database`` on it."""
    bin_dir = ensure_postgres()
    folder = pathlib.Path(tempfile.mkdtemp(prefix="pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    data, port = folder / "data", _free_port()

    def run(*args):
        return subprocess.run(_as_postgres(args), check=True, capture_output=True, text=True, timeout=120)

    try:
        run(str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync")
        run(str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(folder / "server.log"), "-w", "start",
            "-o", f"-h 127.0.0.1 -p {port} -k {folder} -c fsync=off")
        run("psql", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-c", f"CREATE DATABASE {database}")
        yield f"postgresql://postgres@127.0.0.1:{port}/{database}"
    finally:
        if (data / "postmaster.pid").exists():  # running, or half-started: stop it either way
            subprocess.run(_as_postgres([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]),
                           capture_output=True, timeout=120)
        shutil.rmtree(folder, ignore_errors=True)
