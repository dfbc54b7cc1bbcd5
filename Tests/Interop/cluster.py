"""Cluster mode of the interop suite: ENTITLEMENTD_CLUSTER=N (Scripts/lib/test-cluster.sh).

With it set, the `server` fixture starts, for each server(*flags), N replicas of
entitlementd-testing with the test's own flags plus `--database <a PostgreSQL database>`, and
haproxy in front of them (haproxy.py); the object it returns looks like a single server:

- `.address`, `.host`, `.port`, `.channel()`: haproxy's. A test's `--listen HOST:PORT` is
  haproxy's address (the replicas take free ports of their own). Every connection of the test
  goes to replica 0 while it is up (haproxy.py says why), so what one connection wrote another
  reads; `server(..., spread=True)` spreads connections over the replicas (test_cluster.py).
- `.proc`, `.stderr()`, `.workdir` and signals other than the ones below: replica 0's. It is started first and alone, and holds the singleton lease before the others
  start, so it is the replica that runs reconciliation and webhook delivery; haproxy sends
  /metrics and /admin/* to it alone. SIGHUP (a reload), SIGTERM/SIGINT (a stop) and `.kill()`
  (SIGKILL, a crash) go to every replica, as an operator's reload or stop of the service would,
  so a test that kills "the server" and starts another on its database gets no survivor of the
  first holding the lease; `.proc.wait()` is replica 0's.
- `metrics_text(server)` (this module), which tests that count use instead of GET /metrics:
  every replica's /metrics summed series by series, as a dashboard's sum() over the replicas
  shows them (calls reach other replicas when replica 0 is down or the test spreads them).
- `.stop()` stops haproxy, then every replica (SIGTERM); it answers 0 only when every replica
  exited 0, so the fixture's clean-shutdown check covers all of them.
- `--database PATH` names a database for the length of the test: the first server(...) naming
  PATH gets a fresh PostgreSQL database, later ones naming it get the same one (a restart).
  Without --database, every server(...) gets a fresh database, as it gets a fresh SQLite file.

Markers, registered in conftest.py:
- `single_process(reason)`: the test needs one process or the SQLite file (crash safety on the
  file, storage faults, what SIGTERM/SIGKILL of the server does, per-process counts in /metrics,
  entitlementd's own HTTP/1.1 or HTTP/2 framing that haproxy terminates). Skipped in the cluster
  stage with its reason; it ran in the single-process stage.
- `cluster_only`: needs PostgreSQL and haproxy (test_cluster.py); skipped outside the cluster stage.
- `replicas`: what the cluster stage runs (Scripts/lib/test-cluster.sh selects `-m replicas`): the
  tests whose subject is replicas over PostgreSQL and haproxy (test_cluster.py: cross-replica
  visibility, the lease handover, failover through haproxy) and the behaviour that differs on
  PostgreSQL above the store: the singleton duties the lease starts (webhook delivery, the
  reconciliation job, the change timer), also across a restart or a SIGKILL of the service on
  one database, and what a restart on one database keeps (data, change cursors). Those without
  cluster_only run in the single-process stage too, on SQLite. Every other test runs in the
  single-process stage only; `CLUSTER_MARKERS= Scripts/lib/test-cluster.sh` (or `Scripts/test
  --long`) runs the whole suite against the cluster, as the stage did before.
Tests that start no server through the fixture (flag checks, entitlementctl offline, ...)
never touch the cluster and are skipped in the cluster stage, saying so.
"""
import concurrent.futures
import os
import shutil
from signal import SIGHUP, SIGINT, SIGKILL, SIGTERM
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from haproxy import Haproxy, free_port
from postgres_server import PostgresServer

SIZE_ENV = "ENTITLEMENTD_CLUSTER"
LEASE_METRIC = "entitlementd_singleton_lease_held"
LEASE_WAIT = 15.0


def cluster_size() -> int:
    """Replicas per server(...) in the cluster stage; 0 outside it."""
    value = os.environ.get(SIZE_ENV, "").strip() or "0"
    if not value.isdigit():
        raise pytest.UsageError(f"{SIZE_ENV}={value!r}: give a number of replicas (0 or unset: no cluster)")
    return int(value)


def flag_value(flags, name):
    """The value of the last `name VALUE` or `name=VALUE` in flags, or None."""
    found = None
    for i, flag in enumerate(flags):
        if flag == name and i + 1 < len(flags):
            found = flags[i + 1]
        elif flag.startswith(name + "="):
            found = flag[len(name) + 1:]
    return found


def without_flag(flags, name):
    out, skip = [], False
    for flag in flags:
        if skip:
            skip = False
        elif flag == name:
            skip = True
        elif not flag.startswith(name + "="):
            out.append(flag)
    return out


def metrics_text(server) -> str:
    """The server's /metrics text; for a cluster, every live replica's summed (module doc)."""
    if isinstance(server, ClusterServer):
        return summed_metrics([get_metrics(metrics_address(r)) for r in server.replicas if r.proc.poll() is None])
    return get_metrics(metrics_address(server))


