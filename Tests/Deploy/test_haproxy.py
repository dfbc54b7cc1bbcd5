"""Deploy/haproxy.cfg, run by a real haproxy in front of two production entitlementd replicas:
`haproxy -c` accepts the shipped file; grpcio over h2c and HTTP/1.1 clients share its one
port; calls are spread over both replicas; a replica whose /readyz stops answering is taken
out (and new calls still succeed) and comes back when it answers again.

The replicas each have their own SQLite file here (the checks are about haproxy, not about
shared state), so only calls whose answer does not depend on which replica serves them are
compared: health, an unknown user's entitlements, error statuses."""
import http.client
import json
import re
import signal
import subprocess
import threading
import time

import grpc
import pytest

import haproxy_harness
from deploy_support import DEPLOY, LISTEN_PREFIX, TOKEN, free_port, need_tool

AUTH = [("authorization", f"Bearer {TOKEN}")]
REPLICAS = 2


@pytest.fixture(scope="module")
def haproxy():
    return need_tool("haproxy")


def start_replica(entitlementd, work, extra=()):
    work.mkdir(exist_ok=True)
    tokens = work / "tokens"
    tokens.write_text(f"{TOKEN}\n")
    tokens.chmod(0o600)
    out, err = work / "stdout.log", work / "stderr.log"
    proc = subprocess.Popen([str(entitlementd), "--listen", "127.0.0.1:0", "--database", str(work / "db.sqlite"),
                             "--auth-tokens-file", str(tokens), *extra],
                            stdout=open(out, "wb"), stderr=open(err, "wb"), stdin=subprocess.DEVNULL, cwd=work)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        text = out.read_text(errors="replace")
        if "\n" in text:
            return proc, int(text.split("\n", 1)[0][len(LISTEN_PREFIX):].strip().rsplit(":", 1)[1])
        assert proc.poll() is None, err.read_text()
        time.sleep(0.02)
    proc.kill()
    pytest.fail(f"entitlementd did not start: {err.read_text()}")


def stop_replica(proc):
    proc.send_signal(signal.SIGCONT)  # in case a check left it stopped
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def replicas(entitlementd, tmp_path_factory):
    started = [start_replica(entitlementd, tmp_path_factory.mktemp(f"replica{i + 1}")) for i in range(REPLICAS)]
    yield started
    for proc, _ in started:
        stop_replica(proc)


@pytest.fixture(scope="module")
def proxy(haproxy, replicas, tmp_path_factory):
    port, metrics_port = free_port(), free_port()
    config = haproxy_harness.render((DEPLOY / "haproxy.cfg").read_text(), tmp_path_factory.mktemp("haproxy"),
                                    port, metrics_port, [p for _, p in replicas])
    running = haproxy_harness.start(haproxy, config, port, metrics_port)
    # Servers start UP in haproxy; wait for the first checks to have passed on both anyway.
    for number in range(1, REPLICAS + 1):
        haproxy_harness.wait_for_state(metrics_port, f"replica{number}", "UP", 20)
    yield running
    haproxy_harness.stop(running.proc)


def fresh_channel(port):
    """A channel with its own connection (grpcio shares subchannels between equal channels)."""
    return grpc.insecure_channel(f"127.0.0.1:{port}", options=[("grpc.use_local_subchannel_pool", 1),
                                                               ("grpc.enable_http_proxy", 0)])


