"""Liveness (/healthz) and readiness (/readyz, the gRPC health service) as probes see them.

/healthz answers 200 while the process can answer at all, with a body that names nothing; /readyz
answers 503 with one short code (store_unavailable, draining) while the replica should get no
calls, and the gRPC health check answers NOT_SERVING exactly then. A PostgreSQL database that
stops answering takes the replica out within 5 s and its return puts it back within 5 s, in the
same process; meanwhile writes fail fast with UNAVAILABLE. Requests without :authority or Host
are probes' requests too (haproxy's checks, over HTTP/1.1 and HTTP/2): they are served.
"""
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.parse
import uuid

import grpc
import h2.config
import h2.connection
import h2.events
import pytest
from hpack import Decoder
from hyperframe.frame import PingFrame

from haproxy import Haproxy
from ports import free_port
from postgres_server import PrivatePostgres
from test_entitlements import DAY, NOW, check, seed, tx
from test_graceful_drain import answers, pings
from test_http2_conformance import RawPeer, request

pytestmark = pytest.mark.single_process("probes of one process; the cluster stage checks haproxy's own")

SERVER_URL = os.environ.get("ENTITLEMENTD_TEST_POSTGRES_URL", "")
needs_postgres = pytest.mark.skipif(not SERVER_URL, reason="ENTITLEMENTD_TEST_POSTGRES_URL is not set")
# The promise to balancers: out, and back in, within this.
WITHIN = 5.0


def get(address, path, host=True):
    """(status, body) of an HTTP/1.1 GET, with or without a Host header."""
    hostname, port = address.rsplit(":", 1)
    with socket.create_connection((hostname, int(port)), timeout=10) as sock:
        head = f"GET {path} HTTP/1.1\r\n" + ("Host: x\r\n" if host else "") + "Connection: close\r\n\r\n"
        sock.sendall(head.encode())
        raw = b""
        while chunk := sock.recv(65536):
            raw += chunk
    head, _, body = raw.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body.decode()


def h2_get(address, path, fields):
    """(status, body) of an HTTP/2 GET sending exactly `fields` after :method/:scheme/:path;
    (None, error code) when the server resets the stream."""
    hostname, port = address.rsplit(":", 1)
    config = h2.config.H2Configuration(client_side=True, validate_outbound_headers=False,
                                       normalize_outbound_headers=False)
    connection = h2.connection.H2Connection(config)
    with socket.create_connection((hostname, int(port)), timeout=10) as sock:
        connection.initiate_connection()
        connection.send_headers(1, [(":method", "GET"), (":scheme", "http"), (":path", path)] + fields,
                                end_stream=True)
        sock.sendall(connection.data_to_send())
        status, body = None, b""
        while True:
            data = sock.recv(65536)
            assert data, "the server closed the connection without answering"
            for event in connection.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived):
                    status = int(dict(event.headers)[b":status"])
                elif isinstance(event, h2.events.DataReceived):
                    body += event.data
                elif isinstance(event, h2.events.StreamEnded):
                    return status, body.decode()
                elif isinstance(event, h2.events.StreamReset):
                    return None, event.error_code
            sock.sendall(connection.data_to_send())


def health_status(pb, channel, service=""):
    stub = pb.health_grpc.HealthStub(channel)
    return stub.Check(pb.health.HealthCheckRequest(service=service), timeout=5).status


def wait_until(what, predicate, seconds):
    deadline = time.monotonic() + seconds
    while not (value := predicate()):
        assert time.monotonic() < deadline, f"{what}: not within {seconds} s"
        time.sleep(0.05)
    return value


def test_sqlite_server_is_live_and_ready_and_names_no_path(pb, server, tmp_path):
    database = tmp_path / "private-dir" / "store.sqlite"
    database.parent.mkdir()
    s = server("--database", database)
    assert get(s.address, "/healthz") == (200, "ok")
    assert get(s.address, "/readyz") == (200, "ok")
    for path in ("/healthz", "/readyz"):
        _, body = get(s.address, path)
        assert "private-dir" not in body and "sqlite" not in body and "/" not in body, body
    with s.channel() as channel:
        for service in ("", "entitlement.v1.EntitlementService"):
            assert health_status(pb, channel, service) == pb.health.HealthCheckResponse.SERVING