def metrics_address(replica) -> str:
    """Where a server or replica serves /metrics: its admin listener when it has one, else its port."""
    prefix = "entitlementd admin listening on "
    for line in replica.stdout_path.read_text(errors="replace").splitlines():
        if line.startswith(prefix):
            return line[len(prefix):].strip()
    return replica.address


def get_metrics(address: str) -> str:
    with urllib.request.urlopen(f"http://{address}/metrics", timeout=5) as response:
        assert response.status == 200
        assert response.headers["content-type"].startswith("text/plain")
        return response.read().decode()


def summed_metrics(texts) -> str:
    """Prometheus texts as one: each series' values added up, families in first-seen order."""
    families = {}  # family name -> (HELP/TYPE lines, {series: value})
    for text in texts:
        family = families.setdefault("", ([], {}))
        for line in text.splitlines():
            if line.startswith(("# HELP ", "# TYPE ")):
                family = families.setdefault(line.split()[2], ([], {}))
                if line not in family[0]:
                    family[0].append(line)
            elif line.strip() and not line.startswith("#"):
                series, value = line.rsplit(" ", 1)
                family[1][series] = family[1].get(series, 0.0) + float(value)
    lines = []
    for headers, series in families.values():
        lines += headers
        lines += [f"{name} {int(v) if v.is_integer() else v}" for name, v in series.items()]
    return "\n".join(lines) + "\n"


def lease_held(address: str):
    """1 or 0 from the replica's /metrics, or None when it exports no lease (SQLite)."""
    try:
        with urllib.request.urlopen(f"http://{address}/metrics", timeout=5) as response:
            text = response.read().decode()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith(LEASE_METRIC + " ") or line.startswith(LEASE_METRIC + "{"):
            return int(float(line.rsplit(" ", 1)[1]))
    return None


class ClusterServer:
    """N replicas over one database, haproxy in front; see the module doc for what goes where."""

    def __init__(self, server_class, binary: Path, workdir: Path, flags, database_url: str, size: int,
                 spread: bool = False):
        self.cluster_dir = workdir
        self.database_url = database_url
        listen = flag_value(flags, "--listen") or f"127.0.0.1:{free_port()}"
        self.replica_flags = without_flag(list(flags), "--listen") + ["--database", database_url]
        self._server_class, self._binary = server_class, binary
        self.argv = [str(binary), *self.replica_flags]
        self.replicas, self.haproxy, self._channels = [], None, []
        try:
            self.replicas.append(self._start_replica(0))
            self._wait_for_lease(self.replicas[0])
            with concurrent.futures.ThreadPoolExecutor(max_workers=size) as pool:
                futures = [pool.submit(self._start_replica, i) for i in range(1, size)]
                for future in futures:
                    if future.exception() is None:
                        self.replicas.append(future.result())
                for future in futures:
                    future.result()  # raises the first start that failed
            self.haproxy = Haproxy(workdir, listen, [r.address for r in self.replicas], spread=spread)
        except BaseException:
            self.stop()  # what did start, so a failed start leaves no process behind
            raise
        self.address = listen
        self.host, port = listen.rsplit(":", 1)
        self.port = int(port)
        self.listening_since = time.monotonic()
        self.check_exit_code = True

    def _start_replica(self, index: int, port: int = 0):
        workdir = self.cluster_dir / f"replica{index}"
        workdir.mkdir(exist_ok=True)
        for old in ("stdout.log", "stderr.log"):  # a restart keeps the previous run's logs beside
            if (workdir / old).exists():
                (workdir / old).rename(workdir / f"{old}.{time.monotonic_ns()}")
        # A fixed port, so that a restarted replica comes back where haproxy's config points.
        flags = ["--listen", f"127.0.0.1:{port or free_port()}", *self.replica_flags]
        return self._server_class(self._binary, workdir, flags)

    @staticmethod
    def _wait_for_lease(replica) -> None:
        """Waits until replica 0 holds the singleton lease, when the build has one."""
        deadline = time.monotonic() + LEASE_WAIT
        while (held := lease_held(metrics_address(replica))) == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        if held == 0:
            pytest.fail(f"replica 0 did not take the singleton lease within {LEASE_WAIT}s:\n{replica.stderr()[-2000:]}")

    # What a test sees as "the server": replica 0, or every replica where noted.
    @property
    def proc(self):
        return self.replicas[0].proc

    @property
    def workdir(self):
        return self.replicas[0].workdir

    @property
    def stdout_path(self):
        return self.replicas[0].stdout_path

    @property
    def stderr_path(self):
        return self.replicas[0].stderr_path

    def stderr(self) -> str:
        return self.replicas[0].stderr()

    def channel(self, **options):
        import grpc
        ch = grpc.insecure_channel(self.address, options=[(f"grpc.{k}", v) for k, v in options.items()])
        self._channels.append(ch)
        return ch

    def signal(self, sig) -> None:
        for replica in (self.replicas if sig in (SIGHUP, SIGINT, SIGTERM) else self.replicas[:1]):
            replica.signal(sig)

    def kill(self) -> None:
        """SIGKILL of the service: every replica (test_cluster.py kills one replica at a time)."""
        for replica in self.replicas:
            replica.kill()

    def restart_replica(self, index: int, sig=SIGTERM):
        """Stops replica `index` with `sig` (SIGTERM: drained, must exit 0; SIGKILL) and starts it
        again on the same port; returns the new replica."""
        old = self.replicas[index]
        if sig == SIGKILL:
            old.kill()
        else:
            code = old.stop()
            assert code == 0, f"replica {index} exited {code} on {sig!r}:\n{old.stderr()[-2000:]}"
        self.replicas[index] = self._start_replica(index, port=old.port)
        return self.replicas[index]

    def stop(self, timeout: float = 15.0):
        """haproxy first (no new requests), then every replica at once; 0 only if every replica
        exited 0, else the first other exit code (None: killed after `timeout`)."""
        for ch in self._channels:
            ch.close()
        self._channels.clear()
        if self.haproxy is not None:
            self.haproxy.stop()
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(self.replicas))) as pool:
            codes = list(pool.map(lambda replica: replica.stop(timeout), self.replicas))
        bad = [c for c in codes if c != 0]
        return bad[0] if bad else 0


