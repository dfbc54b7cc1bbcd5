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
from hpack import Encoder
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
