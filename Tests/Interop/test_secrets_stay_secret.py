"""Secrets never leave the process: one whole scenario (receipts verified with a shared secret
through the fake Apple, bearer tokens, V1 notifications with their password, V2 and StoreKit 2
JWS, good and bad) at --log-level debug with JSON logs; then none of the secrets, receipt bodies
or JWS payloads and signatures (nor any 24-character piece of their base64) may appear in the
logs, in /metrics, or in anything sent back to a caller."""
import base64
import copy
import http.client
import json
import os
import shutil
import signal
import time
import urllib.error
import urllib.request
from pathlib import Path

import grpc
import pytest

import apple_pki
from apple_pki import DAY_MS, PKI, Signer, notification, renewal, replace_payload, transaction
from fake_apple import FakeApple

SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "samples"
V1_SAMPLE = json.loads((SAMPLES / "notification-v1-did-renew-sandbox.json").read_text())

SHARED_SECRET = "shared-secret-3Qx9VbT7kLm2"
TOKEN = "bearer-token-Hn4sW8pZcR1y"
WRONG_TOKEN = "guessed-token-Jd5fK0aQe6u"
WRONG_PASSWORD = "guessed-password-Mt2gY7bNx4"
PIECE = 24  # base64 characters: 18 bytes of a secret


def pieces(text: str):
    """The whole text and its overlapping PIECE-character windows (every 8 characters)."""
    if len(text) <= PIECE:
        return [text]
    return [text] + [text[i:i + PIECE] for i in range(0, len(text) - PIECE + 1, 8)] + [text[-PIECE:]]


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


class Secrets:
    """What must not leak, by name, with the pieces to look for."""

    def __init__(self):
        self.items = []

    def add(self, name, text, whole_only=False):
        self.items.append((name, [text] if whole_only else pieces(text)))

    def add_jws(self, name, compact):
        _, payload, signature = compact.split(".")
        self.add(f"{name} (compact JWS)", compact, whole_only=True)
        self.add(f"{name} payload (base64url)", payload)
        self.add(f"{name} signature", signature)
        self.add(f"{name} payload (JSON)", json.dumps(apple_pki.decode_payload(compact), separators=(",", ":")),
                 whole_only=True)

    def leaks(self, where, haystack):
        return [f"{name} in {where}: {needle!r}" for name, needles in self.items
                for needle in needles if needle in haystack][:20]


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    if not shutil.which("openssl"):
        pytest.skip("the openssl CLI is needed to generate the test PKI")
    return PKI(tmp_path_factory.mktemp("secrets-pki"), "Secrets")


@pytest.fixture
def apple():
    fake = FakeApple(password=SHARED_SECRET)
    yield fake
    fake.close()


def get(address, path, token=None):
    request = urllib.request.Request(f"http://{address}{path}")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, str(response.headers) + response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, str(error.headers) + error.read().decode()


