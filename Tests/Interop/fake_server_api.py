"""A scripted fake of Apple's App Store Server API for the interop tests (until appstore-sim
serves it): the four endpoints with Apple's shapes and paging, production and sandbox, every
request's bearer JWT checked with the `cryptography` package (an implementation independent of
the service's OpenSSL code), and errors on demand, with every call recorded.

    fake = FakeServerAPI(tmp_path)             # writes fake.key_path (.p8) for --app-store-key
    fake.add_customer(["1000", "1001"], [signed JWS ...], environment="production")
    fake.fail("history", [(503, {}), (429, {"errorCode": 4290000}, retry_after_ms)])
    server(*fake.flags(), "--apple-root-ca", pki.root_pem_path)

A customer is a set of transaction ids sharing one history (as Apple's history endpoint answers
for any transaction of the customer): `signed_transactions` pages at 20, `statuses` is the
`lastTransactions` list, `notifications` the notification history of an environment.
"""
import base64
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

KEY_ID = "TESTKEY123"
ISSUER_ID = "57246542-96fe-1a63-e053-0824d011072a"
BUNDLE_ID = "com.example.app"
PAGE_SIZE = 20


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Customer:
    def __init__(self, transaction_ids, signed_transactions, environment, statuses):
        self.transaction_ids = set(transaction_ids)
        self.signed_transactions = list(signed_transactions)
        self.environment = environment
        self.statuses = list(statuses)


