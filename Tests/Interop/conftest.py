"""Fixtures for the interop tests: real grpcio clients (and raw sockets) against the built
entitlementd-testing binary (entitlementd plus the test-only entitlementd.testing.v1 service).

The binary comes from $ENTITLEMENTD_BIN (Scripts/test sets it to the release build that
Scripts/run ships, Scripts/lib/release.sh); without it, the default debug build at
.build/debug/entitlementd-testing is used. The production entitlementd, built
beside it, is the `production_binary` fixture.
"""
import os
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import grpc
import pytest

import cluster

REPO = Path(__file__).resolve().parents[2]
PROTOS = REPO / "Protos"
LISTEN_PREFIX = "entitlementd listening on "
ADMIN_PREFIX = "entitlementd admin listening on "
START_TIMEOUT = 20.0
STOP_TIMEOUT = 15.0

# Each proto is compiled with its own directory as the include root so its stubs are
# top-level modules: compiling grpc/health/v1/health.proto at its path would create a
# python package named `grpc` that shadows grpcio.
PROTO_FILES = [
    ("grpc/health/v1", "health.proto"),
    ("entitlement/v1", "entitlement.proto"),
    ("entitlementd/testing/v1", "testing.proto"),
]


def pytest_configure(config):
    cluster.register_markers(config)


def pytest_collection_modifyitems(config, items):
    cluster.skip_by_stage(items)


@pytest.fixture(scope="session")
def cluster_postgres():
    """The cluster stage's PostgreSQL server (postgres_server.py)."""
    yield from cluster.postgres_for_session(REPO)


def binary_path() -> Path:
    return Path(os.environ.get("ENTITLEMENTD_BIN") or REPO / ".build" / "debug" / "entitlementd-testing").resolve()


@pytest.fixture(scope="session")
def binary() -> Path:
    path = binary_path()
    if not os.access(path, os.X_OK):
        pytest.fail(f"entitlementd-testing binary not found at {path}: build it or set ENTITLEMENTD_BIN")
    return path


@pytest.fixture(scope="session")
def production_binary(binary) -> Path:
    """The production entitlementd from the same build as the test executable."""
    path = binary.parent / "entitlementd"
    if not os.access(path, os.X_OK):
        pytest.fail(f"entitlementd not found at {path}: build it next to entitlementd-testing")
    return path


@pytest.fixture(scope="session")
def pb(tmp_path_factory):
    """Generated message and stub modules: pb.health, pb.health_grpc, pb.ent, pb.ent_grpc,
    pb.testing, pb.testing_grpc."""
    from grpc_tools import protoc

    out = tmp_path_factory.mktemp("stubs")
    for include, name in PROTO_FILES:
        args = ["protoc", f"-I{PROTOS / include}", f"--python_out={out}", f"--grpc_python_out={out}", name]
        if protoc.main(args) != 0:
            pytest.fail(f"protoc failed for {include}/{name}")
    sys.path.insert(0, str(out))
    import entitlement_pb2, entitlement_pb2_grpc, health_pb2, health_pb2_grpc, testing_pb2, testing_pb2_grpc

    return types.SimpleNamespace(
        health=health_pb2, health_grpc=health_pb2_grpc,
        ent=entitlement_pb2, ent_grpc=entitlement_pb2_grpc,
        testing=testing_pb2, testing_grpc=testing_pb2_grpc,
    )