class Clusters:
    """What one test started in cluster mode: its clusters and the databases they use."""

    def __init__(self, postgres: PostgresServer, binary: Path, server_class, size: int):
        self.postgres, self.binary, self.server_class, self.size = postgres, binary, server_class, size
        self.databases = {}  # --database PATH -> database name, for restarts within the test
        self.fresh = []
        self.started = []

    def database_for(self, flags) -> str:
        path = flag_value(flags, "--database")
        if path is None:
            name = self.postgres.create_database()
            self.fresh.append(name)
            return name
        if path not in self.databases:
            self.databases[path] = self.postgres.create_database()
        return self.databases[path]

    def start(self, workdir: Path, flags, size: int = None, spread: bool = False) -> ClusterServer:
        name = self.database_for(flags)
        flags = without_flag(list(flags), "--database")
        cluster = ClusterServer(self.server_class, self.binary, workdir, flags,
                                self.postgres.database_url(name), size or self.size, spread)
        cluster.database_name = name
        self.started.append(cluster)
        return cluster

    def drop_databases(self) -> None:
        for name in self.fresh + list(self.databases.values()):
            try:
                self.postgres.drop_database(name)
            except (RuntimeError, subprocess.TimeoutExpired) as error:
                print(f"leaving database {name}: {error}")


def clusters_for(request, binary: Path, server_class):
    """The test's Clusters in the cluster stage, None outside it."""
    size = cluster_size()
    if size == 0:
        return None
    postgres = request.getfixturevalue("cluster_postgres")
    return Clusters(postgres, binary, server_class, size)


def postgres_for_session(repo: Path):
    """Generator for the session fixture: the server, stopped at the end if this session started it."""
    if not shutil.which("haproxy"):
        pytest.fail("haproxy is not installed: Scripts/lib/test-cluster.sh installs it (Debian package haproxy)")
    try:
        postgres = PostgresServer.for_session(repo)
    except RuntimeError as error:
        pytest.fail(str(error))
    yield postgres
    postgres.close()


def register_markers(config) -> None:
    config.addinivalue_line("markers", "single_process(reason): needs one entitlementd process or its SQLite "
                                       "file; skipped in the cluster stage with the reason")
    config.addinivalue_line("markers", "cluster_only: needs PostgreSQL and haproxy; runs in the cluster stage only")
    config.addinivalue_line("markers", "replicas: about replicas over PostgreSQL, haproxy or the PostgreSQL backend's "
                                       "own behaviour under the daemon; what the cluster stage runs (-m replicas)")


def skip_by_stage(items) -> None:
    """Skips, with the reason, what the current stage does not run (see the module doc)."""
    size = cluster_size()
    for item in items:
        if size == 0:
            if item.get_closest_marker("cluster_only"):
                item.add_marker(pytest.mark.skip(
                    reason=f"cluster_only: runs in the cluster stage ({SIZE_ENV}=N, Scripts/lib/test-cluster.sh)"))
            continue
        mark = item.get_closest_marker("single_process")
        if mark is not None:
            reason = (mark.args[0] if mark.args else None) or mark.kwargs.get("reason")
            if not reason:
                raise pytest.UsageError(f"{item.nodeid}: single_process needs a reason")
            item.add_marker(pytest.mark.skip(reason=f"single_process: {reason}"))
        elif "server" not in item.fixturenames:
            item.add_marker(pytest.mark.skip(
                reason="starts no server through the fixture, so nothing of it runs through the cluster"))
