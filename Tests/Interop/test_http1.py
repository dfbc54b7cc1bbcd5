"""HTTP/1.1 on the same port: /healthz, /metrics, and the protocol's error answers."""
import http.client
import re
import socket
import time

import pytest


def _conn(server):
    return http.client.HTTPConnection(server.host, server.port, timeout=5)


def _raw_exchange(server, data: bytes, read_timeout=5.0) -> bytes:
    """Sends `data` on a fresh connection and returns everything read until close/timeout."""
    sock = socket.create_connection((server.host, server.port), timeout=read_timeout)
    try:
        try:
            sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass
        chunks = []
        try:
            while True:
                b = sock.recv(65536)
                if not b:
                    break
                chunks.append(b)
        except (socket.timeout, ConnectionResetError):
            pass
        return b"".join(chunks)
    finally:
        sock.close()


def _status(raw: bytes) -> int:
    assert raw.startswith(b"HTTP/1.1 "), f"not an HTTP/1.1 response: {raw[:200]!r}"
    return int(raw.split(b" ", 2)[1])


def test_healthz(default_server):
    c = _conn(default_server)
    c.request("GET", "/healthz")
    r = c.getresponse()
    assert r.status == 200
    assert r.read().strip() == b"ok"
    c.close()


def test_keep_alive_two_requests_on_one_connection(default_server):
    c = _conn(default_server)
    c.request("GET", "/healthz")
    r1 = c.getresponse()
    assert r1.status == 200 and r1.read().strip() == b"ok"
    assert not r1.will_close, "server asked to close a keep-alive connection"
    sock = c.sock
    c.request("GET", "/metrics")
    r2 = c.getresponse()
    assert r2.status == 200 and r2.read()
    assert c.sock is sock, "the client had to reconnect for the second request"
    c.close()


def test_pipelined_requests_answered_in_order(default_server):
    req = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    raw = _raw_exchange(default_server, req + req + b"GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    statuses = [int(code) for code in re.findall(rb"HTTP/1\.1 (\d{3}) ", raw)]
    assert statuses == [200, 200, 404], raw[:500]


def test_unknown_path_is_404(default_server):
    c = _conn(default_server)
    c.request("GET", "/no/such/path")
    r = c.getresponse()
    r.read()
    assert r.status == 404


def test_post_healthz_is_405(default_server):
    c = _conn(default_server)
    c.request("POST", "/healthz", body=b"x")
    r = c.getresponse()
    r.read()
    assert r.status == 405


@pytest.mark.single_process("haproxy answers a malformed HTTP/1.1 request itself")
def test_content_length_and_transfer_encoding_is_400(default_server):
    raw = _raw_exchange(default_server,
                        b"POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                        b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
    assert _status(raw) == 400, raw[:300]


def test_malformed_http1_head_is_400(default_server):
    """A real HTTP/1.1 request line with a broken header gets its 400."""
    raw = _raw_exchange(default_server, b"GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n")
    assert _status(raw) == 400, raw[:300]


@pytest.mark.single_process("haproxy answers bytes that are not HTTP itself")
@pytest.mark.parametrize("garbage", [b"HELLO\x01 THERE\r\n\r\n", b"GET /healthz HTTP/9.9\r\n\r\n",
                                     b"GET /\r\n\r\n"])
def test_bytes_that_are_not_an_http1_request_line_get_no_answer(default_server, garbage):
    """Not HTTP/1.x and not the HTTP/2 preface: closed without an answer in a protocol the
    peer never spoke (see test_http2_conformance.py for the HTTP/2 side)."""
    assert _raw_exchange(default_server, garbage) == b""


def test_header_block_over_limit_is_431(default_server):
    raw = _raw_exchange(default_server,
                        b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20000 + b"\r\n\r\n")
    assert _status(raw) == 431, raw[:300]


def test_body_over_max_message_size_is_413(server):
    s = server("--max-message-size", "65536")
    body = b"b" * 100_000
    raw = _raw_exchange(s, b"POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    assert _status(raw) == 413, raw[:300]


def test_chunked_body_over_max_message_size_is_413(server):
    s = server("--max-message-size", "65536")
    chunk = b"c" * 40_000
    one = b"%x\r\n" % len(chunk) + chunk + b"\r\n"
    raw = _raw_exchange(s, b"POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + one * 3 + b"0\r\n\r\n")
    assert _status(raw) == 413, raw[:300]


@pytest.mark.single_process(
    "--header-read-timeout is on the server's own connections; clients of the cluster talk to haproxy")
def test_slow_request_head_times_out(server):
    s = server("--header-read-timeout", "1s")
    sock = socket.create_connection((s.host, s.port), timeout=5)
    sock.sendall(b"GET /heal")
    started = time.monotonic()
    sock.settimeout(6)
    data = b""
    try:
        while True:
            b = sock.recv(4096)
            if not b:
                break
            data += b
    except ConnectionResetError:
        pass
    except socket.timeout:
        pytest.fail("a partial request head was held open for 6 s despite --header-read-timeout 1s")
    finally:
        sock.close()
    elapsed = time.monotonic() - started
    assert 0.8 <= elapsed < 4, f"closed after {elapsed:.2f}s"
    if data:
        assert _status(data) == 408, data[:300]


def test_idle_keep_alive_not_cut_by_header_read_timeout(server):
    """The head timeout applies to a request in progress, not to an idle keep-alive connection."""
    s = server("--header-read-timeout", "1s")
    c = _conn(s)
    c.request("GET", "/healthz")
    r = c.getresponse()
    assert r.status == 200 and r.read()
    sock = c.sock
    time.sleep(2)
    c.request("GET", "/healthz")
    r = c.getresponse()
    assert r.status == 200 and r.read()
    assert c.sock is sock, "the idle keep-alive connection was closed by the header read timeout"


def test_metrics(default_server):
    c = _conn(default_server)
    c.request("GET", "/metrics")
    r = c.getresponse()
    body = r.read().decode()
    assert r.status == 200
    assert r.getheader("Content-Type", "").startswith("text/plain")
    assert "entitlementd_open_connections" in body
    assert "# TYPE entitlementd_open_connections gauge" in body


@pytest.mark.single_process("counts in one process's /metrics; in the cluster the calls spread over the replicas")
def test_metrics_count_rpcs_by_method_and_code(pb, default_server):
    from conftest import health_check
    ch = default_server.channel()
    for _ in range(3):
        health_check(pb, ch)
    c = _conn(default_server)
    c.request("GET", "/metrics")
    body = c.getresponse().read().decode()
    lines = [l for l in body.splitlines()
             if l.startswith("entitlementd_rpc_requests_total{") and "/grpc.health.v1.Health/Check" in l]
    assert lines, body
    assert sum(float(l.rsplit(" ", 1)[1]) for l in lines if 'code="OK"' in l) >= 3, lines