class Server:
    """One running entitlementd; `.address` is HOST:PORT, `.proc` the Popen."""

    def __init__(self, binary: Path, workdir: Path, flags):
        self.workdir = workdir
        self.stdout_path = workdir / "stdout.log"
        self.stderr_path = workdir / "stderr.log"
        argv = [str(binary), "--listen", "127.0.0.1:0"]
        if not any(f == "--database" or f.startswith("--database=") for f in flags):
            argv += ["--database", str(workdir / "test.sqlite")]
        argv += flags
        self.argv = argv
        with open(self.stdout_path, "wb") as out, open(self.stderr_path, "wb") as err:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=workdir)
        self.address = self._wait_for_listen_line()
        self.listening_since = time.monotonic()
        self.host, port = self.address.rsplit(":", 1)
        self.port = int(port)
        self._channels = []
        # Teardown asserts a clean exit (0) unless a test that checks liveness itself opts out.
        self.check_exit_code = True

    def _wait_for_listen_line(self) -> str:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            text = self.stdout_path.read_text(errors="replace")
            if "\n" in text:
                line = text.split("\n", 1)[0]
                if not line.startswith(LISTEN_PREFIX):
                    self.kill()
                    pytest.fail(f"unexpected first stdout line {line!r}; stderr:\n{self.stderr()}")
                return line[len(LISTEN_PREFIX):].strip()
            if self.proc.poll() is not None:
                pytest.fail(f"entitlementd exited {self.proc.returncode} before listening; "
                            f"argv {self.argv}\nstderr:\n{self.stderr()}")
            time.sleep(0.02)
        self.kill()
        pytest.fail(f"entitlementd printed no listen line within {START_TIMEOUT}s; stderr:\n{self.stderr()}")

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def channel(self, **options) -> grpc.Channel:
        """An insecure channel to this server, closed at teardown. Options by grpc name
        without the `grpc.` prefix, e.g. max_send_message_length=-1."""
        opts = [(f"grpc.{k}", v) for k, v in options.items()]
        ch = grpc.insecure_channel(self.address, options=opts)
        self._channels.append(ch)
        return ch

    def signal(self, sig) -> None:
        self.proc.send_signal(sig)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self, timeout: float = STOP_TIMEOUT) -> int:
        """SIGTERM (unless already exited); returns the exit code, or None when it had to be
        killed after `timeout` seconds."""
        for ch in self._channels:
            ch.close()
        self._channels.clear()
        if self.proc.poll() is None:
            self.signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return None


@pytest.fixture
def server(binary, tmp_path, request):
    """Factory: server(*flags) starts entitlementd-testing (so the testing service is served) on
    a free port with a fresh --database (unless flags name one); every server started is stopped with SIGTERM at teardown and must
    exit 0 within 15 s. In the cluster stage (ENTITLEMENTD_CLUSTER=N) it starts N replicas over
    PostgreSQL behind haproxy instead, `replicas=` overriding N, `spread=True` balancing the test's
    connections over them instead of pinning them to replica 0 (cluster.py says what goes where)."""
    started = []
    clusters = cluster.clusters_for(request, binary, Server)

    def start(*flags, replicas=None, spread=False) -> Server:
        workdir = tmp_path / f"server{len(started)}"
        workdir.mkdir()
        flags = [str(f) for f in flags]
        s = clusters.start(workdir, flags, replicas, spread) if clusters else Server(binary, workdir, flags)
        started.append(s)
        return s

    yield start
    failures = []
    for s in started:
        code = s.stop()
        if code != 0 and s.check_exit_code:
            failures.append(f"{s.argv}: exit {code if code is not None else 'none (killed after 15 s)'}"
                            f"\nstderr tail:\n{s.stderr()[-2000:]}")
    if clusters:
        clusters.drop_databases()
    if failures:
        pytest.fail("entitlementd did not shut down cleanly:\n" + "\n".join(failures))


@pytest.fixture
def default_server(server) -> Server:
    """A server with default flags (plus the testing service)."""
    return server()


def admin_address(server) -> str:
    """The admin listener's HOST:PORT (a server started with --admin-listen) from the second
    startup line, written with the first; in the cluster stage, replica 0's."""
    lines = server.stdout_path.read_text().splitlines()
    assert len(lines) >= 2 and lines[1].startswith(ADMIN_PREFIX), lines
    return lines[1][len(ADMIN_PREFIX):].strip()


def health_check(pb, channel, service: str = "", timeout: float = 5.0):
    stub = pb.health_grpc.HealthStub(channel)
    return stub.Check(pb.health.HealthCheckRequest(service=service), timeout=timeout)


def assert_serving(pb, server: Server) -> None:
    """A health Check on a brand-new channel answers SERVING."""
    with grpc.insecure_channel(server.address) as ch:
        reply = health_check(pb, ch)
        assert reply.status == pb.health.HealthCheckResponse.SERVING
