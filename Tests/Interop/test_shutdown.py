"""SIGTERM drains: in-flight calls finish, new connections are not served, exit code 0."""
import signal
import socket
import subprocess
import time

import grpc
import pytest

pytestmark = pytest.mark.single_process(
    "what a client of the server sees of its SIGTERM drain; clients of the cluster talk to haproxy (test_cluster.py restarts replicas under load)")


def _start_sleep(pb, channel, ms):
    return pb.testing_grpc.TestingStub(channel).Sleep.future(pb.testing.SleepRequest(milliseconds=ms), timeout=10)


def _sigterm_during_call(pb, s):
    ch = s.channel()
    call = _start_sleep(pb, ch, 1500)
    time.sleep(0.3)  # let the call reach the handler
    assert not call.done()
    s.signal(signal.SIGTERM)
    time.sleep(0.2)  # let shutdown begin
    return call


def test_in_flight_call_completes_and_exit_is_zero(pb, server):
    s = server()
    started = time.monotonic()
    call = _sigterm_during_call(pb, s)
    call.result()  # raises if the drain cut the call
    assert time.monotonic() - started >= 1.4
    assert s.proc.wait(timeout=15) == 0
    assert "stopped" in s.stderr()


def test_new_grpc_call_after_sigterm_is_not_served(pb, server):
    s = server()
    call = _sigterm_during_call(pb, s)
    with grpc.insecure_channel(s.address) as fresh:
        with pytest.raises(grpc.RpcError) as err:
            pb.health_grpc.HealthStub(fresh).Check(pb.health.HealthCheckRequest(), timeout=0.5)
        assert err.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
    call.result()
    assert s.proc.wait(timeout=15) == 0


def test_new_tcp_connection_after_sigterm_is_refused(pb, server):
    s = server()
    call = _sigterm_during_call(pb, s)
    try:
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection((s.host, s.port), timeout=1).close()
    finally:
        call.result()
        assert s.proc.wait(timeout=15) == 0


def test_idle_connections_do_not_delay_exit(pb, server):
    """Idle HTTP/2 and HTTP/1.1 connections are closed at shutdown, not waited on for the grace period."""
    import http.client
    s = server()
    ch = s.channel()
    pb.health_grpc.HealthStub(ch).Check(pb.health.HealthCheckRequest(), timeout=5)
    h1 = http.client.HTTPConnection(s.host, s.port, timeout=5)
    h1.request("GET", "/healthz")
    h1.getresponse().read()
    raw = socket.create_connection((s.host, s.port), timeout=5)  # not even a preface
    started = time.monotonic()
    s.signal(signal.SIGTERM)
    try:
        assert s.proc.wait(timeout=15) == 0
        assert time.monotonic() - started < 3, "shutdown waited on idle connections"
    finally:
        raw.close()
        h1.close()


def test_sigterm_right_after_listen_line_shuts_down_cleanly(binary, tmp_path):
    """Supervisors and scripts may stop the server as soon as it says it is listening."""
    outcomes = []
    for i in range(30):
        p = subprocess.Popen([str(binary), "--listen", "127.0.0.1:0", "--database", str(tmp_path / "db.sqlite")],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        try:
            assert p.stdout.readline().startswith(b"entitlementd listening on ")
            if i % 2:
                time.sleep(0.001)
            p.send_signal(signal.SIGTERM)
            try:
                outcomes.append(p.wait(timeout=2))
            except subprocess.TimeoutExpired:
                outcomes.append("hung")
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            p.stdout.close()
        if outcomes[-1] != 0:
            break
    assert outcomes == [0] * 30, f"exit codes after an immediate SIGTERM: {outcomes}"
