"""Apple's support and money operations over gRPC, against appstore-sim as Apple (its Server API
checks the JWT; its webhook posts what Apple would): ExtendSubscription (ownership, bad input
refused before Apple is asked, idempotency by request_id, the expiry moving at once, history
with actor and reason, Apple's refusals), LookUpOrder (owners, a forged transaction fails the
call), SignPromotionalOffer (verified in Python with the .p8's public key over exactly Apple's
string), and FAILED_PRECONDITION without the key. SQLite and PostgreSQL where storage is
involved."""
import base64
import json
import os
import subprocess
import threading
import time
import urllib.request
import uuid

import grpc
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils

from appstore_sim import BUNDLE_ID, ISSUER_ID, KEY_ID, Sim, free_port
from cluster import metrics_address
from test_postgres_store import SERVER_URL, fresh_database  # noqa: F401 (a fixture)

DAY_MS = 86_400_000
SUPPORT = "support-token-apple-1"
BACKEND = "backend-token-apple-2"
VIEWER = "viewer-token-apple-3"
ADMIN = "admin-token-apple-4"
SHARED_SECRET = "apple-ops-shared-secret"


class Stack:
    """appstore-sim posting V2 notifications to one entitlementd, which holds the sim's .p8."""

    def __init__(self, binary, server, tmp_path, database, version="v2"):
        sim_bin = binary.parent / "appstore-sim"
        if not sim_bin.exists():
            pytest.fail(f"{sim_bin} not built (swift build builds every product)")
        self.port = free_port()
        self.tmp_path = tmp_path
        self.database = database
        self.server_factory = server
        self.sim = Sim(sim_bin, tmp_path, "--notifications", version, "--shared-secret", SHARED_SECRET,
                       "--webhook-url", f"http://127.0.0.1:{self.port}/apple/notifications")
        self.tokens = tmp_path / "tokens"
        self.tokens.write_text(f"{SUPPORT} name=alice roles=support\n{BACKEND} name=backend roles=rpc\n"
                               f"{VIEWER} name=vera roles=viewer\n{ADMIN} name=ops roles=admin\n")
        os.chmod(self.tokens, 0o600)
        self.catalog = tmp_path / "catalog.json"
        self.catalog.write_text(json.dumps({"products": [
            {"product_id": "pro.monthly", "type": "auto_renewable", "entitlement_id": "pro"},
            {"product_id": "coins.100", "type": "consumable", "entitlement_id": "coins"},
        ]}))
        self.daemon = None

    def key_flags(self):
        s = self.sim
        return ["--app-store-key", s.key_path, "--app-store-key-id", KEY_ID, "--app-store-issuer-id", ISSUER_ID,
                "--app-store-api-url", s.url, "--app-store-api-sandbox-url", s.url + "/sandbox"]

    def start(self, *extra, key=True, trust_sim=True):
        root = ["--apple-root-ca", self.sim.root_path] if trust_sim else []
        self.daemon = self.server_factory(
            "--listen", f"127.0.0.1:{self.port}", "--database", self.database, "--bundle-id", BUNDLE_ID,
            *root, "--auth-tokens-file", self.tokens, "--catalog", self.catalog, "--apple-shared-secret", SHARED_SECRET,
            "--reconcile-interval", "0", *(self.key_flags() if key else []), *extra)
        return self.daemon

    def stub(self):
        return Stub(self.daemon)

    def wait_delivered(self):
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            deliveries = self.sim.get("/control/deliveries")
            if deliveries["pending"] == 0:
                return deliveries["recent"]
            time.sleep(0.05)
        pytest.fail(f"deliveries still pending: {deliveries}")

    def metrics(self):
        """The daemon's /metrics text (its admin listener when it has one), with the admin token."""
        request = urllib.request.Request(f"http://{metrics_address(self.daemon)}/metrics",
                                         headers={"authorization": "Bearer " + ADMIN})
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.read().decode()

    def api_requests(self):
        return self.sim.get("/control/api-requests")["requests"]


class Stub:
    """The entitlement service's stub with a token per call."""

    def __init__(self, daemon):
        self.channel = daemon.channel()

    def call(self, pb, method, request, token=SUPPORT, timeout=30):
        stub = pb.ent_grpc.EntitlementServiceStub(self.channel)
        return getattr(stub, method)(request, timeout=timeout, metadata=[("authorization", "Bearer " + token)])


