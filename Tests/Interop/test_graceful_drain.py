"""SIGTERM drains HTTP/2 connections the RFC 9113 §6.8 way, seen from a raw client.

First a shutdown notice (GOAWAY with last stream id 2^31-1) and a PING after it; streams the
client opens before it answers that PING are still served (a proxy may have put them on the
wire before it read the notice); then the final GOAWAY names the last of them, in-flight
streams finish and the connection closes. /readyz answers 503 `draining` during the drain.
"""
import signal
import time

import pytest
from hpack import Decoder
from hyperframe.frame import DataFrame, HeadersFrame, PingFrame

from test_http2_conformance import RawPeer, goaways, request

pytestmark = pytest.mark.single_process(
    "entitlementd's own GOAWAYs; through haproxy the client's connection ends at haproxy")

NOTICE_STREAM_ID = 2**31 - 1
# Correctness bounds for a loaded machine, not timing claims.
WAIT = 15


def pings(frames):
    return [f for f in frames if isinstance(f, PingFrame) and "ACK" not in f.flags]


def answers(frames, decoder):
    """Per stream: the response fields (every HEADERS frame, decoded in order) and body."""
    seen = {}
    for frame in frames:
        if isinstance(frame, HeadersFrame):
            fields, _ = seen.get(frame.stream_id, ({}, b""))
            fields.update({k.decode(): v.decode() for k, v in decoder.decode(frame.data, raw=True)})
            seen[frame.stream_id] = (fields, seen.get(frame.stream_id, ({}, b""))[1])
        elif isinstance(frame, DataFrame) and frame.stream_id:
            fields, body = seen.get(frame.stream_id, ({}, b""))
            seen[frame.stream_id] = (fields, body + frame.data)
    return seen


def test_notice_then_a_stream_sent_before_the_ping_ack_is_served_then_final_goaway(server):
    s = server("--shutdown-grace-period", "30s")
    peer = RawPeer(s, timeout=WAIT)
    decoder = Decoder()
    try:
        peer.open()
        peer.headers(1, request("/healthz"))
        before = peer.frames(until=lambda fs: any(isinstance(f, DataFrame) and f.stream_id == 1
                                                  and "END_STREAM" in f.flags for f in fs), timeout=WAIT)
        fields, body = answers(before, decoder)[1]
        assert (fields[":status"], body) == ("200", b"ok"), (fields, body)

        s.signal(signal.SIGTERM)
        notice_frames = peer.frames(until=lambda fs: pings(fs), timeout=WAIT)
        assert goaways(notice_frames), f"no GOAWAY before the PING: {notice_frames}"
        notice = goaways(notice_frames)[0]
        assert (notice.last_stream_id, notice.error_code) == (NOTICE_STREAM_ID, 0), "a notice, refusing nothing"
        assert notice_frames.index(notice) < notice_frames.index(pings(notice_frames)[0]), \
            "the PING follows the notice, so its ACK proves the notice was read"

        # A request that crossed the notice on the wire: opened now, before the ACK.
        time.sleep(0.3)
        assert not peer.closed, "the connection waits for the PING's answer"
        peer.headers(3, request("/readyz"))
        ack = PingFrame(0)
        ack.flags.add("ACK")
        ack.opaque_data = pings(notice_frames)[0].opaque_data
        peer.send(ack.serialize())

        after = peer.frames(until=lambda fs: False, timeout=WAIT)  # until the server closes
        assert peer.closed, "the connection closes once the late stream is answered"
        assert [g.last_stream_id for g in goaways(after)] == [3], "one final GOAWAY naming the late stream"
        fields, body = answers(after, decoder)[3]
        assert fields[":status"] == "503" and body == b"draining\n", \
            "the late stream is served; /readyz says the replica is leaving"
        assert s.proc.wait(timeout=WAIT) == 0
    finally:
        peer.close()


def test_a_client_that_never_answers_the_ping_gets_the_final_goaway_anyway(server):
    s = server("--shutdown-grace-period", "30s")
    peer = RawPeer(s, timeout=WAIT)
    try:
        peer.open()
        peer.frames(until=lambda fs: any(f.__class__.__name__ == "SettingsFrame" for f in fs), timeout=WAIT)
        started = time.monotonic()
        s.signal(signal.SIGTERM)
        frames = peer.frames(until=lambda fs: False, timeout=WAIT)
        took = time.monotonic() - started
        assert peer.closed, "the server closes a connection that never answers the PING"
        assert [g.last_stream_id for g in goaways(frames)] == [NOTICE_STREAM_ID, 0], "notice, then final"
        assert s.proc.wait(timeout=WAIT) == 0
        print(f"unanswered drain PING: closed after {took:.2f} s")
        assert took < 10, "the acknowledgement wait is bounded (about a second), not the 30 s grace period"
    finally:
        peer.close()