def http1(port, method, path, body=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read(), response.version
    finally:
        conn.close()


def served_calls(port, method="CheckEntitlement"):
    """How many calls of `method` a replica answered, from its own /metrics."""
    _, body, _ = http1(port, "GET", "/metrics")
    total = 0
    for m in re.finditer(r'^entitlementd_rpc_requests_total\{([^}]*)\} (\d+)$', body.decode(), re.M):
        if f'method="/entitlement.v1.EntitlementService/{method}"' in m.group(1):
            total += int(m.group(2))
    return total


def test_haproxy_c_accepts_the_shipped_config_without_warnings(haproxy):
    r = haproxy_harness.check(haproxy, DEPLOY / "haproxy.cfg")
    output = r.stdout + r.stderr
    print(output)
    assert r.returncode == 0, output
    assert "[WARNING]" not in output and "[ALERT]" not in output, output


def test_grpc_over_h2c_is_spread_over_the_replicas(pb, replicas, proxy):
    before = [served_calls(port) for _, port in replicas]
    request = pb.ent.CheckEntitlementRequest(user_id="nobody-through-haproxy", at_ms=1_700_000_000_000)
    answers = set()
    with fresh_channel(proxy.port) as channel:
        health = pb.health_grpc.HealthStub(channel).Check(pb.health.HealthCheckRequest(), timeout=10)
        assert health.status == pb.health.HealthCheckResponse.SERVING
        stub = pb.ent_grpc.EntitlementServiceStub(channel)
        for _ in range(20):
            answers.add(stub.CheckEntitlement(request, timeout=10, metadata=AUTH).SerializeToString())
    served = [served_calls(port) - b for (_, port), b in zip(replicas, before)]
    with grpc.insecure_channel(f"127.0.0.1:{replicas[0][1]}") as direct:
        expected = pb.ent_grpc.EntitlementServiceStub(direct).CheckEntitlement(request, timeout=10, metadata=AUTH)
    assert answers == {expected.SerializeToString()}
    # haproxy balances each call (HTTP/2 stream) on its own, even on one client connection.
    assert sum(served) == 20 and all(n > 0 for n in served), f"calls per replica: {served}"


@pytest.mark.parametrize("case", ["no token", "empty user_id", "unknown method"])
def test_error_statuses_pass_through(pb, proxy, case):
    with fresh_channel(proxy.port) as channel:
        stub = pb.ent_grpc.EntitlementServiceStub(channel)
        try:
            if case == "no token":
                stub.CheckEntitlement(pb.ent.CheckEntitlementRequest(user_id="u"), timeout=10)
            elif case == "empty user_id":
                stub.CheckEntitlement(pb.ent.CheckEntitlementRequest(), timeout=10, metadata=AUTH)
            else:
                channel.unary_unary("/entitlement.v1.EntitlementService/NoSuchMethod")(b"", timeout=10, metadata=AUTH)
            pytest.fail("the call succeeded")
        except grpc.RpcError as error:
            code = error.code()
    assert code == {"no token": grpc.StatusCode.UNAUTHENTICATED, "empty user_id": grpc.StatusCode.INVALID_ARGUMENT,
                    "unknown method": grpc.StatusCode.UNIMPLEMENTED}[case]


def test_http1_routes_on_the_same_port(proxy):
    status, body, version = http1(proxy.port, "GET", "/healthz")
    assert (status, body, version) == (200, b"ok", 11)
    v1 = {"notification_type": "DID_RENEW", "environment": "PROD", "password": "not-the-secret",
          "bid": "com.example.app", "unified_receipt": {"status": 0, "latest_receipt_info": []}}
    status, _, _ = http1(proxy.port, "POST", "/apple/notifications", json.dumps(v1).encode(),
                         {"Content-Type": "application/json"})
    assert status == 401, "the webhook reached a replica, which refused the wrong password"
    status, _, _ = http1(proxy.port, "POST", "/apple/notifications", b"{not json", {"Content-Type": "application/json"})
    assert status == 400
    for method, path in [("GET", "/metrics"), ("POST", "/admin/anything"), ("GET", "/"), ("GET", "/apple/notifications")]:
        status, _, _ = http1(proxy.port, method, path)
        assert status == 404, f"{method} {path} must not reach a replica through the public port"
    _, body, _ = http1(proxy.metrics_port, "GET", "/metrics")
    assert b'haproxy_server_status{proxy="entitlementd_grpc",server="replica1",state="UP"} 1' in body


def test_idle_watch_stream_is_ended_by_the_server_timeout(pb, entitlementd, haproxy, tmp_path):
    """The shipped comment says haproxy's server timeout ends a silent Watch stream even while
    entitlementd PINGs the connection (so the shipped 1h is what bounds an idle watch): with
    the Watch timeout shortened to 2s and PINGs every 1s, the stream ends after about 2s."""
    proc, port = start_replica(entitlementd, tmp_path / "replica", ["--stream-keepalive", "1s"])
    front, metrics = free_port(), free_port()
    shipped = "set-timeout server 1h if"
    config = haproxy_harness.render((DEPLOY / "haproxy.cfg").read_text(), tmp_path, front, metrics, [port],
                                    {shipped: "set-timeout server 2s if"})
    running = haproxy_harness.start(haproxy, config, front, metrics)
    try:
        with fresh_channel(front) as channel:
            call = pb.ent_grpc.EntitlementServiceStub(channel).WatchEntitlementChanges(
                pb.ent.WatchEntitlementChangesRequest(), metadata=AUTH)
            ended = []

            def drain():
                try:
                    for _ in call:
                        pass
                    ended.append("OK")
                except grpc.RpcError as error:
                    ended.append(error.code())
            started = time.monotonic()
            thread = threading.Thread(target=drain, daemon=True)
            thread.start()
            thread.join(30)
            elapsed = time.monotonic() - started
            call.cancel()
        assert ended and ended[0] != grpc.StatusCode.CANCELLED, "the stream was not ended by haproxy"
        assert 1.5 <= elapsed < 30, f"ended after {elapsed:.1f}s"
    finally:
        haproxy_harness.stop(running.proc)
        stop_replica(proc)
    log = running.log.read_text(errors="replace")
    assert " sD-- " in log, f"haproxy did not log a server-side timeout (sD): {log[-2000:]}"


def test_kill_9_of_a_replica_fails_no_later_call(pb, entitlementd, haproxy, tmp_path):
    """SIGKILL of a replica between two calls: haproxy may still send the next call on its idle
    connection to the dead replica, or try to connect to it, before the health checks notice;
    `retry-on conn-failure empty-response` with `option redispatch` sends such a call to the
    other replica, so no call fails. Each call on a fresh connection, as short-lived callers
    (entitlementctl) make them."""
    replicas = [start_replica(entitlementd, tmp_path / f"replica{i}") for i in (1, 2)]
    front, metrics = free_port(), free_port()
    config = haproxy_harness.render((DEPLOY / "haproxy.cfg").read_text(), tmp_path, front, metrics,
                                    [port for _, port in replicas])
    running = haproxy_harness.start(haproxy, config, front, metrics)
    failures = []
    try:
        for i in range(120):
            if i == 40:
                replicas[0][0].kill()  # not waited for: the next call follows at once
            with fresh_channel(front) as channel:
                try:
                    pb.health_grpc.HealthStub(channel).Check(pb.health.HealthCheckRequest(), timeout=10)
                except grpc.RpcError as error:
                    failures.append((i, error.code(), error.details()))
    finally:
        haproxy_harness.stop(running.proc)
        for proc, _ in replicas:
            if proc.poll() is None:
                stop_replica(proc)
    log = running.log.read_text(errors="replace")
    served = [len(re.findall(rf"entitlementd_grpc/replica{n} .*Health/Check", log)) for n in (1, 2)]
    assert served[0] > 0, f"replica1 served nothing before the kill: {served}"
    assert not failures, f"calls failed after replica1 was killed: {failures}"


def test_a_replica_whose_healthz_stops_answering_is_taken_out(pb, replicas, proxy):
    """SIGSTOP freezes replica1: its /readyz times out (timeout check 1s, fall 2), haproxy
    marks it DOWN, and new calls all go to replica2. SIGCONT: it comes back UP (rise 2)."""
    frozen, _ = replicas[0]
    frozen.send_signal(signal.SIGSTOP)
    try:
        down_after = haproxy_harness.wait_for_state(proxy.metrics_port, "replica1", "DOWN", 30)
        print(f"\nreplica1 DOWN {down_after:.1f}s after SIGSTOP")
        assert haproxy_harness.server_states(proxy.metrics_port)["replica2"] == "UP"
        request = pb.ent.CheckEntitlementRequest(user_id="while-replica1-is-down", at_ms=1_700_000_000_000)
        for _ in range(10):
            with fresh_channel(proxy.port) as channel:
                stub = pb.ent_grpc.EntitlementServiceStub(channel)
                assert stub.CheckEntitlement(request, timeout=10, metadata=AUTH).entitlements is not None
    finally:
        frozen.send_signal(signal.SIGCONT)
    up_after = haproxy_harness.wait_for_state(proxy.metrics_port, "replica1", "UP", 30)
    print(f"replica1 UP {up_after:.1f}s after SIGCONT")