def rpc_error(call):
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, tmp_path):
    if request.param == "sqlite":
        return tmp_path / "apple.sqlite"
    if not SERVER_URL:
        pytest.skip("ENTITLEMENTD_TEST_POSTGRES_URL is not set")
    return request.getfixturevalue("fresh_database")


@pytest.fixture
def stack(binary, server, tmp_path, database):
    made = Stack(binary, server, tmp_path, database)
    yield made
    made.sim.stop()


@pytest.fixture
def sqlite_stack(binary, server, tmp_path):
    made = Stack(binary, server, tmp_path, tmp_path / "apple.sqlite")
    yield made
    made.sim.stop()


def subscribe(pb, stack, user, token=None):
    """A 30-day subscription bought in the sim and submitted by transaction id for `user`."""
    tx = stack.sim.control("purchase", {"product_id": "pro.monthly", "user_token": token or user, "period": "30d"})
    stack.stub().call(pb, "SubmitReceipt",
                      pb.ent.SubmitReceiptRequest(user_id=user, transaction_id=tx["transaction_id"]),
                      token=BACKEND, timeout=60)
    return tx


def extend(pb, stack, user, original, days=7, reason=1, request_id="", token=SUPPORT):
    return stack.stub().call(pb, "ExtendSubscription", pb.ent.ExtendSubscriptionRequest(
        user_id=user, original_transaction_id=original, extend_by_days=days, reason_code=reason,
        request_id=request_id), token=token)


def check(pb, stack, user):
    return stack.stub().call(pb, "CheckEntitlement", pb.ent.CheckEntitlementRequest(user_id=user), token=BACKEND)


def history(pb, stack, user):
    return stack.stub().call(pb, "ListHistory", pb.ent.ListHistoryRequest(user_id=user), token=BACKEND).events


def extensions_at_apple(stack):
    return sum(n for key, n in stack.api_requests().items() if key.startswith("PUT v1/subscriptions/extend"))


def test_extension_moves_the_expiry_at_once_and_history_names_the_operator(pb, stack):
    stack.start()
    tx = subscribe(pb, stack, "ext-user")
    before = check(pb, stack, "ext-user").entitlements[0].expires_at_ms
    assert before == tx["expires_date_ms"]
    reply = extend(pb, stack, "ext-user", tx["original_transaction_id"], days=7, reason=3)
    assert reply.effective_at_ms == before + 7 * DAY_MS
    assert reply.entitlement.expires_at_ms == reply.effective_at_ms
    assert reply.entitlement.original_transaction_id == tx["original_transaction_id"]
    # CheckEntitlement sees it at once, before Apple's RENEWAL_EXTENDED arrives.
    assert check(pb, stack, "ext-user").entitlements[0].expires_at_ms == reply.effective_at_ms
    operator_events = [e for e in history(pb, stack, "ext-user")
                       if e.type == pb.ent.EVENT_TYPE_RENEWAL_EXTENDED and e.source == pb.ent.EVENT_SOURCE_OPERATOR]
    assert len(operator_events) == 1
    event = operator_events[0]
    assert (event.actor, event.reason) == ("alice", "7 days, service issue")
    assert event.expires_at_ms == reply.effective_at_ms
    assert (event.original_transaction_id, event.transaction_id) == (tx["original_transaction_id"],
                                                                     tx["transaction_id"])
    # Apple's own RENEWAL_EXTENDED is recorded too, as a notification.
    stack.wait_delivered()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        apple = [e for e in history(pb, stack, "ext-user") if e.type == pb.ent.EVENT_TYPE_RENEWAL_EXTENDED
                 and e.source == pb.ent.EVENT_SOURCE_NOTIFICATION_V2]
        if apple:
            break
        time.sleep(0.1)
    assert apple and apple[0].apple_notification_type == "RENEWAL_EXTENDED"
    assert check(pb, stack, "ext-user").entitlements[0].expires_at_ms == reply.effective_at_ms
    # The sim's own view agrees: its renewal moved by the same days.
    receipt = stack.sim.control("receipt", {"transaction_id": tx["transaction_id"]})
    assert receipt["transactions"][-1]["expires_date_ms"] == reply.effective_at_ms


