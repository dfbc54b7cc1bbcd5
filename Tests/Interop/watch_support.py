"""Helpers for the WatchEntitlementChanges tests: seeding changes, reading metrics, and a raw
HTTP/2 watcher (the `h2` library) for what grpcio cannot do on purpose: never read (a tiny
flow-control window it never reopens), see PING frames, and see the server's own trailers."""
import json
import re
import socket
import struct
import time

import h2.config
import h2.connection
import h2.events
import h2.settings

from cluster import metrics_text

DAY = 86_400_000
WATCH = "/entitlement.v1.EntitlementService/WatchEntitlementChanges"


def now_ms() -> int:
    return int(time.time() * 1000)


def seed(pb, channel, user, transactions, renewal_infos=()):
    facts = {"transactions": list(transactions), "renewal_infos": list(renewal_infos)}
    pb.testing_grpc.TestingStub(channel).Seed(
        pb.testing.SeedRequest(user_id=user, facts_json=json.dumps(facts)), timeout=10)


def purchase(pb, channel, user, tid, expires_ms=None, **extra):
    """One new subscription for `user`: one ACTIVE change (expiring in 30 days unless told)."""
    t = {"transaction_id": tid, "original_transaction_id": extra.pop("chain", tid), "product_id": "pro.monthly",
         "purchase_date_ms": extra.pop("purchase_ms", now_ms() - 1000),
         "expires_date_ms": expires_ms or now_ms() + 30 * DAY}
    t.update(extra)
    seed(pb, channel, user, [t])
    return t


def metric(server, name) -> float:
    text = metrics_text(server)
    match = re.search(rf"^{name} (\S+)$", text, re.M)
    assert match, f"{name} not in /metrics"
    return float(match.group(1))


def wait_for(what, condition, timeout=20.0):
    """A correctness wait with a bound generous enough for a loaded machine."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.02)
    raise AssertionError(f"gave up waiting: {what}")


class Collector:
    """A grpcio watcher on a thread: `.changes` grows as they arrive, `.error` is how it ended."""

    def __init__(self, pb, channel, **request):
        import threading
        stub = pb.ent_grpc.EntitlementServiceStub(channel)
        self.call = stub.WatchEntitlementChanges(pb.ent.WatchEntitlementChangesRequest(**request))
        self.changes, self.error, self.ended = [], None, threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        try:
            for change in self.call:
                self.changes.append(change)
        except Exception as error:  # grpc.RpcError, as the call ended
            self.error = error
        self.ended.set()

    def wait_count(self, n, timeout=20.0):
        wait_for(f"{n} changes (have {len(self.changes)})", lambda: len(self.changes) >= n, timeout)
        return self.changes[:n]


class RawWatch:
    """A WatchEntitlementChanges call over a bare h2 connection. With `window` small the client
    announces that stream window and never acknowledges DATA, like a client that stopped reading."""

    def __init__(self, server, request_bytes: bytes, window=65_535, headers=()):
        self.sock = socket.create_connection((server.host, server.port), timeout=10)
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True,
                                                                         header_encoding="utf-8"))
        self.conn.local_settings = h2.settings.Settings(
            client=True, initial_values={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window})
        self.conn.initiate_connection()
        self.stream = self.conn.get_next_available_stream_id()
        self.conn.send_headers(self.stream, [
            (":method", "POST"), (":scheme", "http"), (":authority", server.address), (":path", WATCH),
            ("content-type", "application/grpc"), ("te", "trailers"), *headers])
        self.conn.send_data(self.stream, b"\x00" + struct.pack(">I", len(request_bytes)) + request_bytes,
                            end_stream=True)
        self.sock.sendall(self.conn.data_to_send())
        self.body, self.trailers, self.pings, self.reset, self.closed = b"", None, 0, None, False
        self.inbound, self.goaway_seen = b"", False

    def pump(self, seconds: float, until=lambda w: False):
        """Reads and handles events for up to `seconds` or until `until(self)`; never acknowledges DATA."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not until(self) and not self.closed:
            self.sock.settimeout(max(0.01, min(0.2, deadline - time.monotonic())))
            try:
                data = self.sock.recv(65_536)
            except socket.timeout:
                continue
            if not data:
                self.closed = True
                break
            for event in self.conn.receive_data(self._frames_h2_accepts(data)):
                if isinstance(event, h2.events.DataReceived):
                    self.body += event.data
                elif isinstance(event, h2.events.TrailersReceived):
                    self.trailers = dict(event.headers)
                elif isinstance(event, h2.events.ResponseReceived) and "grpc-status" in dict(event.headers):
                    self.trailers = dict(event.headers)
                elif isinstance(event, h2.events.PingReceived):
                    self.pings += 1
                elif isinstance(event, h2.events.StreamReset):
                    self.reset = event.error_code
            out = self.conn.data_to_send()
            if out:
                self.sock.sendall(out)
        return self

    def _frames_h2_accepts(self, data: bytes) -> bytes:
        """The whole frames received so far, minus PINGs after a GOAWAY: h2 closes its state
        machine on any GOAWAY, even the shutdown notice of a graceful drain, and then refuses
        the PING the server sends after it (RFC 9113 §6.8 allows it; h2 does not)."""
        self.inbound += data
        accepted = b""
        while len(self.inbound) >= 9:
            end = 9 + int.from_bytes(self.inbound[:3], "big")
            if len(self.inbound) < end:
                break
            frame, self.inbound = self.inbound[:end], self.inbound[end:]
            if frame[3] == 0x7:
                self.goaway_seen = True
            elif frame[3] == 0x6 and self.goaway_seen:
                continue
            accepted += frame
        return accepted

    def messages(self, pb):
        found, rest = [], self.body
        while len(rest) >= 5:
            length = struct.unpack(">I", rest[1:5])[0]
            if len(rest) < 5 + length:
                break
            found.append(pb.ent.EntitlementChange.FromString(rest[5:5 + length]))
            rest = rest[5 + length:]
        return found

    def close(self):
        self.sock.close()