class FakeServerAPI:
    def __init__(self, directory, bundle_id=BUNDLE_ID):
        self.bundle_id = bundle_id
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.public_key = self.private_key.public_key()
        self.key_path = Path(directory) / "AuthKey_TESTKEY123.p8"
        self.key_path.write_bytes(self.private_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        self.key_path.chmod(0o600)
        self.customers = []
        self.orders = {}  # order id -> [signed transactions] (lookup; an unknown order is status 1)
        self.extension_days_ms = {}  # original transaction id -> ms already added by extensions
        self.notifications = {"production": [], "sandbox": []}
        self.failures = {}  # endpoint -> [(status, body, retry_after_ms or None)]
        self.calls = []  # dicts: endpoint, environment, method, path, query, status, claims, token
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args):
                pass

            def do_GET(self):
                self.answer(None)

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                self.answer(json.loads(self.rfile.read(length) or b"{}"))

            do_PUT = do_POST

            def answer(self, body):
                status, payload, retry_after = fake.handle(self.command, self.path,
                                                           self.headers.get("Authorization", ""), body)
                data = json.dumps(payload).encode() if payload is not None else b""
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if retry_after is not None:
                    self.send_header("Retry-After", str(retry_after))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    # --- configuration ----------------------------------------------------------------------

    def flags(self, key_id=KEY_ID, issuer_id=ISSUER_ID, bundle_id=None):
        return ["--app-store-key", str(self.key_path), "--app-store-key-id", key_id,
                "--app-store-issuer-id", issuer_id, "--bundle-id", bundle_id or self.bundle_id,
                "--app-store-api-url", f"http://127.0.0.1:{self.port}/production",
                "--app-store-api-sandbox-url", f"http://127.0.0.1:{self.port}/sandbox",
                # No periodic reconciliation: its notification-history calls would join the counts.
                "--reconcile-interval", "0"]

    def add_customer(self, transaction_ids, signed_transactions, environment="production", statuses=()):
        with self.lock:
            customer = Customer(transaction_ids, signed_transactions, environment, statuses)
            self.customers.append(customer)
            return customer

    def fail(self, endpoint, answers):
        """Answers the next requests to `endpoint` (history, subscriptions, transactions,
        notifications) with these (status, body[, retry_after_ms]) before serving normally."""
        with self.lock:
            self.failures.setdefault(endpoint, []).extend(
                (a[0], a[1], a[2] if len(a) > 2 else None) for a in answers)

    def calls_to(self, endpoint):
        with self.lock:
            return [c for c in self.calls if c["endpoint"] == endpoint]

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    # --- the JWT, checked like Apple does ---------------------------------------------------

    def check_token(self, authorization):
        """The token's (header, claims) when valid, else raises ValueError saying why."""
        if not authorization.startswith("Bearer "):
            raise ValueError("no bearer token")
        token = authorization[len("Bearer "):]
        parts = token.split(".")
        if len(parts) != 3:
            raise ValueError("not a compact JWT")
        header = json.loads(b64url_decode(parts[0]))
        claims = json.loads(b64url_decode(parts[1]))
        signature = b64url_decode(parts[2])
        if len(signature) != 64:
            raise ValueError("signature is not raw r||s")
        der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
        self.public_key.verify(der, (parts[0] + "." + parts[1]).encode(), ec.ECDSA(hashes.SHA256()))
        if header != {"alg": "ES256", "kid": KEY_ID, "typ": "JWT"}:
            raise ValueError(f"bad header {header}")
        now = time.time()
        if claims.get("iss") != ISSUER_ID or claims.get("aud") != "appstoreconnect-v1" \
                or claims.get("bid") != self.bundle_id:
            raise ValueError(f"bad claims {claims}")
        if not claims["iat"] - 60 <= now < claims["exp"] or claims["exp"] - claims["iat"] > 3600:
            raise ValueError(f"bad lifetime {claims}")
        return header, claims, token

    # --- the endpoints ----------------------------------------------------------------------

    def handle(self, method, raw_path, authorization, body):
        url = urlparse(raw_path)
        query = parse_qs(url.query)
        environment, _, path = url.path.lstrip("/").partition("/")
        parts = path.split("/")
        endpoint = {"history": "history", "subscriptions": "subscriptions", "transactions": "transactions",
                    "notifications": "notifications"}.get(parts[2] if len(parts) > 2 else "", "unknown")
        if method == "PUT" and parts[-1] == "appAccountToken":
            endpoint = "app_account_token"  # Set App Account Token: PUT .../transactions/{id}/appAccountToken
        elif len(parts) > 3 and parts[2] == "subscriptions" and parts[3] == "extend":
            endpoint = "extend"  # PUT /inApps/v1/subscriptions/extend/{originalTransactionId}
        elif len(parts) > 3 and parts[2] == "transactions" and parts[3] == "consumption":
            endpoint = "consumption"  # PUT /inApps/v2/transactions/consumption/{transactionId}
        elif len(parts) > 2 and parts[2] == "lookup":
            endpoint = "lookup"  # GET /inApps/v1/lookup/{orderId}
        call = {"endpoint": endpoint, "environment": environment, "method": method, "path": path,
                "query": query, "body": body, "at_ms": int(time.time() * 1000)}
        with self.lock:
            self.calls.append(call)
            try:
                call["header"], call["claims"], call["token"] = self.check_token(authorization)
            except Exception as error:  # any failure is Apple's 401
                call["status"], call["reason"] = 401, str(error)
                return 401, None, None
            queued = self.failures.get(endpoint)
            if queued:
                status, payload, retry_after = queued.pop(0)
                call["status"] = status
                return status, payload, retry_after
            status, payload = self.serve(environment, endpoint, parts, query, body)
            call["status"] = status
            return status, payload, None

    def customer(self, environment, transaction_id):
        for customer in self.customers:
            if transaction_id in customer.transaction_ids and customer.environment == environment:
                return customer
        return None

    def serve(self, environment, endpoint, parts, query, body):
        if endpoint == "notifications":
            items = self.notifications.get(environment, [])
            start = int(query.get("paginationToken", ["0"])[0])
            page = items[start:start + PAGE_SIZE]
            more = start + PAGE_SIZE < len(items)
            answer = {"notificationHistory": [{"signedPayload": p} for p in page], "hasMore": more}
            if more:
                answer["paginationToken"] = str(start + PAGE_SIZE)
            return 200, answer
        if endpoint == "app_account_token":
            if self.customer(environment, parts[-2]) is None:
                return 404, {"errorCode": 4040005, "errorMessage": "Original transaction id not found."}
            return 200, None
        if endpoint == "lookup":
            signed = self.orders.get(parts[-1]) if environment == "production" else None
            return 200, {"status": 0, "signedTransactions": signed} if signed else {"status": 1}
        customer = self.customer(environment, parts[-1])
        if customer is None:
            return 404, {"errorCode": 4040010, "errorMessage": "Transaction id not found."}
        if endpoint == "consumption":
            return 202, None
        if endpoint == "extend":
            latest = json.loads(b64url_decode(customer.signed_transactions[-1].split(".")[1]))
            added = self.extension_days_ms.get(parts[-1], 0) + body["extendByDays"] * 86_400_000
            self.extension_days_ms[parts[-1]] = added
            return 200, {"originalTransactionId": parts[-1], "webOrderLineItemId": "8000",
                         "effectiveDate": latest["expiresDate"] + added, "success": True}
        env_name = environment.capitalize()
        if endpoint == "history":
            start = int(query.get("revision", ["0"])[0])
            page = customer.signed_transactions[start:start + PAGE_SIZE]
            end = start + len(page)
            return 200, {"revision": str(end), "hasMore": end < len(customer.signed_transactions),
                         "bundleId": self.bundle_id, "environment": env_name, "signedTransactions": page}
        if endpoint == "subscriptions":
            return 200, {"environment": env_name, "bundleId": self.bundle_id,
                         "data": [{"subscriptionGroupIdentifier": "21000001", "lastTransactions": customer.statuses}]}
        if endpoint == "transactions":
            return 200, {"signedTransactionInfo": customer.signed_transactions[-1]}
        return 404, {"errorCode": 4040000}