def test_the_same_request_id_never_extends_twice(pb, stack):
    stack.start()
    tx = subscribe(pb, stack, "idem-user")
    request_id = str(uuid.uuid4())
    first = extend(pb, stack, "idem-user", tx["original_transaction_id"], days=5, request_id=request_id)
    again = extend(pb, stack, "idem-user", tx["original_transaction_id"], days=5, request_id=request_id.upper())
    assert again.effective_at_ms == first.effective_at_ms == tx["expires_date_ms"] + 5 * DAY_MS
    assert check(pb, stack, "idem-user").entitlements[0].expires_at_ms == first.effective_at_ms
    events = [e for e in history(pb, stack, "idem-user")
              if e.type == pb.ent.EVENT_TYPE_RENEWAL_EXTENDED and e.source == pb.ent.EVENT_SOURCE_OPERATOR]
    assert len(events) == 1
    # The same request_id for another subscription is Apple answering the first one: refused.
    other = subscribe(pb, stack, "idem-other")
    error = rpc_error(lambda: extend(pb, stack, "idem-other", other["original_transaction_id"], days=5,
                                     request_id=request_id))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION and "already used" in error.details()
    assert check(pb, stack, "idem-other").entitlements[0].expires_at_ms == other["expires_date_ms"]
    # Without a request_id each call is a new extension (Apple allows two a year).
    second = extend(pb, stack, "idem-user", tx["original_transaction_id"], days=1)
    assert second.effective_at_ms == first.effective_at_ms + DAY_MS
    error = rpc_error(lambda: extend(pb, stack, "idem-user", tx["original_transaction_id"], days=1))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "4030005" in error.details() and "maximum extension count" in error.details()
    assert "Bearer" not in error.details() and "eyJ" not in error.details()


def test_another_users_chain_is_not_found_and_apple_is_not_asked(pb, stack):
    stack.start()
    tx = subscribe(pb, stack, "owner")
    error = rpc_error(lambda: extend(pb, stack, "intruder", tx["original_transaction_id"]))
    assert error.code() == grpc.StatusCode.NOT_FOUND
    assert "intruder" in error.details()
    assert extensions_at_apple(stack) == 0
    assert check(pb, stack, "owner").entitlements[0].expires_at_ms == tx["expires_date_ms"]


@pytest.mark.parametrize("days,reason,request_id,words", [
    (0, 0, "", "extend_by_days"), (91, 0, "", "extend_by_days"), (-3, 0, "", "extend_by_days"),
    (7, 4, "", "reason_code"), (7, -1, "", "reason_code"), (7, 1, "not-a-uuid", "request_id"),
])
def test_bad_input_is_invalid_argument_without_calling_apple(pb, sqlite_stack, days, reason, request_id, words):
    stack = sqlite_stack
    stack.start()
    tx = subscribe(pb, stack, "bad-input")
    error = rpc_error(lambda: extend(pb, stack, "bad-input", tx["original_transaction_id"], days=days,
                                     reason=reason, request_id=request_id))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert words in error.details()
    assert extensions_at_apple(stack) == 0


def test_missing_user_or_id_and_roles(pb, sqlite_stack):
    stack = sqlite_stack
    stack.start()
    tx = subscribe(pb, stack, "roles-user")
    for user, original in [("", tx["original_transaction_id"]), ("roles-user", ""), ("roles-user", "12ab")]:
        error = rpc_error(lambda: extend(pb, stack, user, original))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (user, original)
    for token in (BACKEND, VIEWER):
        error = rpc_error(lambda: extend(pb, stack, "roles-user", tx["original_transaction_id"], token=token))
        assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert extensions_at_apple(stack) == 0


def test_apple_5xx_is_retried_and_an_expired_subscription_is_refused(pb, sqlite_stack):
    stack = sqlite_stack
    stack.start()
    tx = subscribe(pb, stack, "faults")
    stack.sim.control("api-fault", {"status": "503", "count": "1"})
    reply = extend(pb, stack, "faults", tx["original_transaction_id"], days=2)
    assert reply.effective_at_ms == tx["expires_date_ms"] + 2 * DAY_MS
    requests = stack.api_requests()
    assert 'entitlementd_app_store_api_requests_total{endpoint="extend_renewal_date",status="503",' \
        'environment="production"} 1' in stack.metrics()
    assert requests.get("PUT v1/subscriptions/extend Production 503") == 1
    assert requests.get("PUT v1/subscriptions/extend Production 200") == 1
    stack.sim.control("expire", {"original_transaction_id": tx["original_transaction_id"]})
    error = rpc_error(lambda: extend(pb, stack, "faults", tx["original_transaction_id"], days=2))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "4030004" in error.details()


