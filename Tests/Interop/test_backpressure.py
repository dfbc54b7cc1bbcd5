"""A client that sends requests but never reads the answers cannot make the server buffer
answers without bound: past a backlog the server stops reading from that connection."""
import socket
import struct
import time

import pytest

pytestmark = pytest.mark.single_process(
    "measures the memory of the process a raw connection reaches; in front of the cluster that is haproxy")


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def literal(name: bytes, value: bytes) -> bytes:
    # HPACK literal header field without indexing, new name, no Huffman coding.
    return b"\x00" + bytes([len(name)]) + name + bytes([len(value)]) + value


def history_request(stream, user):
    """A ListHistory call (so each answer is larger than the request)."""
    headers = (literal(b":method", b"POST") + literal(b":scheme", b"http") + literal(b":authority", b"x")
               + literal(b":path", b"/entitlement.v1.EntitlementService/ListHistory")
               + literal(b"content-type", b"application/grpc") + literal(b"te", b"trailers"))
    message = b"\x0a" + bytes([len(user)]) + user + b"\x10\xf4\x03"  # user_id, page_size 500
    body = b"\x00" + struct.pack(">I", len(message)) + message
    return frame(0x1, 0x4, stream, headers) + frame(0x0, 0x1, stream, body)


def rss_kb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1])
    return 0


def test_non_reading_client_is_throttled(pb, default_server):
    import json
    now = int(time.time() * 1000)
    txs = [{"transaction_id": f"bp{i}", "original_transaction_id": "bp0", "product_id": "pro",
            "purchase_date_ms": now - (100 - i) * 1000, "expires_date_ms": now + i} for i in range(100)]
    pb.testing_grpc.TestingStub(default_server.channel()).Seed(
        pb.testing.SeedRequest(user_id="bp", facts_json=json.dumps({"transactions": txs})))
    before = rss_kb(default_server.proc.pid)

    sock = socket.create_connection((default_server.host, default_server.port))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(0x4, 0, 0))
    sock.setblocking(False)
    sent, stream, deadline = 0, 1, time.monotonic() + 4
    while time.monotonic() < deadline:
        data = history_request(stream, b"bp")
        try:
            n = sock.send(data)
        except BlockingIOError:
            time.sleep(0.01)
            continue
        except (BrokenPipeError, ConnectionResetError):
            break
        sent += n
        if n < len(data):
            break  # mid-frame; stop here, the server has stopped reading anyway
        stream += 2
    grown_mb = (rss_kb(default_server.proc.pid) - before) / 1024
    sock.close()
    # Each answer (~10 KB of history) is far larger than its request: without backpressure the
    # server would buffer hundreds of MB in these seconds.
    # Flow control caps the answers' DATA; what is left to buffer is HEADERS and RST_STREAM for
    # the streams past the concurrency limit, which the backlog cap bounds.
    assert grown_mb < 64, f"server grew by {grown_mb:.0f} MiB while a client never read ({sent} bytes sent)"
    # And it still serves others.
    stub = pb.ent_grpc.EntitlementServiceStub(default_server.channel())
    assert len(stub.ListHistory(pb.ent.ListHistoryRequest(user_id="bp"), timeout=5).events) == 50


def test_ping_flood_without_reading_is_bounded(default_server):
    """Every PING must be answered; a client that floods PINGs and reads nothing must not make
    the server hold the answers in memory (it stops reading, then nghttp2 gives up on it)."""
    before = rss_kb(default_server.proc.pid)
    sock = socket.create_connection((default_server.host, default_server.port))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(0x4, 0, 0))
    sock.setblocking(False)
    pings = frame(0x6, 0, 0, b"12345678") * 4096
    sent, deadline = 0, time.monotonic() + 3
    while time.monotonic() < deadline:
        try:
            sent += sock.send(pings)
        except BlockingIOError:
            time.sleep(0.01)
        except (BrokenPipeError, ConnectionResetError):
            break
    grown_mb = (rss_kb(default_server.proc.pid) - before) / 1024
    sock.close()
    print(f"\nping flood: {sent} bytes sent, server grew {grown_mb:.1f} MiB")
    assert grown_mb < 32, f"server grew by {grown_mb:.0f} MiB answering {sent // 17} unread PINGs"
