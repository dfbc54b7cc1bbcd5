"""A real HTTP webhook receiver for the webhook interop tests: verifies each request's
Webhook-Signature the way a backend team would, records what arrived, and misbehaves on
demand (fail the first N requests, answer slowly, go down and come back on the same port)."""
import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from ports import free_port

SIGNATURE_TOLERANCE_S = 300


def verify(secret: bytes, header: str, body: bytes, now: float = None) -> bool:
    """Webhook-Signature `t=<unix s>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, checked in
    constant time, with a 5-minute tolerance on t (a replayed capture fails)."""
    try:
        parts = dict(part.split("=", 1) for part in header.split(","))
        t, v1 = parts["t"], parts["v1"]
        expected = hmac.new(secret, t.encode() + b"." + body, hashlib.sha256).hexdigest()
        fresh = abs((now or time.time()) - int(t)) <= SIGNATURE_TOLERANCE_S
        return hmac.compare_digest(expected, v1) and fresh
    except (KeyError, ValueError):
        return False


class Arrival:
    def __init__(self, webhook_id, headers, body, status, valid):
        self.webhook_id = webhook_id
        self.headers = headers
        self.raw = body
        self.body = json.loads(body) if body else None
        self.status = status
        self.valid = valid


class Receiver:
    """Listens on 127.0.0.1 (`port` fixed, or any free one). `fail_first` requests answer 500;
    `delay_s` sleeps before answering; `refuse(pred)` answers 500 while pred(arrival) holds."""

    def __init__(self, secret: bytes, port: int = 0, fail_first: int = 0, delay_s: float = 0.0):
        self.secret = secret
        self.fail_first = fail_first
        self.delay_s = delay_s
        self.refuse_when = None
        self.redirect_to = None
        self.paths = []
        self.arrivals = []
        self.lock = threading.Lock()
        self.requests = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self._server = None
        # Not port 0: a receiver that goes down and comes back re-binds its port (ports.py).
        self.start(port or free_port())

    def start(self, port: int = None):
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver.lock:
                    receiver.paths.append(self.path)
                if receiver.redirect_to and self.path.startswith("/hooks"):
                    self.send_response(307)
                    self.send_header("Location", receiver.redirect_to)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                valid = verify(receiver.secret, self.headers.get("Webhook-Signature", ""), body)
                with receiver.lock:
                    receiver.requests += 1
                    failing = receiver.requests <= receiver.fail_first
                    receiver.in_flight += 1
                    receiver.max_in_flight = max(receiver.max_in_flight, receiver.in_flight)
                arrival = Arrival(self.headers.get("Webhook-Id"), dict(self.headers), body, 0, valid)
                if receiver.delay_s:
                    time.sleep(receiver.delay_s)
                with receiver.lock:
                    receiver.in_flight -= 1
                refuse = receiver.refuse_when is not None and receiver.refuse_when(arrival)
                status = 400 if not valid else 500 if failing or refuse else 200
                arrival.status = status
                with receiver.lock:
                    receiver.arrivals.append(arrival)
                reply = b"ok" if status == 200 else b"no"
                self.send_response(status)
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port if port is None else port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks?token=receiver-side-secret"

    def stop(self):
        """Goes down: the port refuses connections until start()."""
        self._server.shutdown()
        self._server.server_close()

    def accepted(self):
        """Arrivals answered 200, in arrival order."""
        with self.lock:
            return [a for a in self.arrivals if a.status == 200]

    def wait_for(self, ids, timeout_s: float = 60.0):
        """Waits until every webhook id in `ids` was accepted at least once."""
        deadline = time.monotonic() + timeout_s
        missing = set(ids)
        while time.monotonic() < deadline:
            missing = set(ids) - {a.webhook_id for a in self.accepted()}
            if not missing:
                return
            time.sleep(0.05)
        raise AssertionError(f"{len(missing)} of {len(set(ids))} webhooks never accepted, e.g. {sorted(missing)[:5]}")


def cursor_key(cursor: str):
    """Orders cursors as the server issues them: fixed width, so they sort as strings."""
    return (len(cursor), cursor)


def assert_in_order_per_user(arrivals):
    """Per user, no accepted change arrives after a later one of the same user had arrived
    (a duplicate of the latest is fine: at least once)."""
    latest = {}
    for a in arrivals:
        user, key = a.body["userId"], cursor_key(a.body["cursor"])
        assert key >= latest.get(user, key), f"{user}: {a.body['cursor']} arrived after a later change"
        latest[user] = key
