"""HTTP/2 conformance cases h2spec found (RFC 9113 §3.4 and §5.1.1), on raw sockets.

Frames are built and read with hyperframe/hpack (the `h2` package's own layers) so a test can
send exactly the sequence a misbehaving peer would; h2's connection object refuses to.
"""
import socket
import time

import h2.config
import h2.connection
import h2.events
import pytest
from hpack import Decoder, Encoder
from hyperframe.frame import DataFrame, Frame, GoAwayFrame, HeadersFrame, RstStreamFrame, SettingsFrame

from conftest import assert_serving

pytestmark = pytest.mark.single_process(
    "entitlementd's own HTTP/2 framing; haproxy terminates the client's connection")

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
PROTOCOL_ERROR = 0x1


class RawPeer:
    """A TCP client speaking hand-built frames; `frames()` collects what the server sends."""

    def __init__(self, server, timeout=5.0):
        self.sock = socket.create_connection((server.host, server.port), timeout=timeout)
        self.encoder = Encoder()
        self.buffer = b""
        self.closed = False

    def send(self, data: bytes):
        self.sock.sendall(data)

    def open(self):
        self.send(PREFACE + SettingsFrame(0).serialize())

    def headers(self, stream_id, fields, end_stream=True):
        frame = HeadersFrame(stream_id)
        frame.data = self.encoder.encode(fields)
        frame.flags.add("END_HEADERS")
        if end_stream:
            frame.flags.add("END_STREAM")
        self.send(frame.serialize())

    def data(self, stream_id, payload, end_stream=False):
        frame = DataFrame(stream_id)
        frame.data = payload
        if end_stream:
            frame.flags.add("END_STREAM")
        self.send(frame.serialize())

    def frames(self, until, timeout=5.0):
        """Reads frames until `until(frames)` is true or the server closes; returns them."""
        seen = []
        end = time.monotonic() + timeout
        while not until(seen) and not self.closed and time.monotonic() < end:
            while len(self.buffer) >= 9:
                frame, length = Frame.parse_frame_header(memoryview(self.buffer[:9]))
                if len(self.buffer) < 9 + length:
                    break
                frame.parse_body(memoryview(self.buffer[9:9 + length]))
                self.buffer = self.buffer[9 + length:]
                seen.append(frame)
            if until(seen):
                break
            try:
                self.sock.settimeout(max(0.01, end - time.monotonic()))
                chunk = self.sock.recv(65536)
            except socket.timeout:
                break
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                self.closed = True
            self.buffer += chunk
        return seen

    def read_until_closed(self, timeout=5.0) -> bytes:
        """Everything the server sends until it closes; raises if it stays open."""
        self.sock.settimeout(timeout)
        data = b""
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return data
                data += chunk
        except ConnectionResetError:
            return data

    def close(self):
        self.sock.close()


def request(path="/healthz", method="GET"):
    return [(":method", method), (":scheme", "http"), (":path", path), (":authority", "localhost")]


def goaways(frames):
    return [f for f in frames if isinstance(f, GoAwayFrame)]


def responses(frames):
    """Stream ids that got a response HEADERS frame."""
    return {f.stream_id for f in frames if isinstance(f, HeadersFrame)}