def test_every_operation_without_the_key_is_failed_precondition_naming_the_flags(pb, sqlite_stack):
    stack = sqlite_stack
    stack.start(key=False)
    calls = {
        "ExtendSubscription": (pb.ent.ExtendSubscriptionRequest(
            user_id="u", original_transaction_id="1", extend_by_days=7), SUPPORT),
        "LookUpOrder": (pb.ent.LookUpOrderRequest(order_id="MK123"), SUPPORT),
        "SignPromotionalOffer": (pb.ent.SignPromotionalOfferRequest(
            user_id="u", product_id="pro.monthly", offer_id="winback"), BACKEND),
    }
    for method, (request, token) in calls.items():
        error = rpc_error(lambda: stack.stub().call(pb, method, request, token=token))
        assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, method
        for flag in ("--app-store-key", "--app-store-key-id", "--app-store-issuer-id"):
            assert flag in error.details(), (method, error.details())


def look_up(pb, stack, order_id, token=SUPPORT):
    return stack.stub().call(pb, "LookUpOrder", pb.ent.LookUpOrderRequest(order_id=order_id), token=token)


def test_an_order_id_finds_its_transaction_and_who_owns_it(pb, stack):
    stack.start()
    owned = subscribe(pb, stack, "invoice-user")
    unowned = stack.sim.control("purchase", {"product_id": "coins.100", "user_token": "nobody-here"})
    reply = look_up(pb, stack, owned["order_id"])
    assert reply.found
    assert [(t.transaction_id, t.original_transaction_id, t.product_id, t.purchased_at_ms, t.owner_user_id)
            for t in reply.transactions] == [
        (owned["transaction_id"], owned["original_transaction_id"], "pro.monthly", owned["purchase_date_ms"],
         "invoice-user")]
    other = look_up(pb, stack, unowned["order_id"])
    assert other.found and [(t.transaction_id, t.owner_user_id) for t in other.transactions] == [
        (unowned["transaction_id"], "")]
    # A lookup only reads: the unowned purchase is still nobody's.
    assert look_up(pb, stack, unowned["order_id"]).transactions[0].owner_user_id == ""
    missing = look_up(pb, stack, "MKZZZZZZZZZZ")
    assert not missing.found and list(missing.transactions) == []
    requests = stack.api_requests()
    assert requests.get("GET v1/lookup Production 200") == 4
    assert requests.get("GET v1/lookup Sandbox 200") == 1, "an order production lacks is asked of sandbox"


def test_bad_order_ids_roles_and_a_transaction_that_fails_verification(pb, sqlite_stack):
    stack = sqlite_stack
    stack.start(trust_sim=False)
    tx = stack.sim.control("purchase", {"product_id": "pro.monthly", "user_token": "u"})
    for bad in ("", "MK/../1", "MK 1", "x" * 65):
        error = rpc_error(lambda: look_up(pb, stack, bad))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, bad
    for token in (BACKEND, VIEWER):
        assert rpc_error(lambda: look_up(pb, stack, tx["order_id"], token=token)).code() == \
            grpc.StatusCode.PERMISSION_DENIED
    assert not any(key.startswith("GET v1/lookup") for key in stack.api_requests())
    # Signed by a root this service does not trust: the call fails and says why.
    error = rpc_error(lambda: look_up(pb, stack, tx["order_id"]))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "failed verification" in error.details() and "--apple-root-ca" in error.details()


def sign_offer(pb, stack, user, product="pro.monthly", offer="winback-50", token=BACKEND):
    return stack.stub().call(pb, "SignPromotionalOffer", pb.ent.SignPromotionalOfferRequest(
        user_id=user, product_id=product, offer_id=offer), token=token)


