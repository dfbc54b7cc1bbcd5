"""The PostgreSQL server the cluster stage runs against, and a fresh database per test.

One server per pytest session: $ENTITLEMENTD_TEST_POSTGRES_URL when Scripts/test exported it
(the server it started at .build/pg-test), otherwise one this session starts with
`Scripts/lib/postgres.sh start .build/pg-interop` and stops at its end. Databases are made and
dropped with psql (Debian's postgresql-client, installed with the server), so the tests need no
PostgreSQL driver in the venv.
"""
import os
import secrets
import shutil
import subprocess
import tempfile
import urllib.parse
from pathlib import Path

URL_ENV = "ENTITLEMENTD_TEST_POSTGRES_URL"


class PostgresServer:
    """A PostgreSQL server reachable at a superuser URL (contract: Scripts/lib/postgres.sh)."""

    def __init__(self, url: str, started_dir: Path = None, script: Path = None):
        self.url = url
        self._started_dir = started_dir
        self._script = script
        self._psql = shutil.which("psql") or "/usr/lib/postgresql/15/bin/psql"

    @classmethod
    def for_session(cls, repo: Path):
        """The exported server, or one started under .build/pg-interop; raises RuntimeError
        saying what to do when neither is possible."""
        url = os.environ.get(URL_ENV, "").strip()
        if url:
            return cls(url)
        script = repo / "Scripts" / "lib" / "postgres.sh"
        if not script.exists():
            raise RuntimeError(f"no ${URL_ENV} and no {script}: start PostgreSQL and export {URL_ENV}")
        directory = repo / ".build" / "pg-interop"
        directory.mkdir(parents=True, exist_ok=True)
        run = subprocess.run([str(script), "start", str(directory)], capture_output=True, text=True, timeout=300)
        lines = run.stdout.strip().splitlines()
        if run.returncode != 0 or not lines:
            raise RuntimeError(f"{script} start {directory} failed ({run.returncode}):\n{run.stderr[-2000:]}")
        return cls(lines[-1].strip(), started_dir=directory, script=script)

    def close(self) -> None:
        """Stops the server when this session started it."""
        if self._started_dir is not None:
            subprocess.run([str(self._script), "stop", str(self._started_dir)], capture_output=True, timeout=120)

    def database_url(self, name: str) -> str:
        """The server URL with its database replaced by `name` (query options kept)."""
        parts = urllib.parse.urlsplit(self.url)
        return urllib.parse.urlunsplit(parts._replace(path="/" + name))

    def psql(self, sql: str, database: str = None, timeout: float = 60) -> str:
        """Runs `sql` (one statement per -c) and returns psql's unaligned, tuples-only output."""
        url = self.database_url(database) if database else self.url
        run = subprocess.run([self._psql, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql],
                             capture_output=True, text=True, timeout=timeout)
        if run.returncode != 0:
            raise RuntimeError(f"psql failed ({run.returncode}) on {sql!r}: {run.stderr.strip()}")
        return run.stdout.strip()

    def scalar(self, sql: str, database: str) -> int:
        return int(self.psql(sql, database))

    def create_database(self) -> str:
        """A new empty database named t_<random>; returns its name."""
        name = "t_" + secrets.token_hex(6)
        self.psql(f"CREATE DATABASE {name}")
        return name

    def drop_database(self, name: str) -> None:
        """Drops it even if a connection was left behind (a replica killed mid-test)."""
        self.psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


SCRIPT = Path(__file__).resolve().parents[2] / "Scripts" / "lib" / "postgres.sh"


class PrivatePostgres:
    """A PostgreSQL server of this test's own. Its folder is short and under /tmp: the server's
    socket path must fit in 107 bytes, and pytest's folders can be deep."""

    def __init__(self):
        self.directory = Path(tempfile.mkdtemp(prefix="pgf-", dir="/tmp"))

    def run(self, command):
        done = subprocess.run([str(SCRIPT), command, str(self.directory)], capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, f"postgres.sh {command} failed ({done.returncode}): {done.stderr[-2000:]}"
        return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""

    def start(self):
        url = self.run("start")
        assert url.startswith("postgresql://") and ":" in url.split("//", 1)[1].split("@", 1)[0], \
            "postgres.sh printed a URL with its password"
        return url

    def pids(self):
        """The postmaster and every process it started."""
        home = self.directory
        location = self.directory / "location"
        if location.exists():
            home = Path(location.read_text().strip())
        postmaster = int((home / "data" / "postmaster.pid").read_text().split()[0])
        children = subprocess.run(["pgrep", "-P", str(postmaster)], capture_output=True, text=True).stdout.split()
        return [postmaster] + [int(pid) for pid in children]

    def close(self):
        subprocess.run([str(SCRIPT), "stop", str(self.directory)], capture_output=True, timeout=120)
        shutil.rmtree(self.directory, ignore_errors=True)