def test_invalid_preface_is_closed_without_an_http1_answer(pb, default_server):
    """h2spec http2/3.5/2: bytes that are neither the preface nor an HTTP/1.x request line."""
    for garbage in (b"INVALID CONNECTION PREFACE\r\n\r\n", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"):
        peer = RawPeer(default_server)
        peer.send(garbage)
        answer = peer.read_until_closed()
        peer.close()
        assert answer == b"", f"{garbage!r} was answered with {answer[:80]!r}"
    assert_serving(pb, default_server)


def test_preface_with_a_wrong_tail_gets_goaway_protocol_error(pb, default_server):
    """The first line says HTTP/2, the rest is wrong: an HTTP/2 connection error, not HTTP/1.1."""
    peer = RawPeer(default_server)
    peer.send(b"PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n" + SettingsFrame(0).serialize())
    client = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    client.initiate_connection()
    events = client.receive_data(peer.read_until_closed())
    peer.close()
    terminated = [e for e in events if isinstance(e, h2.events.ConnectionTerminated)]
    assert terminated and terminated[0].error_code == PROTOCOL_ERROR, events
    assert_serving(pb, default_server)


def test_stream_id_below_a_previous_one_is_protocol_error(pb, default_server):
    """h2spec http2/5.1.1/2: HEADERS on 5 then on 3 (implicitly closed when 5 opened)."""
    peer = RawPeer(default_server)
    peer.open()
    peer.headers(5, request())
    assert 5 in responses(peer.frames(lambda fs: 5 in responses(fs)))
    peer.headers(3, request())
    frames = peer.frames(lambda fs: bool(goaways(fs)))
    assert [g.error_code for g in goaways(frames)] == [PROTOCOL_ERROR], frames
    assert 3 not in responses(frames), "stream 3 was served"
    peer.read_until_closed()
    peer.close()
    assert_serving(pb, default_server)


def test_trailers_on_an_open_lower_stream_are_served(default_server):
    """HEADERS below the highest stream ID is legal as trailers on a stream still open."""
    peer = RawPeer(default_server)
    peer.open()
    peer.headers(1, request("/healthz", "POST") + [("content-type", "text/plain")], end_stream=False)
    peer.headers(3, request())
    peer.data(1, b"x")
    peer.headers(1, [("x-trailer", "1")])
    frames = peer.frames(lambda fs: {1, 3} <= responses(fs))
    peer.close()
    assert {1, 3} <= responses(frames), frames
    assert goaways(frames) == [], frames


def test_late_frames_on_a_stream_the_server_reset_are_ignored(default_server):
    """A stream reset by the server (here: a malformed request, a stream error) may still see
    the client's DATA and trailers in flight; the connection must survive them."""
    peer = RawPeer(default_server)
    peer.open()
    peer.headers(1, request("/healthz", "POST") + [("connection", "keep-alive")], end_stream=False)
    frames = peer.frames(lambda fs: any(isinstance(f, RstStreamFrame) and f.stream_id == 1 for f in fs))
    assert any(isinstance(f, RstStreamFrame) and f.stream_id == 1 for f in frames), frames
    peer.data(1, b"late")
    peer.headers(1, [("x-trailer", "1")])
    peer.headers(3, request())
    frames += peer.frames(lambda fs: 3 in responses(fs))
    peer.close()
    assert 3 in responses(frames), frames
    assert goaways(frames) == [], frames


def rst_codes(frames, stream_id):
    return [f.error_code for f in frames if isinstance(f, RstStreamFrame) and f.stream_id == stream_id]


HEAD = [(":method", "POST"), (":scheme", "http"), (":path", "/healthz"), (":authority", "localhost")]
GET_HEAD = [(":method", "GET"), (":scheme", "http"), (":path", "/healthz")]

# Malformed requests (RFC 9113 §8.1.1): each is a stream error PROTOCOL_ERROR, the connection
# lives on. The h2spec 2.0.0 cases of section 8.1.2 first, then the other rules the server holds
# requests to (docs/architecture.md#the-http2-layer). Each: head, DATA payloads, trailers.
MALFORMED = {
    "uppercase name (h2spec 8.1.2/1)": (HEAD + [("X-Test", "1")], [], None),
    "unknown pseudo-header (8.1.2.1/1)": (HEAD + [(":test", "1")], [], None),
    "response pseudo-header (8.1.2.1/2)": (HEAD + [(":status", "200")], [], None),
    "pseudo-header in trailers (8.1.2.1/3)": (HEAD, [b"x"], [(":method", "POST")]),
    "pseudo-header after a regular one (8.1.2.1/4)": (
        [(":method", "POST"), (":scheme", "http"), ("x-a", "1"), (":path", "/healthz")], [], None),
    "connection-specific field (8.1.2.2/1)": (HEAD + [("connection", "keep-alive")], [], None),
    "TE other than trailers (8.1.2.2/2)": (HEAD + [("te", "trailers, deflate")], [], None),
    "empty :path (8.1.2.3/1)": ([(":method", "GET"), (":scheme", "http"), (":path", "")], [], None),
    "missing :method (8.1.2.3/2)": ([(":scheme", "http"), (":path", "/healthz")], [], None),
    "missing :scheme (8.1.2.3/3)": ([(":method", "GET"), (":path", "/healthz")], [], None),
    "missing :path (8.1.2.3/4)": ([(":method", "GET"), (":scheme", "http")], [], None),
    "duplicate :method (8.1.2.3/5)": (GET_HEAD + [(":method", "GET")], [], None),
    "duplicate :scheme (8.1.2.3/6)": (GET_HEAD + [(":scheme", "http")], [], None),
    "duplicate :path (8.1.2.3/7)": (GET_HEAD + [(":path", "/healthz")], [], None),
    "content-length above DATA (8.1.2.6/1)": (HEAD + [("content-length", "1")], [b"test"], None),
    "content-length across DATA frames (8.1.2.6/2)": (HEAD + [("content-length", "1")], [b"te", b"st"], None),
    "content-length below DATA at the end": (HEAD + [("content-length", "9")], [b"test"], None),
    "two content-lengths": (HEAD + [("content-length", "4"), ("content-length", "4")], [b"test"], None),
    "content-length not a number": (HEAD + [("content-length", "+4")], [b"test"], None),
    "keep-alive": (HEAD + [("keep-alive", "5")], [], None),
    "proxy-connection": (HEAD + [("proxy-connection", "x")], [], None),
    "transfer-encoding": (HEAD + [("transfer-encoding", "chunked")], [], None),
    "upgrade": (HEAD + [("upgrade", "h2c")], [], None),
    "duplicate :authority": (HEAD + [(":authority", "localhost")], [], None),
    "empty :authority": (GET_HEAD + [(":authority", "")], [], None),
    "duplicate host": (GET_HEAD + [("host", "a"), ("host", "a")], [], None),
    "empty host": (GET_HEAD + [("host", "")], [], None),
    "space in :authority": (GET_HEAD + [(":authority", "a b")], [], None),
    ":path without a slash over http": ([(":method", "GET"), (":scheme", "http"), (":path", "healthz")], [], None),
    ":path * outside OPTIONS": ([(":method", "GET"), (":scheme", "http"), (":path", "*")], [], None),
    "bad :scheme": ([(":method", "GET"), (":scheme", "1http"), (":path", "/healthz")], [], None),
    "bad :method": ([(":method", "GE T"), (":scheme", "http"), (":path", "/healthz")], [], None),
    ":protocol (no extended CONNECT)": (HEAD + [(":protocol", "websocket")], [], None),
    "CONNECT with :path": ([(":method", "CONNECT"), (":authority", "a:1"), (":path", "/")], [], None),
    "CONNECT with :scheme": ([(":method", "CONNECT"), (":authority", "a:1"), (":scheme", "http")], [], None),
    "CONNECT without :authority": ([(":method", "CONNECT")], [], None),
    "trailers that do not end the stream": (HEAD, [b"x"], "open"),
    "control character in a pseudo-header value": (GET_HEAD + [(":authority", "a\x01")], [], None),
    "control character in a regular value": (HEAD + [("x-bad", "a\x01b")], [], None),
    "space in a name": (HEAD + [("x bad", "1")], [], None),
    "value with a leading space": (HEAD + [("x-bad", " 1")], [], None),
}


def send_request(peer, stream_id, head, payloads, trailers):
    peer.headers(stream_id, head, end_stream=not payloads and trailers is None)
    for index, payload in enumerate(payloads):
        peer.data(stream_id, payload, end_stream=trailers is None and index == len(payloads) - 1)
    if trailers == "open":
        peer.headers(stream_id, [("x-trailer", "1")], end_stream=False)
    elif trailers is not None:
        peer.headers(stream_id, trailers)


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_request_is_a_stream_error(default_server, case):
    head, payloads, trailers = MALFORMED[case]
    peer = RawPeer(default_server)
    peer.open()
    send_request(peer, 1, head, payloads, trailers)
    frames = peer.frames(lambda fs: bool(rst_codes(fs, 1)))
    peer.headers(3, request())
    frames += peer.frames(lambda fs: 3 in responses(fs))
    peer.close()
    assert rst_codes(frames, 1) == [PROTOCOL_ERROR], frames
    assert 1 not in responses(frames), "the malformed request was answered"
    assert 3 in responses(frames) and goaways(frames) == [], "the connection did not survive"


WELL_FORMED = {
    "no :authority and no host (RFC 9113 §8.3.1)": GET_HEAD,
    "host instead of :authority": GET_HEAD + [("host", "localhost")],
    ":authority and host": GET_HEAD + [(":authority", "localhost"), ("host", "localhost")],
    "te: trailers, any case": GET_HEAD + [(":authority", "a"), ("te", "Trailers")],
    "HTTP scheme in capitals": [(":method", "GET"), (":scheme", "HTTP"), (":path", "/healthz"), (":authority", "a")],
}


@pytest.mark.parametrize("case", sorted(WELL_FORMED))
def test_well_formed_request_is_answered(default_server, case):
    peer = RawPeer(default_server)
    peer.open()
    peer.headers(1, WELL_FORMED[case])
    frames = peer.frames(lambda fs: 1 in responses(fs) or bool(rst_codes(fs, 1)))
    peer.close()
    assert 1 in responses(frames) and rst_codes(frames, 1) == [], frames


def test_body_matching_its_content_length_across_frames_with_trailers_is_served(default_server):
    peer = RawPeer(default_server)
    peer.open()
    send_request(peer, 1, HEAD + [("content-length", "4"), ("content-type", "text/plain")], [b"te", b"st"],
                 [("x-trailer", "1"), ("content-type", "text/plain")])
    frames = peer.frames(lambda fs: 1 in responses(fs) or bool(rst_codes(fs, 1)))
    peer.close()
    assert 1 in responses(frames) and rst_codes(frames, 1) == [], frames


def test_grpc_call_without_authority_is_routed_by_its_path(default_server):
    """gRPC needs no :authority either: the router goes by :path alone."""
    peer = RawPeer(default_server)
    peer.open()
    peer.headers(1, [(":method", "POST"), (":scheme", "http"), (":path", "/grpc.health.v1.Health/Check"),
                     ("content-type", "application/grpc"), ("te", "trailers")], end_stream=False)
    peer.data(1, b"\x00\x00\x00\x00\x00", end_stream=True)
    frames = peer.frames(lambda fs: any(isinstance(f, HeadersFrame) and "END_STREAM" in f.flags for f in fs))
    peer.close()
    decoder = Decoder()
    fields = [dict(decoder.decode(f.data)) for f in frames if isinstance(f, HeadersFrame) and f.stream_id == 1]
    assert fields and fields[0].get(":status") == "200", fields
    assert fields[-1].get("grpc-status") == "0", fields