def test_requests_without_host_are_served(default_server):
    """haproxy's checks send no Host (HTTP/1.1) unless configured to; HTTP/1.1 needs none to route."""
    assert get(default_server.address, "/readyz", host=False) == (200, "ok")
    assert get(default_server.address, "/healthz", host=False) == (200, "ok")


def test_http2_request_with_host_instead_of_authority_is_served(default_server):
    assert h2_get(default_server.address, "/readyz", [("host", "x")]) == (200, "ok")


def test_http2_request_without_authority_is_served(default_server):
    assert h2_get(default_server.address, "/readyz", []) == (200, "ok")


@pytest.mark.skipif(not shutil.which("haproxy"), reason="haproxy is not installed")
def test_haproxy_http2_check_finds_the_replica_up(pb, default_server, tmp_path):
    """haproxy 2.6's HTTP/2 check (`check-proto h2`) sends no :authority and no host; served, it
    keeps the replica up, and calls go through. Were it reset, two failed checks (1 s) would
    mark the replica DOWN and every call through haproxy would fail."""
    proxy = Haproxy(tmp_path, f"127.0.0.1:{free_port()}", [default_server.address], check_proto="h2")
    try:
        time.sleep(2.5)
        with grpc.insecure_channel(proxy.listen) as channel:
            assert health_status(pb, channel) == pb.health.HealthCheckResponse.SERVING
        assert "DOWN" not in proxy.log(), proxy.log()
    finally:
        proxy.stop()


def test_health_watch_sends_serving_then_not_serving_and_ends_when_draining(pb, server):
    s = server("--shutdown-grace-period", "20s")
    with s.channel() as channel:
        stub = pb.health_grpc.HealthStub(channel)
        stream = stub.Watch(pb.health.HealthCheckRequest(service=""), timeout=30)
        statuses = iter(stream)
        assert next(statuses).status == pb.health.HealthCheckResponse.SERVING
        unknown = stub.Watch(pb.health.HealthCheckRequest(service="nope"), timeout=30)
        assert next(iter(unknown)).status == pb.health.HealthCheckResponse.SERVICE_UNKNOWN
        unknown.cancel()
        started = time.monotonic()
        s.signal(signal.SIGTERM)
        assert next(statuses).status == pb.health.HealthCheckResponse.NOT_SERVING
        assert list(statuses) == [], "the stream ends after NOT_SERVING"
        assert time.monotonic() - started < 10, "the Watch stream does not hold the drain"
    assert s.proc.wait(timeout=15) == 0


def test_readyz_says_draining_while_a_slow_call_holds_the_drain(pb, server):
    """A balancer's connection still open when the drain begins (streams it sent before it
    read the shutdown notice) reads `draining` from /readyz and `ok` from /healthz."""
    s = server("--shutdown-grace-period", "20s")
    slow = pb.testing_grpc.TestingStub(s.channel()).Sleep.future(pb.testing.SleepRequest(milliseconds=3000),
                                                                 timeout=30)
    time.sleep(0.3)
    peer = RawPeer(s, timeout=15)
    decoder = Decoder()
    try:
        peer.open()
        peer.frames(until=lambda fs: any(f.__class__.__name__ == "SettingsFrame" for f in fs), timeout=15)
        s.signal(signal.SIGTERM)
        notice = peer.frames(until=lambda fs: pings(fs), timeout=15)
        peer.headers(1, request("/readyz"))
        peer.headers(3, request("/healthz"))
        ack = PingFrame(0)
        ack.flags.add("ACK")
        ack.opaque_data = pings(notice)[0].opaque_data
        peer.send(ack.serialize())
        seen = answers(peer.frames(until=lambda fs: False, timeout=15), decoder)
        assert (seen[1][0][":status"], seen[1][1]) == ("503", b"draining\n"), seen
        assert (seen[3][0][":status"], seen[3][1]) == ("200", b"ok"), "liveness holds through the drain"
    finally:
        peer.close()
    slow.result()
    assert s.proc.wait(timeout=15) == 0


def psql(sql):
    subprocess.run(["psql", SERVER_URL, "-qc", sql], check=True, capture_output=True)


