"""The server's own connection timeouts, each on the path that files it in the event loop's timeout
wheel: a silent connection (--header-read-timeout from accept), an idle HTTP/2 connection
(--idle-timeout, pushed later by traffic), and a request head begun on a keep-alive connection that
had been filed for its much later idle timeout (the head timeout must still apply)."""
import socket
import struct
import time

import pytest

pytestmark = pytest.mark.single_process(
    "timeouts of the server's own connections; clients of the cluster talk to haproxy")

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
SETTINGS, PING, GOAWAY = 4, 6, 7


def _frame(kind: int, flags: int = 0, payload: bytes = b"") -> bytes:
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", 0) + payload


def _closed_after(sock: socket.socket, limit: float) -> tuple[float, bytes]:
    """Reads until the server closes (or `limit` seconds pass): (seconds waited, bytes read)."""
    started = time.monotonic()
    data = b""
    while time.monotonic() - started < limit:
        sock.settimeout(max(0.01, limit - (time.monotonic() - started)))
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        except ConnectionResetError:
            return time.monotonic() - started, data
        if not chunk:
            return time.monotonic() - started, data
        data += chunk
    pytest.fail(f"still open after {limit} s (read {data[:200]!r})")


def _frame_types(data: bytes) -> list[int]:
    types, offset = [], 0
    while offset + 9 <= len(data):
        length = int.from_bytes(data[offset:offset + 3], "big")
        types.append(data[offset + 3])
        offset += 9 + length
    return types


def test_a_connection_that_sends_nothing_is_closed_after_the_header_read_timeout(server):
    s = server("--header-read-timeout", "1s")
    sock = socket.create_connection((s.host, s.port), timeout=5)
    try:
        waited, data = _closed_after(sock, 6)
    finally:
        sock.close()
    assert 0.8 <= waited < 4, f"closed after {waited:.2f} s"
    assert data == b"", data[:200]


def test_an_idle_http2_connection_gets_goaway_after_the_idle_timeout_counted_from_its_last_frame(server):
    s = server("--idle-timeout", "2s")
    sock = socket.create_connection((s.host, s.port), timeout=5)
    try:
        sock.sendall(PREFACE + _frame(SETTINGS) + _frame(SETTINGS, flags=1))
        # 3 s of PINGs, longer than the idle timeout: each pushes the deadline later, so the
        # connection must outlive the deadline it was first filed for.
        started = time.monotonic()
        while time.monotonic() - started < 3:
            sock.sendall(_frame(PING, payload=b"keepopen"))
            time.sleep(0.4)
        last_frame = time.monotonic()
        waited, data = _closed_after(sock, 8)
    finally:
        sock.close()
    types = _frame_types(data)
    assert GOAWAY in types, f"frames before close: {types}"
    assert types.count(PING) >= 7, f"the PINGs were answered while the connection lived: {types}"
    closed_at = last_frame + waited
    assert closed_at - started > 3, "closed while PINGs were still arriving"
    assert 1.5 <= waited < 5, f"closed {waited:.2f} s after the last frame, --idle-timeout 2s"


def test_a_request_head_begun_on_an_idle_keep_alive_connection_still_times_out(server):
    s = server("--header-read-timeout", "1s")
    sock = socket.create_connection((s.host, s.port), timeout=5)
    try:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += sock.recv(65536)
        assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
        # Idle past the head timeout: the connection is now filed for its 300 s idle timeout.
        time.sleep(2)
        sock.sendall(b"GET /heal")
        waited, data = _closed_after(sock, 6)
    finally:
        sock.close()
    assert 0.8 <= waited < 4, f"a half-sent request head was held {waited:.2f} s with --header-read-timeout 1s"
    if data:
        assert b"HTTP/1.1 408" in data, data[:300]  # (after the rest of the first answer's body)
