"""A fake of Apple's verifyReceipt for the interop tests: a real HTTP/1.1 server on loopback.

Responses are built from the real-world samples in ../shared/samples (numbers oldest-first
for sandbox, strings newest-first for production), with transaction ids shifted per receipt so
that different receipts carry different transactions. Behaviour follows Apple's: a receipt
lives in one environment; the other endpoint answers 21007/21008; a wrong password answers
21004; scripted statuses (e.g. 21005 then 0) and latency can be injected.
"""
import base64
import copy
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "samples"
SANDBOX_SAMPLE = json.loads((SAMPLES / "verifyreceipt-sandbox-numbers-oldest-first.json").read_text())
PRODUCTION_SAMPLE = json.loads((SAMPLES / "verifyreceipt-production-strings-newest-first.json").read_text())
ID_KEYS = {"transaction_id", "original_transaction_id", "web_order_line_item_id"}


def shift_ids(node, offset):
    """Adds `offset` to every transaction id, keeping each value's JSON type (number or string)."""
    if isinstance(node, dict):
        return {k: (shift_value(v, offset) if k in ID_KEYS else shift_ids(v, offset)) for k, v in node.items()}
    if isinstance(node, list):
        return [shift_ids(v, offset) for v in node]
    return node


def shift_value(value, offset):
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value + offset
    if isinstance(value, str) and value.isdigit():
        return str(int(value) + offset)
    return value


class Receipt:
    def __init__(self, data, environment, offset, script, body_override):
        self.data = data
        self.environment = environment
        self.offset = offset
        self.script = list(script)
        self.body_override = body_override

    def body(self, status):
        if self.body_override is not None:
            return dict(self.body_override, status=status)
        sample = SANDBOX_SAMPLE if self.environment == "sandbox" else PRODUCTION_SAMPLE
        body = shift_ids(copy.deepcopy(sample), self.offset)
        body["status"] = status
        return body


def subscription_body(periods, product_id="com.example.app.pro.monthly", bundle_id="com.example.app"):
    """A verifyReceipt answer (status filled in by the fake) for one auto-renewable chain:
    `periods` is [(transaction_id, purchase_date_ms, expires_date_ms)], the first one the
    chain's original purchase, each optionally followed by a dict of fields that differ (e.g.
    `product_id`, `cancellation_date_ms`, `is_upgraded`, `in_app_ownership_type`). Dates are
    whatever the test needs, e.g. ahead of our clock."""
    original_id, original_purchase = periods[0][0], periods[0][1]

    def info(transaction_id, purchase, expires, fields=None):
        return {"quantity": "1", "product_id": product_id, "transaction_id": transaction_id,
                "original_transaction_id": original_id, "purchase_date_ms": str(purchase),
                "original_purchase_date_ms": str(original_purchase), "expires_date_ms": str(expires),
                "web_order_line_item_id": str(int(transaction_id) + 7), "is_trial_period": "false",
                "is_in_intro_offer_period": "false", "in_app_ownership_type": "PURCHASED",
                "subscription_group_identifier": "20912345", **(fields or {})}

    latest = [info(*p) for p in periods]
    return {"environment": "Production",
            "receipt": {"receipt_type": "Production", "bundle_id": bundle_id, "in_app": latest[:1]},
            "latest_receipt_info": list(reversed(latest)),
            "pending_renewal_info": [{"auto_renew_product_id": product_id, "product_id": product_id,
                                      "original_transaction_id": original_id, "auto_renew_status": "1"}]}


class FakeApple:
    def __init__(self, password="s3cret"):
        self.password = password
        self.latency = 0.0
        self.receipts = {}
        self.calls = []  # (endpoint, receipt-data prefix)
        self.lock = threading.Lock()
        self.next_offset = 1
        self.in_flight = 0  # verifyReceipt calls being answered right now
        self.peak_in_flight = 0  # the most at once since the fake started
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # else Nagle + delayed ACK add ~40 ms per call

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                request = json.loads(self.rfile.read(length) or b"{}")
                endpoint = "production" if self.path.startswith("/production") else "sandbox"
                status, body = fake.answer(endpoint, request)
                with fake.lock:
                    fake.in_flight += 1
                    fake.peak_in_flight = max(fake.peak_in_flight, fake.in_flight)
                try:
                    if fake.latency:
                        time.sleep(fake.latency)
                finally:
                    with fake.lock:
                        fake.in_flight -= 1
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.request_queue_size = 1024
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def production_url(self):
        return f"http://127.0.0.1:{self.port}/production/verifyReceipt"

    @property
    def sandbox_url(self):
        return f"http://127.0.0.1:{self.port}/sandbox/verifyReceipt"

    def flags(self):
        return ["--apple-production-url", self.production_url, "--apple-sandbox-url", self.sandbox_url,
                "--apple-shared-secret", self.password]

    def receipt(self, environment="production", script=(), size=64, body=None):
        """Registers a new receipt; returns its base64 receipt data. `script` lists statuses
        (or "http500") answered before the normal 0, in order."""
        data = base64.b64encode(os.urandom(size)).decode()
        with self.lock:
            self.receipts[data] = Receipt(data, environment, self.next_offset * 1_000_000, script, body)
            self.next_offset += 1
        return data

    def calls_for(self, data):
        with self.lock:
            return [endpoint for endpoint, prefix in self.calls if prefix == data[:32]]

    def answer(self, endpoint, request):
        data = request.get("receipt-data", "")
        with self.lock:
            self.calls.append((endpoint, data[:32]))
            receipt = self.receipts.get(data)
            if receipt is None:
                return 200, {"status": 21002}
            if request.get("password") != self.password:
                return 200, {"status": 21004}
            if receipt.environment != endpoint:
                return 200, {"status": 21007 if receipt.environment == "sandbox" else 21008}
            step = receipt.script.pop(0) if receipt.script else 0
        if step == "http500":
            return 500, {"error": "internal"}
        if isinstance(step, dict):
            return 200, step
        if step in (0, 21006):
            return 200, receipt.body(step)
        return 200, {"status": step, "environment": endpoint.capitalize()}

    def close(self):
        self.server.shutdown()
        self.server.server_close()
