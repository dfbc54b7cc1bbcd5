"""Hostile or broken TCP peers must not hurt other callers: after each, health still answers."""
import os
import re
import socket
import struct
import time

import pytest

from conftest import assert_serving

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def _connect(server, timeout=5.0):
    return socket.create_connection((server.host, server.port), timeout=timeout)


def _wait_closed(sock, timeout=5.0) -> bool:
    """Reads until the server closes (EOF or reset); False if it is still open after `timeout`."""
    sock.settimeout(timeout)
    end = time.monotonic() + timeout
    try:
        while time.monotonic() < end:
            if not sock.recv(65536):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False
    return False


def _send_ignoring_reset(sock, data):
    try:
        sock.sendall(data)
    except (ConnectionResetError, BrokenPipeError):
        pass


def _frame(type_, flags, stream, payload):
    return struct.pack(">I", len(payload))[1:] + bytes([type_, flags]) + struct.pack(">I", stream) + payload


def _open_connections_gauge(server) -> float:
    import http.client
    conn = http.client.HTTPConnection(server.host, server.port, timeout=5)
    conn.request("GET", "/metrics")
    body = conn.getresponse().read().decode()
    conn.close()
    m = re.search(r"^entitlementd_open_connections(?:\{[^}]*\})? ([0-9.e+]+)$", body, re.M)
    assert m, f"no entitlementd_open_connections sample in /metrics:\n{body}"
    return float(m.group(1))


def test_random_garbage_is_dropped(pb, default_server):
    sock = _connect(default_server)
    _send_ignoring_reset(sock, os.urandom(4096))
    assert _wait_closed(sock), "server kept a connection open after 4 KB of garbage"
    sock.close()
    assert_serving(pb, default_server)


def test_preface_then_garbage_is_dropped(pb, default_server):
    sock = _connect(default_server)
    # 0xff-filled bytes read as a frame header claim a 16 MiB frame of an unknown type; mix in
    # random bytes too so the frame parser sees nonsense, not just an oversized length.
    _send_ignoring_reset(sock, PREFACE + b"\xff" * 9 + os.urandom(4096))
    assert _wait_closed(sock), "server kept a connection open after the preface and garbage"
    sock.close()
    assert_serving(pb, default_server)


@pytest.mark.parametrize("cut", ["settings", "headers"])
def test_half_sent_frame_then_close(pb, default_server, cut):
    sock = _connect(default_server)
    if cut == "settings":
        frame = _frame(0x4, 0x0, 0, struct.pack(">HI", 0x3, 100) * 4)
        data = PREFACE + frame[:15]
    else:
        # A HEADERS frame claiming 200 bytes of header block, cut after a few.
        data = PREFACE + _frame(0x4, 0, 0, b"") + _frame(0x1, 0x4 | 0x1, 1, b"\x82\x86\x84" + b"\x00" * 197)[:20]
    sock.sendall(data)
    time.sleep(0.1)
    sock.close()
    assert_serving(pb, default_server)


def test_abrupt_reset_mid_call(pb, default_server):
    """An RST (SO_LINGER 0) while a stream is open does not upset the server."""
    sock = _connect(default_server)
    sock.sendall(PREFACE + _frame(0x4, 0, 0, b""))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()
    assert_serving(pb, default_server)


@pytest.mark.single_process("counts one process's open connections; idle clients hold haproxy's")
def test_500_idle_connections(pb, default_server):
    socks = []
    try:
        for _ in range(500):
            socks.append(_connect(default_server))
        # Some idle connections completed only the TCP handshake; give the loop a moment to
        # accept them all before counting.
        deadline = time.monotonic() + 5
        while _open_connections_gauge(default_server) < 500 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _open_connections_gauge(default_server) >= 500
        assert_serving(pb, default_server)
        ch = default_server.channel()
        stub = pb.testing_grpc.TestingStub(ch)
        stub.Sleep(pb.testing.SleepRequest(milliseconds=1), timeout=5)
    finally:
        for s in socks:
            s.close()
    # Closed connections are noticed and released.
    deadline = time.monotonic() + 5
    while _open_connections_gauge(default_server) > 10 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _open_connections_gauge(default_server) <= 10


@pytest.mark.single_process("--max-connections bounds one process's connections; clients connect to haproxy")
def test_max_connections_limit_closes_extra_connections(pb, server):
    s = server("--max-connections", "5")
    socks = [_connect(s) for _ in range(5)]
    try:
        time.sleep(0.2)
        extra = _connect(s)
        assert _wait_closed(extra, 3), "a connection over --max-connections was kept open"
        extra.close()
    finally:
        for sock in socks:
            sock.close()
    time.sleep(0.3)
    assert_serving(pb, s)