def test_an_offer_signature_verifies_with_the_p8_public_key_over_apples_string(pb, stack):
    stack.start()
    token = stack.stub().call(pb, "GetAppAccountToken", pb.ent.GetAppAccountTokenRequest(user_id="offer-user"),
                              token=BACKEND).app_account_token
    before = int(time.time() * 1000)
    reply = sign_offer(pb, stack, "offer-user")
    after = int(time.time() * 1000)
    assert reply.key_id == KEY_ID
    assert reply.app_account_token == token == token.lower()
    assert str(uuid.UUID(reply.nonce)) == reply.nonce, "a lowercase UUID"
    assert before <= reply.timestamp_ms <= after
    text = "\u2063".join([BUNDLE_ID, KEY_ID, "pro.monthly", "winback-50", token, reply.nonce,
                           str(reply.timestamp_ms)])
    key = serialization.load_pem_private_key(stack.sim.key_path.read_bytes(), None).public_key()
    signature = base64.b64decode(reply.signature, validate=True)
    key.verify(signature, text.encode(), ec.ECDSA(hashes.SHA256()))
    with pytest.raises(InvalidSignature):
        key.verify(signature, text.replace("winback-50", "winback-51").encode(), ec.ECDSA(hashes.SHA256()))
    # The StoreKit 2 form: a compact JWS by the same key, Apple's promotional offer V2 claims.
    header_b64, claims_b64, signature_b64 = reply.compact_jws.split(".")
    decode = lambda part: base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))  # noqa: E731
    assert json.loads(decode(header_b64)) == {"alg": "ES256", "kid": KEY_ID, "typ": "JWT"}
    claims = json.loads(decode(claims_b64))
    assert claims == {"aud": "promotional-offer", "iss": ISSUER_ID, "iat": reply.timestamp_ms // 1000,
                      "bid": BUNDLE_ID, "nonce": reply.nonce, "productId": "pro.monthly",
                      "offerIdentifier": "winback-50"}, "no transactionId: the user has none yet"
    raw = decode(signature_b64)
    key.verify(utils.encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
               (header_b64 + "." + claims_b64).encode(), ec.ECDSA(hashes.SHA256()))
    # Every signature has its own nonce.
    again = sign_offer(pb, stack, "offer-user")
    assert again.nonce != reply.nonce and again.app_account_token == token
    # Signing calls nothing at Apple.
    assert stack.api_requests() == {}


def test_an_offer_needs_an_auto_renewable_in_the_catalog_an_offer_id_and_the_rpc_role(pb, sqlite_stack):
    stack = sqlite_stack
    stack.start()
    for user, product, offer, words in [("u", "coins.100", "o", "auto-renewable"), ("u", "nope", "o", "catalog"),
                                        ("u", "pro.monthly", "", "offer_id"), ("", "pro.monthly", "o", "user_id")]:
        error = rpc_error(lambda: sign_offer(pb, stack, user, product, offer))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (user, product, offer)
        assert words in error.details()
    for token in (SUPPORT, VIEWER):
        assert rpc_error(lambda: sign_offer(pb, stack, "u", token=token)).code() == \
            grpc.StatusCode.PERMISSION_DENIED


def test_an_offer_jws_names_the_users_latest_transaction(pb, sqlite_stack):
    stack = sqlite_stack
    stack.start()
    tx = subscribe(pb, stack, "offer-buyer")
    reply = sign_offer(pb, stack, "offer-buyer")
    claims_b64 = reply.compact_jws.split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(claims_b64 + "=" * (-len(claims_b64) % 4)))
    assert claims["transactionId"] == tx["transaction_id"]


def test_watchers_see_the_old_expiry_pass_without_an_expired_change(pb, sqlite_stack):
    """The change log announces state changes only (api.md): an extension keeps the chain ACTIVE,
    so it is no change itself, but it moves the moment the EXPIRED change falls due. A
    subscription about to lapse, extended, is still active after its old expiry, and watchers
    hear nothing at that moment."""
    stack = sqlite_stack
    stack.start()
    tx = stack.sim.control("purchase", {"product_id": "pro.monthly", "user_token": "lapsing", "period_ms": 4000})
    stack.stub().call(pb, "SubmitReceipt",
                      pb.ent.SubmitReceiptRequest(user_id="lapsing", transaction_id=tx["transaction_id"]),
                      token=BACKEND, timeout=60)
    stack.sim.control("auto-renew", {"original_transaction_id": tx["original_transaction_id"], "enabled": False})
    changes = []
    call = pb.ent_grpc.EntitlementServiceStub(stack.daemon.channel()).WatchEntitlementChanges(
        pb.ent.WatchEntitlementChangesRequest(user_id="lapsing"), timeout=30,
        metadata=[("authorization", "Bearer " + BACKEND)])

    def read():
        try:
            for change in call:
                changes.append(change)
        except grpc.RpcError:
            pass

    reader = threading.Thread(target=read)
    reader.start()
    reply = extend(pb, stack, "lapsing", tx["original_transaction_id"], days=1)
    assert reply.effective_at_ms == tx["expires_date_ms"] + DAY_MS
    while int(time.time() * 1000) < tx["expires_date_ms"] + 2000:
        time.sleep(0.2)
    entitlement = check(pb, stack, "lapsing").entitlements[0]
    call.cancel()
    reader.join(15)
    assert entitlement.state == pb.ent.ENTITLEMENT_STATE_ACTIVE and entitlement.expires_at_ms == reply.effective_at_ms
    assert [c.entitlement.state for c in changes] == [], "no EXPIRED at the old expiry"