@pytest.fixture
def postgres_database():
    name = "readiness_" + uuid.uuid4().hex
    psql(f"CREATE DATABASE {name}")
    yield name, SERVER_URL.rsplit("/", 1)[0] + "/" + name
    psql(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
    psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@needs_postgres
def test_postgresql_outage_takes_the_replica_out_and_its_return_puts_it_back(pb, server, postgres_database):
    """The database refusing connections (its sessions ended) is the replica's outage: it can
    neither write nor hear the other replicas."""
    name, url = postgres_database
    parts = urllib.parse.urlsplit(url)
    s = server("--database", url)
    channel = s.channel()
    seed(pb, channel, "alice", [tx("1", "1", "pro.monthly", NOW - DAY, NOW + 30 * DAY)])
    assert get(s.address, "/readyz") == (200, "ok")

    psql(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
    psql(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")
    out = time.monotonic()
    wait_until("/readyz 503", lambda: get(s.address, "/readyz") == (503, "store_unavailable\n"), WITHIN)
    wait_until("NOT_SERVING", lambda: all(health_status(pb, channel, service) ==
                                          pb.health.HealthCheckResponse.NOT_SERVING
                                          for service in ("", "entitlement.v1.EntitlementService")),
               WITHIN - (time.monotonic() - out))
    status, body = get(s.address, "/healthz")
    assert (status, body) == (200, "ok"), "liveness: the process is fine, restarting it cures nothing"
    for secret in (parts.hostname, str(parts.port), parts.username, name, "postgres"):
        assert secret not in body

    started = time.monotonic()
    with pytest.raises(grpc.RpcError) as refused:
        seed(pb, channel, "bob", [tx("2", "2", "pro.monthly", NOW - DAY, NOW + 30 * DAY)])
    took = time.monotonic() - started
    print(f"\na write while the database is away: {refused.value.code().name} after {took:.3f} s")
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE, refused.value.details()
    assert took < 2, f"a write while the store is down fails fast, took {took:.2f} s"
    log = s.stderr()
    assert "/readyz answers 503 store_unavailable" in log, log

    psql(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
    back = time.monotonic()
    wait_until("/readyz 200", lambda: get(s.address, "/readyz") == (200, "ok"), WITHIN)
    wait_until("SERVING", lambda: health_status(pb, channel) == pb.health.HealthCheckResponse.SERVING,
               WITHIN - (time.monotonic() - back))
    seed(pb, channel, "bob", [tx("2", "2", "pro.monthly", NOW - DAY, NOW + 30 * DAY)])
    assert check(pb, channel, "bob", product="pro.monthly").active
    assert check(pb, channel, "alice", product="pro.monthly").active


@needs_postgres
def test_a_read_only_postgresql_takes_the_replica_out_and_a_writable_one_puts_it_back(pb, server, postgres_database):
    """A database that answers but refuses writes (a primary demoted to a standby by a failover,
    or set read-only by an operator) is an outage for a replica too: every write would fail. The
    read-only default reaches new sessions, so the sessions are ended to make the replica's
    reconnect to a read-only database (as after a failover)."""
    name, url = postgres_database
    s = server("--database", url)
    channel = s.channel()
    seed(pb, channel, "alice", [tx("1", "1", "pro.monthly", NOW - DAY, NOW + 30 * DAY)])
    assert get(s.address, "/readyz") == (200, "ok")

    psql(f"ALTER DATABASE {name} SET default_transaction_read_only = on")
    psql(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")
    wait_until("/readyz 503", lambda: get(s.address, "/readyz") == (503, "store_unavailable\n"), WITHIN)
    # The sessions' end takes it out first; the reconnect then finds the database read-only.
    wait_until("the read-only cause in the log", lambda: "PostgreSQL is read-only" in s.stderr(), WITHIN)
    assert get(s.address, "/readyz") == (503, "store_unavailable\n"), "reconnected, still out: read-only"
    assert health_status(pb, channel) == pb.health.HealthCheckResponse.NOT_SERVING
    with pytest.raises(grpc.RpcError) as refused:
        seed(pb, channel, "bob", [tx("2", "2", "pro.monthly", NOW - DAY, NOW + 30 * DAY)])
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE, refused.value.details()
    assert check(pb, channel, "alice", product="pro.monthly").active, "reads still answer"

    psql(f"ALTER DATABASE {name} RESET default_transaction_read_only")
    psql(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")
    wait_until("/readyz 200", lambda: get(s.address, "/readyz") == (200, "ok"), WITHIN)
    seed(pb, channel, "bob", [tx("2", "2", "pro.monthly", NOW - DAY, NOW + 30 * DAY)])
    assert check(pb, channel, "bob", product="pro.monthly").active


@needs_postgres
@pytest.mark.skipif(not shutil.which("haproxy"), reason="haproxy is not installed")
def test_haproxy_takes_a_replica_whose_store_is_down_out_within_5_s(pb, server, tmp_path):
    """Two replicas behind haproxy (`balance first`: replica 0 while it is up), each on a
    database of its own; replica 0's database stops answering: within 5 s haproxy's /readyz check
    has taken it out and calls through haproxy are answered by replica 1; back in when it returns."""
    names = ["readiness_" + uuid.uuid4().hex for _ in range(2)]
    for name in names:
        psql(f"CREATE DATABASE {name}")
    proxy, replicas = None, []
    try:
        replicas += [server("--database", SERVER_URL.rsplit("/", 1)[0] + "/" + name) for name in names]
        for index, replica in enumerate(replicas):
            seed(pb, replica.channel(), "carol", [tx(str(index + 1), str(index + 1), "pro.monthly", NOW - DAY,
                                                     NOW + 30 * DAY)])
        workdir = tmp_path / "haproxy"
        workdir.mkdir()
        proxy = Haproxy(workdir, f"127.0.0.1:{free_port()}", [r.address for r in replicas])

        def served_by():
            """Which replica answered a call through haproxy (its own seeded transaction), or None."""
            with grpc.insecure_channel(proxy.listen) as channel:
                try:
                    answer = check(pb, channel, "carol", product="pro.monthly")
                except grpc.RpcError:
                    return None
            return {e.product_id for e in answer.entitlements} and answer

        wait_until("haproxy serves", served_by, 10)
        psql(f"ALTER DATABASE {names[0]} ALLOW_CONNECTIONS false")
        psql(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{names[0]}'")
        out = time.monotonic()
        wait_until("replica 0 not ready", lambda: get(replicas[0].address, "/readyz")[0] == 503, WITHIN)
        # Three calls in a row succeed: none reached replica 0, which answers UNAVAILABLE.
        wait_until("calls through haproxy reach replica 1 only",
                   lambda: all(served_by() for _ in range(3)), WITHIN - (time.monotonic() - out))
        took = time.monotonic() - out
        print(f"\nreplica 0 out of haproxy's rotation {took:.2f} s after its database went away")
        assert "DOWN" in proxy.log(), proxy.log()

        psql(f"ALTER DATABASE {names[0]} ALLOW_CONNECTIONS true")
        wait_until("replica 0 ready again", lambda: get(replicas[0].address, "/readyz") == (200, "ok"), WITHIN)
    finally:
        if proxy:
            proxy.stop()
        for name in names:
            psql(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
        for replica in replicas:
            assert replica.stop() == 0, replica.stderr()[-2000:]
        for name in names:
            psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.mark.single_process("stops and starts a PostgreSQL server of its own")
def test_a_stopped_postgresql_server_takes_the_replica_out_and_its_restart_puts_it_back(pb, server, tmp_path):
    """The whole server stopped (connections refused), on a private one this test owns."""
    private = PrivatePostgres()

    def postgres(command):
        return private.start() if command == "start" else private.run(command)

    url = postgres("start")
    try:
        s = server("--database", url)
        channel = s.channel()
        seed(pb, channel, "dora", [tx("1", "1", "pro.monthly", NOW - DAY, NOW + 30 * DAY)])
        postgres("stop")
        wait_until("/readyz 503", lambda: get(s.address, "/readyz") == (503, "store_unavailable\n"), WITHIN)
        assert health_status(pb, channel) == pb.health.HealthCheckResponse.NOT_SERVING
        assert get(s.address, "/healthz") == (200, "ok")
        started = time.monotonic()
        with pytest.raises(grpc.RpcError) as refused:
            seed(pb, channel, "erin", [tx("2", "2", "pro.monthly", NOW - DAY, NOW + 30 * DAY)])
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE and time.monotonic() - started < 2
        assert postgres("start") == url, "restarted on its port"
        wait_until("/readyz 200", lambda: get(s.address, "/readyz") == (200, "ok"), WITHIN)
        wait_until("SERVING", lambda: health_status(pb, channel) == pb.health.HealthCheckResponse.SERVING, WITHIN)
        seed(pb, channel, "erin", [tx("2", "2", "pro.monthly", NOW - DAY, NOW + 30 * DAY)])
        assert check(pb, channel, "dora", product="pro.monthly").active
        assert s.stop() == 0, s.stderr()[-2000:]
    finally:
        private.close()