def post(server, body: bytes):
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    try:
        conn.request("POST", "/apple/notifications", body=body, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        return response.status, str(response.headers) + response.read().decode()
    finally:
        conn.close()


@pytest.mark.single_process("reads the calls it made in one process's admin /metrics and log")
def test_no_secret_reaches_logs_metrics_or_callers(pb, server, apple, pki, tmp_path, monkeypatch):
    secrets = Secrets()
    for name, value in [("shared secret", SHARED_SECRET), ("bearer token", TOKEN),
                        ("presented wrong token", WRONG_TOKEN), ("presented wrong password", WRONG_PASSWORD)]:
        secrets.add(name, value, whole_only=True)
        secrets.add(f"{name} (base64)", b64(value), whole_only=True)

    tokens = tmp_path / "tokens"
    tokens.write_text(f"# callers\n{TOKEN}\n")
    tokens.chmod(0o600)
    # The secret through the environment, as Deploy/ does; argv would show it to `ps`.
    monkeypatch.setenv("ENTITLEMENTD_APPLE_SHARED_SECRET", SHARED_SECRET)
    s = server("--apple-production-url", apple.production_url, "--apple-sandbox-url", apple.sandbox_url,
               "--apple-root-ca", pki.root_pem_path, "--auth-tokens-file", tokens,
               "--admin-listen", "127.0.0.1:0", "--log-level", "debug", "--log-format", "json")
    admin = s.stdout_path.read_text().splitlines()[1].rsplit(" ", 1)[1]
    stub = pb.ent_grpc.EntitlementServiceStub(s.channel())
    auth = [("authorization", f"Bearer {TOKEN}")]
    said = []  # everything a caller was sent: replies, error details, HTTP bodies and headers

    def call(method, request, metadata=auth, expect=grpc.StatusCode.OK):
        try:
            reply, rpc = getattr(stub, method).with_call(request, timeout=30, metadata=metadata)
            said.append(str(reply))
            said.append(str(rpc.trailing_metadata()))
            code = grpc.StatusCode.OK
        except grpc.RpcError as error:
            said.append(f"{error.details()} {error.trailing_metadata()} {error.initial_metadata()}")
            code = error.code()
        assert code == expect, (method, said[-1])

    # Receipts, verified with the shared secret: production, the sandbox fallback, and one
    # Apple refuses (21002 on every attempt).
    for environment, user in [("production", "alice"), ("sandbox", "bob")]:
        data = apple.receipt(environment, size=900)
        secrets.add(f"{environment} receipt", data)
        call("SubmitReceipt", pb.ent.SubmitReceiptRequest(user_id=user, receipt_data=data))
    refused = apple.receipt("production", script=[21002] * 10, size=600)
    secrets.add("refused receipt", refused)
    call("SubmitReceipt", pb.ent.SubmitReceiptRequest(user_id="carol", receipt_data=refused),
         expect=grpc.StatusCode.INVALID_ARGUMENT)
    # Wrong and missing tokens.
    call("CheckEntitlement", pb.ent.CheckEntitlementRequest(user_id="alice"),
         metadata=[("authorization", f"Bearer {WRONG_TOKEN}")], expect=grpc.StatusCode.UNAUTHENTICATED)
    call("CheckEntitlement", pb.ent.CheckEntitlementRequest(user_id="alice"), metadata=None,
         expect=grpc.StatusCode.UNAUTHENTICATED)
    call("CheckEntitlement", pb.ent.CheckEntitlementRequest(user_id="alice"))

    # V1 notifications: the right password (with a receipt inside), then a guessed one.
    v1 = copy.deepcopy(V1_SAMPLE)
    v1["password"] = SHARED_SECRET
    v1["unified_receipt"]["latest_receipt"] = base64.b64encode(os.urandom(900)).decode()
    secrets.add("V1 latest_receipt", v1["unified_receipt"]["latest_receipt"])
    status, text = post(s, json.dumps(v1).encode())
    said.append(text)
    assert status == 200, text
    status, text = post(s, json.dumps(dict(v1, password=WRONG_PASSWORD)).encode())
    said.append(text)
    assert status == 401, text
    # Malformed ones: a receipt where an object belongs, a body cut off inside the password.
    misplaced = base64.b64encode(os.urandom(600)).decode()
    secrets.add("receipt in the wrong field", misplaced)
    for body in [json.dumps(dict(v1, unified_receipt=misplaced)).encode(),
                 json.dumps(v1).encode()[:json.dumps(v1).index(SHARED_SECRET) + 12]]:
        status, text = post(s, body)
        said.append(text)
        assert status == 400, text

    # V2 notifications and a StoreKit 2 signed transaction: genuine, then forged.
    signer = Signer(pki)
    now = apple_pki.now_ms()
    chain = str(2_000_000_950_000_000 + now % 1_000_000)
    tx = transaction(chain, purchase=now - DAY_MS, expires=now + 29 * DAY_MS, signed=now - DAY_MS + 1000)
    signed_tx = signer.sign(tx)
    signed_renewal = signer.sign(renewal(chain, signed=tx["signedDate"]))
    payload = notification("SUBSCRIBED", subtype="INITIAL_BUY", signed=tx["signedDate"] + 500,
                           signed_transaction=signed_tx, signed_renewal=signed_renewal)
    signed_payload = signer.sign(payload)
    forged = replace_payload(signed_payload, dict(payload, notificationType="REFUND"))
    for name, compact in [("V2 transaction", signed_tx), ("V2 renewal info", signed_renewal),
                          ("V2 notification", signed_payload), ("forged V2 notification", forged)]:
        secrets.add_jws(name, compact)
    status, text = post(s, json.dumps({"signedPayload": signed_payload}).encode())
    said.append(text)
    assert status == 200, text
    status, text = post(s, json.dumps({"signedPayload": forged}).encode())
    said.append(text)
    assert 400 <= status < 500, text
    call("SubmitReceipt", pb.ent.SubmitReceiptRequest(user_id="dave", signed_transaction=signed_tx))
    forged_tx = replace_payload(signed_tx, dict(tx, expiresDate=now + 900 * DAY_MS))
    secrets.add_jws("forged signed transaction", forged_tx)
    call("SubmitReceipt", pb.ent.SubmitReceiptRequest(user_id="dave", signed_transaction=forged_tx),
         expect=grpc.StatusCode.INVALID_ARGUMENT)

    # Metrics: the admin port with the token (and refusals without it); none on the service port.
    status, metrics = get(admin, "/metrics", TOKEN)
    assert status == 200 and "entitlementd_rpc_requests_total" in metrics
    for token in (None, WRONG_TOKEN):
        status, text = get(admin, "/metrics", token)
        said.append(text)
        assert status == 401
    status, text = get(s.address, "/metrics")
    said.append(text)
    assert status == 404

    # A reload logs too; then stop, so every line is written.
    s.signal(signal.SIGHUP)
    deadline = time.monotonic() + 10
    while "reloaded auth tokens" not in s.stderr():
        assert time.monotonic() < deadline, "SIGHUP reload not logged within 10 s"
        time.sleep(0.05)
    assert s.stop() == 0
    logs = s.stderr()

    lines = [json.loads(line) for line in logs.splitlines() if line.strip()]
    assert any(line["level"] == "debug" and line["message"] == "rpc" for line in lines), \
        "the scenario must run at debug level, where the most is logged"
    assert sum(1 for line in lines if line["message"] == "apple notification") == 6
    leaks = secrets.leaks("stderr logs", logs) + secrets.leaks("/metrics", metrics) + \
        secrets.leaks("what callers were sent", "\n".join(said))
    assert not leaks, "\n".join(leaks)
