"""App Store Server Notifications (V1 and V2) at POST /apple/notifications, and StoreKit 2
signed transactions in SubmitReceipt, against a throwaway Apple-like PKI (apple_pki.py) that the
server trusts through --apple-root-ca.

Every step reads the state back through CheckEntitlement and ListHistory. HTTP/2 posts use
`curl --http2-prior-knowledge` (h2c); those tests skip when curl is missing.
"""
import collections
import concurrent.futures
import copy
import hashlib
import hmac
import http.client
import json
import shutil
import subprocess
import threading
import time
from pathlib import Path

import grpc
import pytest

import apple_pki
from apple_pki import (BUNDLE_ID, DAY_MS, PKI, PRODUCT_ID, Signer, b64url, b64url_decode, decode_payload,
                       notification, renewal, replace_payload, transaction)

SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "samples"
V1_SAMPLE = json.loads((SAMPLES / "notification-v1-did-renew-sandbox.json").read_text())
SHARED_SECRET = "SHARED-SECRET"  # the sample's password
PATH = "/apple/notifications"
MINUTE_MS = 60_000
HOUR_MS = 3_600_000
CURL = shutil.which("curl")
NO_CURL = "curl is not installed: the HTTP/2 (h2c prior knowledge) webhook path cannot be exercised " \
          "(Scripts/test should install curl)"


# --- fixtures -------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def pki(tmp_path_factory):
    if not shutil.which("openssl"):
        pytest.skip("the openssl CLI is needed to generate the test PKI")
    return PKI(tmp_path_factory.mktemp("pki"), "Test")


@pytest.fixture(scope="session")
def rogue_pki(tmp_path_factory, pki):
    """A second, structurally identical PKI the server does not trust."""
    return PKI(tmp_path_factory.mktemp("rogue-pki"), "Rogue")


@pytest.fixture(scope="session")
def signer(pki):
    return Signer(pki)


@pytest.fixture
def notify(pb, server, pki, signer):
    """Factory: notify(*extra_flags) starts a server trusting the test root (and the sample's
    shared secret) and returns a Client for it."""

    def start(*flags):
        s = server("--apple-root-ca", pki.root_pem_path, "--apple-shared-secret", SHARED_SECRET, *flags)
        return Client(pb, s, signer)

    return start


# --- client ---------------------------------------------------------------------------------

class Client:
    def __init__(self, pb, server, signer):
        self.pb = pb
        self.server = server
        self.signer = signer
        self.stub = pb.ent_grpc.EntitlementServiceStub(server.channel())
        self.testing = pb.testing_grpc.TestingStub(server.channel())
        self.url = f"http://{server.host}:{server.port}{PATH}"

    # webhook
    def post(self, body, transport="http1"):
        if isinstance(body, dict):
            body = json.dumps(body).encode()
        elif isinstance(body, str):
            body = body.encode()
        return self.post_http1(body) if transport == "http1" else self.post_http2(body)

    def post_http1(self, body: bytes) -> int:
        conn = http.client.HTTPConnection(self.server.host, self.server.port, timeout=30)
        try:
            conn.request("POST", PATH, body=body, headers={"Content-Type": "application/json"})
            response = conn.getresponse()
            response.read()
            return response.status
        finally:
            conn.close()

    def post_http2(self, body: bytes) -> int:
        if not CURL:
            pytest.skip(NO_CURL)
        path = self.server.workdir / f"body-{time.monotonic_ns()}.json"
        path.write_bytes(body)
        result = subprocess.run(
            [CURL, "--http2-prior-knowledge", "-s", "-o", "-", "-w", "\n%{http_code} %{http_version}",
             "--max-time", "30", "-H", "Content-Type: application/json", "--data-binary", f"@{path}", self.url],
            capture_output=True, timeout=40)
        path.unlink()
        assert result.returncode == 0, f"curl failed ({result.returncode}): {result.stderr.decode(errors='replace')}"
        code, version = result.stdout.decode().rsplit("\n", 1)[1].split()
        assert version == "2", f"curl did not speak HTTP/2 (got HTTP/{version})"
        return int(code)

    def post_v2(self, payload, transport="http1") -> int:
        return self.post({"signedPayload": self.signer.sign(payload)}, transport)

    # gRPC
    def check(self, user, **kw):
        return self.stub.CheckEntitlement(self.pb.ent.CheckEntitlementRequest(user_id=user, **kw), timeout=10)

    def entitlement(self, user):
        reply = self.check(user)
        assert len(reply.entitlements) == 1, f"{user}: expected one entitlement, got {reply}"
        return reply.entitlements[0]

    def history(self, user):
        return list(self.stub.ListHistory(self.pb.ent.ListHistoryRequest(user_id=user, page_size=500),
                                          timeout=10).events)

    def events(self, user):
        """{event_id: event}."""
        return {e.event_id: e for e in self.history(user)}

    def snapshot(self, user):
        """Everything a client can see about the user (minus the evaluation instant)."""
        reply = self.check(user)
        return ([e.SerializeToString(deterministic=True) for e in reply.entitlements],
                [e.SerializeToString(deterministic=True) for e in self.history(user)])

    def seed(self, user, transactions=(), renewal_infos=()):
        facts = {"transactions": list(transactions), "renewal_infos": list(renewal_infos)}
        return self.testing.Seed(self.pb.testing.SeedRequest(user_id=user, facts_json=json.dumps(facts)), timeout=10)

    def submit_signed(self, user, jws):
        return self.stub.SubmitReceipt(self.pb.ent.SubmitReceiptRequest(user_id=user, signed_transaction=jws),
                                       timeout=10)


def seed_tx(tx):
    """A V2 transaction payload as Testing.Seed facts (as if a receipt had shown it)."""
    return {"transaction_id": tx["transactionId"], "original_transaction_id": tx["originalTransactionId"],
            "product_id": tx["productId"], "purchase_date_ms": tx["purchaseDate"],
            "original_purchase_date_ms": tx["originalPurchaseDate"], "expires_date_ms": tx["expiresDate"],
            "subscription_group_identifier": tx["subscriptionGroupIdentifier"], "environment": "sandbox"}


_ids = iter(range(1, 1_000_000))


def chain_id():
    """A fresh 16-digit id (Apple's ids exceed 2^53; keep them as strings)."""
    return str(2_000_000_900_000_000 + next(_ids) * 1000)


def next_id(tid, n=1):
    return str(int(tid) + n)


class Story:
    """One subscription chain: a first purchase a month ago (active for one more day) and a
    renewal bought a minute ago, with notifications about them signed by `signer`."""

    def __init__(self, signer, now=None):
        self.signer = signer
        self.now = now or apple_pki.now_ms()
        self.chain = chain_id()
        self.tx1 = transaction(self.chain, purchase=self.now - 29 * DAY_MS, expires=self.now + DAY_MS,
                               signed=self.now - 29 * DAY_MS + 1000)
        self.tx2 = transaction(next_id(self.chain), self.chain, purchase=self.now - MINUTE_MS,
                               expires=self.now + 31 * DAY_MS, signed=self.now - MINUTE_MS + 1000,
                               original_purchase=self.tx1["purchaseDate"])

    def sign(self, payload):
        return self.signer.sign(payload)

    def renewal(self, signed, **kw):
        return renewal(self.chain, signed=signed, **kw)

    def subscribed(self, **kw):
        return notification("SUBSCRIBED", subtype="INITIAL_BUY", signed=self.tx1["signedDate"] + 500,
                            signed_transaction=self.sign(self.tx1),
                            signed_renewal=self.sign(self.renewal(self.tx1["signedDate"])), **kw)

    def did_renew(self, **kw):
        return notification("DID_RENEW", signed=self.tx2["signedDate"] + 500,
                            signed_transaction=self.sign(self.tx2),
                            signed_renewal=self.sign(self.renewal(self.tx2["signedDate"])), **kw)


def kinds(client, user):
    """[(type name, apple_notification_type)] of the user's history, sorted."""
    names = client.pb.ent.EventType.Name
    return sorted((names(e.type), e.apple_notification_type) for e in client.history(user))


def state_name(client, entitlement):
    return client.pb.ent.EntitlementState.Name(entitlement.state)


# --- V2: the happy path over both transports ------------------------------------------------

@pytest.mark.parametrize("transport", ["http1", "http2"])
def test_v2_subscribed_then_did_renew(notify, signer, transport):
    if transport == "http2" and not CURL:
        pytest.skip(NO_CURL)
    c = notify()
    s = Story(signer)
    user = f"v2-{transport}"
    c.seed(user, [seed_tx(s.tx1)])
    assert [ev.event_id for ev in c.history(user)] == [f"purchase:{s.chain}"]

    assert c.post_v2(s.subscribed(), transport) == 200
    e = c.entitlement(user)
    assert state_name(c, e) == "ENTITLEMENT_STATE_ACTIVE" and e.active
    assert e.original_transaction_id == s.chain and e.latest_transaction_id == s.chain
    assert e.expires_at_ms == s.tx1["expiresDate"]
    assert e.will_auto_renew, "the signed renewal info says auto renew is on"
    assert e.environment == c.pb.ent.ENVIRONMENT_SANDBOX
    assert e.product_type == c.pb.ent.PRODUCT_TYPE_AUTO_RENEWABLE
    assert list(c.events(user)) == [f"purchase:{s.chain}"], "the purchase is one event whoever reported it"
    purchase = c.events(user)[f"purchase:{s.chain}"]
    assert purchase.apple_notification_type == "SUBSCRIBED/INITIAL_BUY", "the confirming notification names it"
    assert purchase.source == c.pb.ent.EVENT_SOURCE_RECEIPT, "the source stays who reported it first"

    assert c.post_v2(s.did_renew(), transport) == 200
    e = c.entitlement(user)
    assert state_name(c, e) == "ENTITLEMENT_STATE_ACTIVE"
    assert e.latest_transaction_id == s.tx2["transactionId"]
    assert e.expires_at_ms == s.tx2["expiresDate"], "the renewal moved the expiry"
    events = c.events(user)
    assert set(events) == {f"purchase:{s.chain}", f"renewal:{s.tx2['transactionId']}"}
    renewal_event = events[f"renewal:{s.tx2['transactionId']}"]
    assert renewal_event.type == c.pb.ent.EVENT_TYPE_RENEWAL
    assert renewal_event.source == c.pb.ent.EVENT_SOURCE_NOTIFICATION_V2
    assert renewal_event.apple_notification_type == "DID_RENEW"
    assert renewal_event.expires_at_ms == s.tx2["expiresDate"]
    assert renewal_event.occurred_at_ms == s.tx2["purchaseDate"]
    assert renewal_event.original_transaction_id == s.chain
    assert c.history(user)[0].event_id == f"renewal:{s.tx2['transactionId']}", "newest first"


def test_v2_without_top_level_signed_date_verifies_at_the_transaction(notify, signer):
    """Older V2 payloads have no top-level signedDate: the chain is checked at the nested
    transaction's signedDate, and the notification applies."""
    c = notify()
    s = Story(signer)
    user = "v2-no-signed-date"
    c.seed(user, [seed_tx(s.tx1)])
    payload = s.did_renew()
    del payload["signedDate"]
    assert c.post_v2(payload) == 200
    e = c.entitlement(user)
    assert e.latest_transaction_id == s.tx2["transactionId"] and e.expires_at_ms == s.tx2["expiresDate"]


# --- idempotency and ordering ---------------------------------------------------------------

def test_duplicates_are_applied_once(notify, signer):
    c = notify()
    s = Story(signer)
    c.seed("dup", [seed_tx(s.tx1)])
    body = json.dumps({"signedPayload": signer.sign(s.did_renew())}).encode()
    assert c.post(body) == 200
    after_first = c.snapshot("dup")
    assert c.post(body) == 200, "a redelivery is acknowledged"
    if CURL:
        assert c.post(body, "http2") == 200
    assert c.snapshot("dup") == after_first
    assert len(c.history("dup")) == 2

    # The same notification delivered many times at once (Apple retrying while we answer).
    expired_tx = dict(s.tx2, expiresDate=s.tx2["expiresDate"], signedDate=s.now - 2000)
    burst = json.dumps({"signedPayload": signer.sign(notification(
        "EXPIRED", subtype="VOLUNTARY", signed=s.now - 2000, signed_transaction=signer.sign(expired_tx)))}).encode()
    with concurrent.futures.ThreadPoolExecutor(20) as pool:
        assert set(pool.map(lambda _: c.post(burst), range(20))) == {200}
    assert len(c.history("dup")) == 3, "20 concurrent deliveries of one notification made one event"

    # Idempotent by notificationUUID, not by bytes: a redelivery re-signed (or, here, carrying
    # a different transaction) under the same UUID changes nothing.
    off = notification("DID_CHANGE_RENEWAL_STATUS", subtype="AUTO_RENEW_DISABLED", signed=s.now - 1000,
                       signed_transaction=signer.sign(s.tx2),
                       signed_renewal=signer.sign(s.renewal(s.now - 1000, auto_renew=False)))
    assert c.post_v2(off) == 200
    after_off = c.snapshot("dup")
    assert not c.entitlement("dup").will_auto_renew
    on_same_uuid = dict(off, subtype="AUTO_RENEW_ENABLED", signedDate=s.now - 500,
                        data=dict(off["data"], signedRenewalInfo=signer.sign(s.renewal(s.now - 500))))
    assert c.post_v2(on_same_uuid) == 200
    assert c.snapshot("dup") == after_off, "a second notification with the same notificationUUID was applied"


def test_out_of_order_delivery_never_moves_state_backwards(notify, signer):
    c = notify()
    s = Story(signer)
    c.seed("ooo", [seed_tx(s.tx1)])
    assert c.post_v2(s.did_renew()) == 200
    assert c.entitlement("ooo").expires_at_ms == s.tx2["expiresDate"]
    assert c.post_v2(s.subscribed()) == 200, "the older SUBSCRIBED arrives late"
    e = c.entitlement("ooo")
    assert e.latest_transaction_id == s.tx2["transactionId"] and e.expires_at_ms == s.tx2["expiresDate"]
    assert e.will_auto_renew
    assert set(c.events("ooo")) == {f"purchase:{s.chain}", f"renewal:{s.tx2['transactionId']}"}

    # Renewal info: the newest by signedDate wins, whatever the arrival order.
    newer_off = notification("DID_CHANGE_RENEWAL_STATUS", subtype="AUTO_RENEW_DISABLED", signed=s.now - 10_000,
                             signed_transaction=signer.sign(s.tx2),
                             signed_renewal=signer.sign(s.renewal(s.now - 10_000, auto_renew=False)))
    older_on = notification("DID_CHANGE_RENEWAL_STATUS", subtype="AUTO_RENEW_ENABLED", signed=s.now - 20_000,
                            signed_transaction=signer.sign(s.tx2),
                            signed_renewal=signer.sign(s.renewal(s.now - 20_000, auto_renew=True)))
    assert c.post_v2(newer_off) == 200
    assert not c.entitlement("ooo").will_auto_renew
    assert c.post_v2(older_on) == 200
    e = c.entitlement("ooo")
    assert not e.will_auto_renew, "an older renewal info delivered late turned auto renew back on"
    assert state_name(c, e) == "ENTITLEMENT_STATE_ACTIVE" and e.expires_at_ms == s.tx2["expiresDate"]


def test_acknowledged_notifications_survive_sigkill(pb, server, pki, signer, tmp_path):
    """200 means durably committed: SIGKILL right after the answers loses nothing."""
    db = tmp_path / "notify-crash.sqlite"
    victim = server("--database", db, "--apple-root-ca", pki.root_pem_path)
    victim.check_exit_code = False
    c = Client(pb, victim, signer)
    stories = [Story(signer) for _ in range(20)]
    bodies = [json.dumps({"signedPayload": signer.sign(n)}).encode()
              for st in stories for n in (st.subscribed(), st.did_renew())]
    for i, st in enumerate(stories):
        c.seed(f"crash-{i}", [seed_tx(st.tx1)])
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        assert set(pool.map(c.post, bodies)) == {200}
    victim.kill()

    survivor = Client(pb, server("--database", db, "--apple-root-ca", pki.root_pem_path), signer)
    for i, st in enumerate(stories):
        e = survivor.entitlement(f"crash-{i}")
        assert e.latest_transaction_id == st.tx2["transactionId"] and e.will_auto_renew, f"crash-{i} lost its renewal"
        assert len(survivor.history(f"crash-{i}")) == 2
    assert survivor.post(bodies[1]) == 200, "a redelivery after the restart"
    assert len(survivor.history("crash-0")) == 2


# --- a chain nobody owns yet ----------------------------------------------------------------

def test_orphan_notification_applies_when_the_user_submits_the_chain(notify, signer):
    c = notify()
    s = Story(signer)
    off = notification("DID_CHANGE_RENEWAL_STATUS", subtype="AUTO_RENEW_DISABLED", signed=s.now - 1000,
                       signed_transaction=signer.sign(s.tx2),
                       signed_renewal=signer.sign(s.renewal(s.now - 1000, auto_renew=False)))
    assert c.post_v2(s.did_renew()) == 200, "a notification for an unowned chain is kept, not refused"
    assert c.post_v2(off) == 200
    assert c.check("late-user").entitlements == [] and c.history("late-user") == []
    assert not c.check("late-user").active

    reply = c.submit_signed("late-user", signer.sign(s.tx1))
    assert reply.apple_status == 0 and reply.environment == c.pb.ent.ENVIRONMENT_SANDBOX
    [e] = reply.entitlements
    assert e.active and e.latest_transaction_id == s.tx2["transactionId"], "the renewal Apple told us about counts"
    assert e.expires_at_ms == s.tx2["expiresDate"]
    assert not e.will_auto_renew, "the kept renewal info applies"
    assert c.entitlement("late-user") == e

    events = c.events("late-user")
    assert set(events) == {f"purchase:{s.chain}", f"renewal:{s.tx2['transactionId']}", f"v2:{off['notificationUUID']}"}
    assert events[f"purchase:{s.chain}"].source == c.pb.ent.EVENT_SOURCE_RECEIPT
    assert events[f"renewal:{s.tx2['transactionId']}"].source == c.pb.ent.EVENT_SOURCE_NOTIFICATION_V2
    assert events[f"renewal:{s.tx2['transactionId']}"].apple_notification_type == "DID_RENEW", \
        "named by the notification about it, not by the auto-renew change that carried it later"
    disabled = events[f"v2:{off['notificationUUID']}"]
    assert disabled.type == c.pb.ent.EVENT_TYPE_AUTO_RENEW_DISABLED
    assert disabled.apple_notification_type == "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED"
    assert disabled.source == c.pb.ent.EVENT_SOURCE_NOTIFICATION_V2
    assert disabled.original_transaction_id == s.chain
    assert c.check("someone-else").entitlements == []


# --- refunds --------------------------------------------------------------------------------

def _refund_pair(signer, s):
    refunded = dict(s.tx1, revocationDate=s.now - 30 * MINUTE_MS, revocationReason=1,
                    signedDate=s.now - 30 * MINUTE_MS + 1000)
    refund = notification("REFUND", signed=s.now - 29 * MINUTE_MS, signed_transaction=signer.sign(refunded))
    restored = dict(s.tx1, signedDate=s.now - 10 * MINUTE_MS)
    reversed_ = notification("REFUND_REVERSED", signed=s.now - 10 * MINUTE_MS + 500,
                             signed_transaction=signer.sign(restored))
    return refund, reversed_


def test_refund_then_refund_reversed(notify, signer):
    c = notify()
    s = Story(signer)
    c.seed("refund", [seed_tx(s.tx1)])
    refund, reversed_ = _refund_pair(signer, s)
    assert c.post_v2(refund) == 200
    e = c.entitlement("refund")
    assert state_name(c, e) == "ENTITLEMENT_STATE_REVOKED" and not e.active
    events = c.events("refund")
    assert events[f"refund:{s.chain}"].type == c.pb.ent.EVENT_TYPE_REFUND
    assert events[f"refund:{s.chain}"].occurred_at_ms == s.now - 30 * MINUTE_MS, "dated by revocationDate"

    assert c.post_v2(reversed_) == 200
    e = c.entitlement("refund")
    assert state_name(c, e) == "ENTITLEMENT_STATE_ACTIVE" and e.active
    events = c.events("refund")
    assert set(events) == {f"purchase:{s.chain}", f"refund:{s.chain}", f"v2:{reversed_['notificationUUID']}"}
    assert events[f"v2:{reversed_['notificationUUID']}"].apple_notification_type == "REFUND_REVERSED"

    assert c.post_v2(refund) == 200, "a redelivered REFUND"
    assert state_name(c, c.entitlement("refund")) == "ENTITLEMENT_STATE_ACTIVE"

    # Refunded again after the reversal: a new refund, revoked again.
    again = dict(s.tx1, revocationDate=s.now - 5 * MINUTE_MS, revocationReason=0, signedDate=s.now - 5 * MINUTE_MS)
    assert c.post_v2(notification("REFUND", signed=s.now - 4 * MINUTE_MS, signed_transaction=signer.sign(again))) == 200
    assert state_name(c, c.entitlement("refund")) == "ENTITLEMENT_STATE_REVOKED"
    assert f"refund:{s.chain}:{s.now - 5 * MINUTE_MS}" in c.events("refund")


def test_orphan_refund_then_stale_transaction_stays_revoked(notify, signer):
    c = notify()
    s = Story(signer)
    refund, _ = _refund_pair(signer, s)
    assert c.post_v2(refund) == 200
    assert c.check("stale").entitlements == []
    reply = c.submit_signed("stale", signer.sign(s.tx1))  # signed before the refund: no revocationDate
    [e] = reply.entitlements
    assert state_name(c, e) == "ENTITLEMENT_STATE_REVOKED" and not e.active, \
        "a transaction signed before the refund un-refunded it"
    assert set(c.events("stale")) == {f"purchase:{s.chain}", f"refund:{s.chain}"}


def test_refund_reversed_before_the_older_refund_stays_active(notify, signer):
    c = notify()
    s = Story(signer)
    c.seed("rr-first", [seed_tx(s.tx1)])
    refund, reversed_ = _refund_pair(signer, s)
    assert c.post_v2(reversed_) == 200
    assert state_name(c, c.entitlement("rr-first")) == "ENTITLEMENT_STATE_ACTIVE"
    assert c.post_v2(refund) == 200
    e = c.entitlement("rr-first")
    assert state_name(c, e) == "ENTITLEMENT_STATE_ACTIVE" and e.active, \
        "a refund older than the reversal Apple already reported took access away"
    assert f"refund:{s.chain}" in c.events("rr-first"), "the reversed refund is still history"


# --- grace period, billing retry, recovery --------------------------------------------------

def test_grace_period_then_billing_recovery(notify, signer):
    c = notify()
    now = apple_pki.now_ms()
    chain = chain_id()
    tx1 = transaction(chain, purchase=now - 31 * DAY_MS, expires=now - DAY_MS, signed=now - 31 * DAY_MS + 1000)
    c.seed("grace", [seed_tx(tx1)])
    assert state_name(c, c.entitlement("grace")) == "ENTITLEMENT_STATE_EXPIRED"

    grace_until = now + 5 * DAY_MS
    fail = notification("DID_FAIL_TO_RENEW", subtype="GRACE_PERIOD", signed=now - HOUR_MS,
                        signed_transaction=signer.sign(dict(tx1, signedDate=now - HOUR_MS)),
                        signed_renewal=signer.sign(renewal(chain, signed=now - HOUR_MS, billing_retry=True,
                                                           grace_expires=grace_until, expirationIntent=2)))
    assert c.post_v2(fail) == 200
    e = c.entitlement("grace")
    assert state_name(c, e) == "ENTITLEMENT_STATE_GRACE_PERIOD" and e.active
    assert e.grace_period_expires_at_ms == grace_until
    assert c.check("grace").active

    tx2 = transaction(next_id(chain), chain, purchase=now - 10 * MINUTE_MS, expires=now + 30 * DAY_MS,
                      signed=now - 10 * MINUTE_MS + 1000, original_purchase=tx1["purchaseDate"])
    recover = notification("DID_RENEW", subtype="BILLING_RECOVERY", signed=now - 5 * MINUTE_MS,
                           signed_transaction=signer.sign(tx2),
                           signed_renewal=signer.sign(renewal(chain, signed=now - 5 * MINUTE_MS)))
    assert c.post_v2(recover) == 200
    e = c.entitlement("grace")
    assert state_name(c, e) == "ENTITLEMENT_STATE_ACTIVE" and e.active
    assert e.expires_at_ms == tx2["expiresDate"] and e.grace_period_expires_at_ms == 0
    assert kinds(c, "grace") == sorted([
        ("EVENT_TYPE_PURCHASE", ""), ("EVENT_TYPE_GRACE_PERIOD", "DID_FAIL_TO_RENEW/GRACE_PERIOD"),
        ("EVENT_TYPE_BILLING_RECOVERED", "DID_RENEW/BILLING_RECOVERY"),
        ("EVENT_TYPE_RENEWAL", "DID_RENEW/BILLING_RECOVERY")])


def test_billing_retry_without_grace_and_grace_period_expired(notify, signer):
    c = notify()
    now = apple_pki.now_ms()
    chain = chain_id()
    tx1 = transaction(chain, purchase=now - 31 * DAY_MS, expires=now - DAY_MS, signed=now - 31 * DAY_MS + 1000)
    c.seed("retry", [seed_tx(tx1)])
    fail = notification("DID_FAIL_TO_RENEW", signed=now - 2 * HOUR_MS,
                        signed_transaction=signer.sign(tx1),
                        signed_renewal=signer.sign(renewal(chain, signed=now - 2 * HOUR_MS, billing_retry=True)))
    assert c.post_v2(fail) == 200
    e = c.entitlement("retry")
    assert state_name(c, e) == "ENTITLEMENT_STATE_BILLING_RETRY" and not e.active
    expired_grace = notification(
        "GRACE_PERIOD_EXPIRED", signed=now - HOUR_MS, signed_transaction=signer.sign(tx1),
        signed_renewal=signer.sign(renewal(chain, signed=now - HOUR_MS, billing_retry=True,
                                           grace_expires=now - HOUR_MS)))
    assert c.post_v2(expired_grace) == 200
    e = c.entitlement("retry")
    assert state_name(c, e) == "ENTITLEMENT_STATE_BILLING_RETRY" and not e.active
    assert kinds(c, "retry") == sorted([("EVENT_TYPE_PURCHASE", ""), ("EVENT_TYPE_BILLING_RETRY", "DID_FAIL_TO_RENEW"),
                                        ("EVENT_TYPE_BILLING_RETRY", "GRACE_PERIOD_EXPIRED")])


# --- the other types ------------------------------------------------------------------------

def test_renewal_status_unknown_type_and_other_kinds(notify, signer):
    c = notify()
    s = Story(signer)
    s.tx1["expiresDate"] = s.tx2["purchaseDate"]  # no overlap: revoking tx2 leaves nothing active
    c.seed("kinds", [seed_tx(s.tx1)])
    assert c.post_v2(s.did_renew()) == 200
    base = s.now - 50_000

    def post(kind, subtype=None, offset=0, renewal_info=None, tx=None):
        payload = notification(kind, subtype=subtype, signed=base + offset,
                               signed_transaction=signer.sign(tx or s.tx2),
                               signed_renewal=signer.sign(renewal_info) if renewal_info else None)
        assert c.post_v2(payload) == 200, kind
        return c.events("kinds")[f"v2:{payload['notificationUUID']}"]

    disabled = post("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", 1000,
                    s.renewal(base + 1000, auto_renew=False))
    assert disabled.type == c.pb.ent.EVENT_TYPE_AUTO_RENEW_DISABLED
    assert disabled.transaction_id == s.tx2["transactionId"] and disabled.occurred_at_ms == base + 1000
    e = c.entitlement("kinds")
    assert not e.will_auto_renew and e.active

    enabled = post("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED", 2000, s.renewal(base + 2000))
    assert enabled.type == c.pb.ent.EVENT_TYPE_AUTO_RENEW_ENABLED
    assert c.entitlement("kinds").will_auto_renew

    new = post("SOMETHING_NEW", "SOME_SUBTYPE", 3000)
    assert new.type == c.pb.ent.EVENT_TYPE_UNSPECIFIED and new.apple_notification_type == "SOMETHING_NEW/SOME_SUBTYPE"
    assert new.source == c.pb.ent.EVENT_SOURCE_NOTIFICATION_V2

    change = post("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", 4000,
                  s.renewal(base + 4000, product_id="com.example.app.basic.monthly"))
    assert change.type == c.pb.ent.EVENT_TYPE_PRODUCT_CHANGE
    offer = post("OFFER_REDEEMED", "UPGRADE", 5000)
    assert offer.type == c.pb.ent.EVENT_TYPE_UNSPECIFIED and offer.apple_notification_type == "OFFER_REDEEMED/UPGRADE"
    assert c.entitlement("kinds").active

    revoked = dict(s.tx2, revocationDate=base + 6000, revocationReason=0, signedDate=base + 6000)
    payload = notification("REVOKE", signed=base + 6500, signed_transaction=signer.sign(revoked))
    assert c.post_v2(payload) == 200
    events = c.events("kinds")
    assert f"v2:{payload['notificationUUID']}" not in events, "REVOKE is recorded from the transaction, once"
    revoke = events[f"revoke:{s.tx2['transactionId']}"]
    assert revoke.type == c.pb.ent.EVENT_TYPE_REVOKE and revoke.apple_notification_type == "REVOKE"
    assert revoke.occurred_at_ms == base + 6000, "at the revocation date"
    e = c.entitlement("kinds")
    assert state_name(c, e) == "ENTITLEMENT_STATE_REVOKED" and not e.active
    assert len(c.history("kinds")) == 2 + 5 + 1, "purchase, renewal, five notification events, the revocation"


def test_expired_notification(notify, signer):
    c = notify()
    now = apple_pki.now_ms()
    chain = chain_id()
    tx1 = transaction(chain, purchase=now - 31 * DAY_MS, expires=now - DAY_MS, signed=now - 31 * DAY_MS + 1000)
    c.seed("exp", [seed_tx(tx1)])
    expired = notification("EXPIRED", subtype="VOLUNTARY", signed=now - DAY_MS + 1000, signed_transaction=signer.sign(tx1),
                           signed_renewal=signer.sign(renewal(chain, signed=now - DAY_MS + 1000, auto_renew=False,
                                                              expirationIntent=1)))
    assert c.post_v2(expired) == 200
    e = c.entitlement("exp")
    assert state_name(c, e) == "ENTITLEMENT_STATE_EXPIRED" and not e.active and not e.will_auto_renew
    assert kinds(c, "exp") == [("EVENT_TYPE_EXPIRED", "EXPIRED/VOLUNTARY"), ("EVENT_TYPE_PURCHASE", "")]


def test_test_notification_stores_nothing(notify, signer):
    c = notify()
    s = Story(signer)
    c.seed("test-type", [seed_tx(s.tx1)])
    before = c.snapshot("test-type")
    # Apple's TEST carries no transaction; one with a transaction must still store nothing.
    assert c.post_v2(notification("TEST", signed=s.now - 1000)) == 200
    assert c.post_v2(notification("TEST", signed=s.now - 1000, signed_transaction=signer.sign(s.tx2),
                                  signed_renewal=signer.sign(s.renewal(s.now - 1000, auto_renew=False)))) == 200
    assert c.snapshot("test-type") == before


# --- rejections: 4xx and nothing stored -----------------------------------------------------

def _flip_one_char_keeping_json(compact):
    """Flips one base64url character of the payload so it still decodes to valid JSON (so the
    signature check, not the parser, has to catch it)."""
    header, payload, signature = compact.split(".")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    for i in range(len(payload) // 3, len(payload) - 4):
        for ch in alphabet:
            if ch == payload[i]:
                continue
            candidate = payload[:i] + ch + payload[i + 1:]
            try:
                decoded = json.loads(b64url_decode(candidate).decode())
            except (ValueError, UnicodeDecodeError):
                continue
            if isinstance(decoded, dict) and "signedDate" in decoded and decoded != json.loads(b64url_decode(payload)):
                return ".".join([header, candidate, signature])
    raise AssertionError("no JSON-preserving flip found")


def _der_signature(raw):
    def integer(b):
        b = b.lstrip(b"\0") or b"\0"
        if b[0] & 0x80:
            b = b"\0" + b
        return bytes([2, len(b)]) + b

    body = integer(raw[:32]) + integer(raw[32:])
    return bytes([0x30, len(body)]) + body


def test_rejections_store_nothing(notify, signer, pki, rogue_pki):
    c = notify()
    s = Story(signer)
    user = "victim"
    c.seed(user, [seed_tx(s.tx1)], [{"original_transaction_id": s.chain, "auto_renew_status": True,
                                     "signed_date_ms": s.now - 29 * DAY_MS}])
    before = c.snapshot(user)

    def payload(signer_=signer, **kw):
        """A DID_RENEW that would move the expiry and turn auto renew off if accepted."""
        return notification("DID_RENEW", signed=s.now - 1000, signed_transaction=signer_.sign(s.tx2),
                            signed_renewal=signer_.sign(s.renewal(s.now - 1000, auto_renew=False)), **kw)

    good = signer.sign(payload())
    header, body, sig = good.split(".")
    tampered_payload = decode_payload(good)
    tampered_payload["notificationType"] = "REFUND"
    nested_forged = replace_payload(signer.sign(s.tx2), dict(s.tx2, expiresDate=s.now + 3650 * DAY_MS))
    renewal_forged = replace_payload(signer.sign(s.renewal(s.now - 1000)),
                                     s.renewal(s.now - 1000, auto_renew=False, gracePeriodExpiresDate=s.now + 99 * DAY_MS))
    rogue = Signer(rogue_pki)
    x5c = pki.chain()
    hs256_header = b64url(json.dumps({"alg": "HS256", "x5c": x5c}).encode())
    hs256_input = f"{hs256_header}.{body}"
    hs256 = hs256_input + "." + b64url(hmac.new(pki.leaf.pem.encode(), hs256_input.encode(), hashlib.sha256).digest())
    none_header = b64url(json.dumps({"alg": "none", "x5c": x5c}).encode())
    es256_input = good.rsplit(".", 1)[0]

    cases = [
        ("payload re-encoded with another notificationType", 401, replace_payload(good, tampered_payload)),
        ("one payload character flipped (still valid JSON)", 401, _flip_one_char_keeping_json(good)),
        ("nested signedTransactionInfo payload replaced", 401,
         signer.sign(dict(payload(), data=dict(payload()["data"], signedTransactionInfo=nested_forged)))),
        ("nested signedRenewalInfo payload replaced", 401,
         signer.sign(dict(payload(), data=dict(payload()["data"], signedRenewalInfo=renewal_forged)))),
        ("nested transaction signed by an untrusted PKI", 401,
         signer.sign(dict(payload(), data=dict(payload()["data"], signedTransactionInfo=rogue.sign(s.tx2))))),
        ("untrusted root (a second PKI)", 401, rogue.sign(payload(rogue))),
        ("untrusted chain presenting the trusted root's certificate", 401,
         Signer(rogue_pki, x5c=[rogue_pki.leaf.x5c, rogue_pki.intermediate.x5c, pki.root.x5c]).sign(payload(rogue))),
        ("leaf without 1.2.840.113635.100.6.11.1", 401,
         Signer(pki, leaf=pki.leaf_no_oid).sign(payload(Signer(pki, leaf=pki.leaf_no_oid)))),
        ("intermediate without 1.2.840.113635.100.6.2.1", 401,
         Signer(pki, leaf=pki.leaf_under_no_oid_intermediate,
                x5c=pki.chain(leaf=pki.leaf_under_no_oid_intermediate, intermediate=pki.intermediate_no_oid))
         .sign(payload())),
        # An empty third segment is not a compact JWS at all: malformed (400) or refused (401).
        ("alg none, empty signature", (400, 401), f"{none_header}.{body}."),
        ("alg none, ES256 signature kept", 401, f"{none_header}.{body}.{sig}"),
        ("alg HS256 keyed with the leaf certificate", 401, hs256),
        ("x5c with two certificates", 401, Signer(pki, x5c=x5c[:2]).sign(payload())),
        ("x5c with the root only", 401, Signer(pki, x5c=[x5c[2]]).sign(payload())),
        ("x5c in leaf-root-intermediate order", 401, Signer(pki, x5c=[x5c[0], x5c[2], x5c[1]]).sign(payload())),
        ("x5c without the header", 401, signer.sign(payload(), header={"alg": "ES256"})),
        ("DER signature instead of raw r||s", 401,
         f"{es256_input}." + b64url(_der_signature(b64url_decode(sig)))),
        ("signature of another payload", 401, f"{es256_input}." + signer.sign({"x": 1}).split(".")[2]),
        ("signedDate before the certificates' validity", 401,
         signer.sign(dict(payload(), signedDate=1_546_300_800_000))),  # 2019-01-01
        ("signedPayload not a JWS", 400, "not-a-jws"),
    ]
    for name, status, jws in cases:
        got = c.post({"signedPayload": jws})
        assert got in (status if isinstance(status, tuple) else (status,)), f"{name}: {got}"
        assert c.snapshot(user) == before, f"{name}: something was stored"
    for name, body_bytes in [("not JSON", b"{not json"), ("empty body", b""), ("JSON array", b"[1,2]"),
                             ("V1 without notification_type", json.dumps({"password": SHARED_SECRET}).encode())]:
        status = c.post(body_bytes)
        assert 400 <= status < 500, f"{name}: {status}"
        assert c.snapshot(user) == before, f"{name}: something was stored"

    # Body limit: exactly 1 MiB is accepted, one byte more is 413 (and stores nothing).
    over = {"signedPayload": signer.sign(payload()), "pad": ""}
    over["pad"] = "x" * ((1 << 20) + 1 - len(json.dumps(over).encode()))
    assert len(json.dumps(over).encode()) == (1 << 20) + 1
    assert c.post(over) == 413
    if CURL:
        assert c.post(over, "http2") == 413
    assert c.snapshot(user) == before, "an oversized body was stored"

    # The control: the same notification, properly signed, is accepted and changes the state.
    exact = {"signedPayload": good, "pad": ""}
    exact["pad"] = "x" * ((1 << 20) - len(json.dumps(exact).encode()))
    assert len(json.dumps(exact).encode()) == 1 << 20
    assert c.post(exact) == 200
    e = c.entitlement(user)
    assert e.expires_at_ms == s.tx2["expiresDate"] and not e.will_auto_renew


def test_wrong_bundle_is_403(notify, signer):
    c = notify("--bundle-id", BUNDLE_ID)
    s = Story(signer)
    c.seed("bundle", [seed_tx(s.tx1)])
    before = c.snapshot("bundle")
    assert c.post_v2(s.did_renew(bundle_id="com.example.other")) == 403
    other_v1 = dict(copy.deepcopy(V1_SAMPLE), bid="com.example.other")
    assert c.post(other_v1) == 403
    assert c.snapshot("bundle") == before
    assert c.post_v2(s.did_renew()) == 200
    assert c.entitlement("bundle").expires_at_ms == s.tx2["expiresDate"]


def test_certificates_are_checked_at_each_signed_date(notify, signer, pki):
    """A leaf valid only in 2021 still verifies what it signed in 2021 (outer payload and nested
    transaction alike, each at its own signedDate), and nothing dated later."""
    c = notify()
    old_signer = Signer(pki, leaf=pki.leaf_2021)
    june_2021 = 1_622_505_600_000
    now = apple_pki.now_ms()
    chain = chain_id()
    tx_2021 = transaction(chain, purchase=june_2021, expires=june_2021 + 30 * DAY_MS, signed=june_2021 + 1000)
    c.seed("old-leaf", [seed_tx(tx_2021)])
    before = c.snapshot("old-leaf")

    # Signed by the 2021 leaf but dated now, when that certificate had expired: outer, then nested.
    assert c.post({"signedPayload": old_signer.sign(notification(
        "DID_CHANGE_RENEWAL_STATUS", subtype="AUTO_RENEW_DISABLED", signed=now - 1000,
        signed_transaction=signer.sign(tx_2021)))}) == 401
    assert c.post_v2(notification("DID_CHANGE_RENEWAL_STATUS", subtype="AUTO_RENEW_DISABLED", signed=now - 1000,
                                  signed_transaction=old_signer.sign(dict(tx_2021, signedDate=now - 1000)))) == 401
    assert c.snapshot("old-leaf") == before

    # A current notification carrying a transaction the 2021 leaf signed in 2021: each verifies.
    current = notification("DID_CHANGE_RENEWAL_STATUS", subtype="AUTO_RENEW_ENABLED", signed=now - 1000,
                           signed_transaction=old_signer.sign(tx_2021))
    assert c.post_v2(current) == 200
    assert f"v2:{current['notificationUUID']}" in c.events("old-leaf")
    # Entirely from 2021: outer, transaction and renewal info signed by the 2021 leaf.
    assert c.post({"signedPayload": old_signer.sign(notification(
        "DID_CHANGE_RENEWAL_STATUS", subtype="AUTO_RENEW_DISABLED", signed=june_2021 + 2000,
        signed_transaction=old_signer.sign(tx_2021),
        signed_renewal=old_signer.sign(renewal(chain, signed=june_2021 + 2000, auto_renew=False))))}) == 200
    e = c.entitlement("old-leaf")
    assert state_name(c, e) == "ENTITLEMENT_STATE_EXPIRED" and not e.will_auto_renew
    assert ("EVENT_TYPE_AUTO_RENEW_DISABLED", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED") in kinds(c, "old-leaf")


def _summary_notification():
    summary = notification("RENEWAL_EXTENSION", subtype="SUMMARY", signed=apple_pki.now_ms() - 1000)
    del summary["data"]
    summary["summary"] = {"requestIdentifier": "1b2c3d4e-0000-4000-8000-000000000001", "environment": "Sandbox",
                          "bundleId": BUNDLE_ID, "productId": PRODUCT_ID, "storefrontCountryCodes": ["USA"],
                          "succeededCount": 5, "failedCount": 0}
    return summary


def test_summary_notification_without_data_is_accepted(notify):
    """RENEWAL_EXTENSION/SUMMARY carries `summary` instead of `data`: 200, nothing to store."""
    c = notify()
    assert c.post_v2(_summary_notification()) == 200


def test_summary_notification_with_bundle_id_flag_is_accepted(notify):
    c = notify("--bundle-id", BUNDLE_ID)
    assert c.post_v2(_summary_notification()) == 200


# --- V1 -------------------------------------------------------------------------------------

V1_CHAIN = V1_SAMPLE["original_transaction_id"]


def v1_seed(c, user):
    """The chain's first transaction, as a receipt would have shown it."""
    c.seed(user, [{"transaction_id": V1_CHAIN, "original_transaction_id": V1_CHAIN,
                   "product_id": "com.example.app.vip.monthly", "purchase_date_ms": 1654662980000,
                   "original_purchase_date_ms": 1654662980000, "expires_date_ms": 1654663160000,
                   "environment": "sandbox"}])


@pytest.mark.parametrize("transport", ["http1", "http2"])
def test_v1_sample_did_renew(notify, transport):
    if transport == "http2" and not CURL:
        pytest.skip(NO_CURL)
    c = notify()
    body = json.dumps(V1_SAMPLE).encode()
    assert c.post(body, transport) == 200
    assert c.check("v1-user").entitlements == []
    v1_seed(c, "v1-user")
    e = c.entitlement("v1-user")
    assert e.original_transaction_id == V1_CHAIN
    assert e.latest_transaction_id == "2000000080000003" and e.expires_at_ms == 1654682095000
    assert state_name(c, e) == "ENTITLEMENT_STATE_EXPIRED", "the sample's period ended in 2022"
    assert e.will_auto_renew and e.environment == c.pb.ent.ENVIRONMENT_SANDBOX
    events = c.events("v1-user")
    assert set(events) == {f"purchase:{V1_CHAIN}", "renewal:2000000080000002", "renewal:2000000080000003"}
    assert events["renewal:2000000080000003"].source == c.pb.ent.EVENT_SOURCE_NOTIFICATION_V1
    assert {events[i].apple_notification_type for i in ("renewal:2000000080000002", "renewal:2000000080000003")} \
        == {"DID_RENEW"}, "every transaction the notification reported is named by it"
    assert events[f"purchase:{V1_CHAIN}"].apple_notification_type == "", "the receipt reported the purchase"
    after = c.snapshot("v1-user")
    assert c.post(body, transport) == 200, "a redelivery is acknowledged"
    assert c.snapshot("v1-user") == after


def test_v1_wrong_password_stores_nothing(notify):
    c = notify()
    v1_seed(c, "v1-pw")
    before = c.snapshot("v1-pw")
    wrong = dict(copy.deepcopy(V1_SAMPLE), password="not-the-secret")
    missing = copy.deepcopy(V1_SAMPLE)
    del missing["password"]
    assert c.post(wrong) == 401
    assert c.post(missing) == 401
    if CURL:
        assert c.post(wrong, "http2") == 401
    assert c.snapshot("v1-pw") == before
    assert c.post(V1_SAMPLE) == 200
    assert c.entitlement("v1-pw").latest_transaction_id == "2000000080000003"


def test_v1_without_configured_secret_is_refused(pb, server, pki, signer):
    c = Client(pb, server("--apple-root-ca", pki.root_pem_path), signer)
    v1_seed(c, "v1-nosecret")
    before = c.snapshot("v1-nosecret")
    assert c.post(V1_SAMPLE) == 401
    assert c.snapshot("v1-nosecret") == before


def test_v1_without_a_password_is_refused_when_no_secret_is_configured(pb, server, pki, signer):
    """Issue 16: with the shared secret unset (the env file's line commented out), a V1 body
    without a password, or with an empty one, must not authenticate."""
    c = Client(pb, server("--apple-root-ca", pki.root_pem_path), signer)
    v1_seed(c, "v1-nopassword")
    before = c.snapshot("v1-nopassword")
    missing = copy.deepcopy(V1_SAMPLE)
    del missing["password"]
    empty = dict(copy.deepcopy(V1_SAMPLE), password="")
    for body in (missing, empty, dict(copy.deepcopy(V1_SAMPLE), password=None)):
        assert c.post(body) == 401
    if CURL:
        assert c.post(empty, "http2") == 401
    assert c.snapshot("v1-nopassword") == before


def test_v1_did_change_renewal_status(notify):
    c = notify()
    v1_seed(c, "v1-status")
    assert c.post(V1_SAMPLE) == 200
    assert c.entitlement("v1-status").will_auto_renew
    off = copy.deepcopy(V1_SAMPLE)
    off["notification_type"] = "DID_CHANGE_RENEWAL_STATUS"
    off["auto_renew_status"] = "false"
    off["auto_renew_status_change_date_ms"] = str(apple_pki.now_ms())
    off["unified_receipt"]["pending_renewal_info"][0]["auto_renew_status"] = "0"
    assert c.post(off) == 200
    assert not c.entitlement("v1-status").will_auto_renew
    [disabled] = [e for e in c.history("v1-status") if e.type == c.pb.ent.EVENT_TYPE_AUTO_RENEW_DISABLED]
    assert disabled.apple_notification_type == "DID_CHANGE_RENEWAL_STATUS"
    assert disabled.source == c.pb.ent.EVENT_SOURCE_NOTIFICATION_V1
    assert disabled.original_transaction_id == V1_CHAIN and disabled.transaction_id == "2000000080000003"
    assert len(c.history("v1-status")) == 4
    assert c.post(off) == 200, "a redelivery (same body) is acknowledged"
    assert len(c.history("v1-status")) == 4


def test_v1_cancel_with_cancellation_date_is_a_refund(notify):
    c = notify()
    v1_seed(c, "v1-cancel")
    assert c.post(V1_SAMPLE) == 200
    cancel = copy.deepcopy(V1_SAMPLE)
    cancel["notification_type"] = "CANCEL"
    newest = next(t for t in cancel["unified_receipt"]["latest_receipt_info"] if t["transaction_id"] == "2000000080000003")
    newest["cancellation_date_ms"] = "1654682000000"
    newest["cancellation_reason"] = "0"
    assert c.post(cancel) == 200
    e = c.entitlement("v1-cancel")
    assert state_name(c, e) == "ENTITLEMENT_STATE_REVOKED" and not e.active
    refund = c.events("v1-cancel")["refund:2000000080000003"]
    assert refund.type == c.pb.ent.EVENT_TYPE_REFUND and refund.occurred_at_ms == 1654682000000
    assert refund.source == c.pb.ent.EVENT_SOURCE_NOTIFICATION_V1
    assert refund.apple_notification_type == "CANCEL", "a refund derived from V1 CANCEL carries CANCEL"


# --- history names the notification that reported or confirmed each event -----------------

def _resubscription(s):
    """Chain s.chain lapsed, and the customer came back: a new purchase in the same chain."""
    tx = transaction(next_id(s.chain, 5), s.chain, purchase=s.now - MINUTE_MS, expires=s.now + 30 * DAY_MS,
                     signed=s.now - MINUTE_MS + 1000, original_purchase=s.tx1["purchaseDate"])
    resubscribed = notification("SUBSCRIBED", subtype="RESUBSCRIBE", signed=tx["signedDate"] + 500,
                                signed_transaction=s.sign(tx), signed_renewal=s.sign(s.renewal(tx["signedDate"])))
    return tx, resubscribed


def test_resubscribe_is_a_purchase_whoever_reported_it_first(notify, signer):
    c = notify()
    # The notification first: the resubscription is a PURCHASE from the start.
    s = Story(signer, now=apple_pki.now_ms())
    s.tx1.update(purchaseDate=s.now - 90 * DAY_MS, expiresDate=s.now - 60 * DAY_MS)
    tx, resubscribed = _resubscription(s)
    c.seed("resub-notified", [seed_tx(s.tx1)])
    assert c.post_v2(resubscribed) == 200
    event = c.events("resub-notified")[f"purchase:{tx['transactionId']}"]
    assert event.type == c.pb.ent.EVENT_TYPE_PURCHASE and event.source == c.pb.ent.EVENT_SOURCE_NOTIFICATION_V2
    assert event.apple_notification_type == "SUBSCRIBED/RESUBSCRIBE"
    assert c.entitlement("resub-notified").latest_transaction_id == tx["transactionId"]

    # A receipt first (it cannot tell a resubscription from a renewal), then the notification:
    # the same single event becomes a PURCHASE named by it, its source unchanged.
    s = Story(signer, now=apple_pki.now_ms())
    s.tx1.update(purchaseDate=s.now - 90 * DAY_MS, expiresDate=s.now - 60 * DAY_MS)
    tx, resubscribed = _resubscription(s)
    c.seed("resub-receipt", [seed_tx(s.tx1), seed_tx(tx)])
    before = c.events("resub-receipt")
    assert before[f"renewal:{tx['transactionId']}"].type == c.pb.ent.EVENT_TYPE_RENEWAL
    assert c.post_v2(resubscribed) == 200
    after = c.events("resub-receipt")
    assert set(after) == set(before), "one event per happening"
    event = after[f"renewal:{tx['transactionId']}"]
    assert event.type == c.pb.ent.EVENT_TYPE_PURCHASE and event.source == c.pb.ent.EVENT_SOURCE_RECEIPT
    assert event.apple_notification_type == "SUBSCRIBED/RESUBSCRIBE"
    assert event.occurred_at_ms == tx["purchaseDate"]
    assert c.post_v2(resubscribed) == 200, "a redelivery"
    assert c.events("resub-receipt") == after


def test_receipt_reported_renewal_and_refund_are_named_by_the_confirming_notifications(notify, signer):
    c = notify()
    s = Story(signer)
    refunded_at = s.now - 30 * MINUTE_MS
    c.seed("confirmed", [seed_tx(s.tx1), dict(seed_tx(s.tx2), cancellation_date_ms=refunded_at)])
    events = c.events("confirmed")
    assert {e.apple_notification_type for e in events.values()} == {""}, "receipts name no notification"
    assert c.post_v2(s.did_renew()) == 200
    refunded = dict(s.tx2, revocationDate=refunded_at, revocationReason=1, signedDate=refunded_at + 1000)
    assert c.post_v2(notification("REFUND", signed=refunded_at + 2000, signed_transaction=signer.sign(refunded))) == 200
    events = c.events("confirmed")
    renewal_id, refund_id = f"renewal:{s.tx2['transactionId']}", f"refund:{s.tx2['transactionId']}"
    assert set(events) == {f"purchase:{s.chain}", renewal_id, refund_id}, "confirmed, not added"
    assert events[renewal_id].apple_notification_type == "DID_RENEW"
    assert events[refund_id].apple_notification_type == "REFUND"
    assert events[f"purchase:{s.chain}"].apple_notification_type == ""
    assert {e.source for e in events.values()} == {c.pb.ent.EVENT_SOURCE_RECEIPT}


def test_v1_notification_confirms_the_renewal_a_receipt_reported(notify):
    c = notify()
    v1_seed(c, "v1-confirmed")
    newest = next(t for t in V1_SAMPLE["unified_receipt"]["latest_receipt_info"]
                  if t["transaction_id"] == "2000000080000003")
    c.seed("v1-confirmed", [{"transaction_id": newest["transaction_id"], "original_transaction_id": V1_CHAIN,
                             "product_id": newest["product_id"], "purchase_date_ms": int(newest["purchase_date_ms"]),
                             "expires_date_ms": int(newest["expires_date_ms"]), "environment": "sandbox"}])
    assert c.post(V1_SAMPLE) == 200
    events = c.events("v1-confirmed")
    assert events["renewal:2000000080000003"].apple_notification_type == "DID_RENEW"
    assert events["renewal:2000000080000003"].source == c.pb.ent.EVENT_SOURCE_RECEIPT
    assert events["renewal:2000000080000002"].source == c.pb.ent.EVENT_SOURCE_NOTIFICATION_V1
    assert events[f"purchase:{V1_CHAIN}"].apple_notification_type == "", \
        "a DID_RENEW confirms its renewal, not the purchase its unified receipt repeats"


@pytest.mark.parametrize("v1_type", ["DID_RENEW", "INTERACTIVE_RENEWAL", "DID_RECOVER"])
def test_every_v1_renewal_type_names_the_renewal_a_receipt_reported(notify, v1_type):
    """The same DID_RENEW sample under each V1 type that reports a renewal: whichever it is, the
    event the receipt recorded carries it."""
    c = notify()
    user = f"v1-{v1_type.lower()}"
    v1_seed(c, user)
    newest = next(t for t in V1_SAMPLE["unified_receipt"]["latest_receipt_info"]
                  if t["transaction_id"] == "2000000080000003")
    c.seed(user, [{"transaction_id": newest["transaction_id"], "original_transaction_id": V1_CHAIN,
                   "product_id": newest["product_id"], "purchase_date_ms": int(newest["purchase_date_ms"]),
                   "expires_date_ms": int(newest["expires_date_ms"]), "environment": "sandbox"}])
    assert c.post(dict(V1_SAMPLE, notification_type=v1_type)) == 200
    events = c.events(user)
    assert events["renewal:2000000080000003"].apple_notification_type == v1_type, events
    assert events["renewal:2000000080000003"].source == c.pb.ent.EVENT_SOURCE_RECEIPT


def test_a_v1_interactive_renewal_upgrade_names_the_new_plan_a_receipt_reported(notify):
    """An upgrade from a yearly plan to a monthly one: the replaced plan, cancelled and
    `is_upgraded`, still expires after the new plan, so it is the newest by expiry. The
    INTERACTIVE_RENEWAL is about the new plan's period, which the receipt recorded as a renewal."""
    c = notify()
    now = int(time.time() * 1000)
    bought, upgraded_at = now - 10 * DAY_MS, now - HOUR_MS
    chain, new_plan = "2000000090000001", "2000000090000002"
    yearly = {"transaction_id": chain, "original_transaction_id": chain, "product_id": "com.example.app.basic.yearly",
              "purchase_date_ms": bought, "original_purchase_date_ms": bought,
              "expires_date_ms": bought + 365 * DAY_MS, "cancellation_date_ms": upgraded_at, "is_upgraded": True,
              "environment": "sandbox"}
    monthly = {"transaction_id": new_plan, "original_transaction_id": chain,
               "product_id": "com.example.app.premium.monthly", "purchase_date_ms": upgraded_at,
               "original_purchase_date_ms": bought, "expires_date_ms": upgraded_at + 30 * DAY_MS,
               "environment": "sandbox"}
    c.seed("v1-upgrade", [yearly, monthly])

    def receipt_info(t):
        info = {k: str(v) for k, v in t.items() if k.endswith("_ms") or k.endswith("_id")}
        if t.get("is_upgraded"):
            info["is_upgraded"] = "true"
            info["cancellation_reason"] = "0"
        return dict(info, quantity="1", is_trial_period="false", in_app_ownership_type="PURCHASED")

    body = dict(V1_SAMPLE, notification_type="INTERACTIVE_RENEWAL", original_transaction_id=chain,
                auto_renew_product_id=monthly["product_id"])
    body["unified_receipt"] = dict(V1_SAMPLE["unified_receipt"], latest_receipt_info=[
        receipt_info(monthly), receipt_info(yearly)], pending_renewal_info=[
        {"auto_renew_status": "1", "auto_renew_product_id": monthly["product_id"],
         "product_id": monthly["product_id"], "original_transaction_id": chain}])
    assert c.post(body) == 200
    events = c.events("v1-upgrade")
    assert events[f"renewal:{new_plan}"].apple_notification_type == "INTERACTIVE_RENEWAL", events
    assert events[f"purchase:{chain}"].apple_notification_type == ""
    assert set(events) == {f"purchase:{chain}", f"renewal:{new_plan}", f"product_change:{chain}"}, "named, not added"


# --- upgrades and Family Sharing revocations: one event each, whoever reports first ---------

PREMIUM_ID = "com.example.app.premium.monthly"
UPGRADE_TYPE = "DID_CHANGE_RENEWAL_PREF/UPGRADE"


@pytest.fixture
def with_receipts(pb, server, pki, signer):
    """A server that trusts the test root and verifies receipts against a fake Apple: the
    receipt path and the notification path feed one history."""
    from fake_apple import FakeApple
    fake = FakeApple(password=SHARED_SECRET)
    client = Client(pb, server("--apple-root-ca", pki.root_pem_path, *fake.flags()), signer)
    client.apple = fake
    yield client
    fake.close()


def submit_receipt(c, user, periods):
    from fake_apple import subscription_body
    data = c.apple.receipt(body=subscription_body(periods))
    return c.stub.SubmitReceipt(c.pb.ent.SubmitReceiptRequest(user_id=user, receipt_data=data), timeout=30)


def _upgrade(signer, chain):
    """Chain `chain`: a basic plan bought 10 days ago, upgraded to premium an hour ago (the
    receipt's view of both, before and after) and Apple's V2 UPGRADE carrying the new plan."""
    now = apple_pki.now_ms()
    bought, upgraded_at = now - 10 * DAY_MS, now - HOUR_MS
    premium_id = next_id(chain)
    basic = (chain, bought, bought + 30 * DAY_MS)
    basic_upgraded = basic + ({"cancellation_date_ms": str(upgraded_at), "is_upgraded": "true"},)
    premium = (premium_id, upgraded_at, upgraded_at + 30 * DAY_MS, {"product_id": PREMIUM_ID})
    new_plan = transaction(premium_id, chain, product_id=PREMIUM_ID, purchase=upgraded_at,
                           expires=upgraded_at + 30 * DAY_MS, signed=upgraded_at + 1000, original_purchase=bought)
    upgrade = notification("DID_CHANGE_RENEWAL_PREF", subtype="UPGRADE", signed=upgraded_at + 2000,
                           signed_transaction=signer.sign(new_plan),
                           signed_renewal=signer.sign(renewal(chain, signed=upgraded_at + 2000, product_id=PREMIUM_ID)))
    return basic, basic_upgraded, premium, upgrade, upgraded_at


def _assert_one_upgrade(c, user, chain, upgraded_at, source):
    events = c.events(user)
    premium_id = next_id(chain)
    assert set(events) == {f"purchase:{chain}", f"product_change:{chain}", f"renewal:{premium_id}"}, \
        "purchase, the upgrade, the new plan's period: no REFUND, no second PRODUCT_CHANGE"
    change = events[f"product_change:{chain}"]
    assert change.type == c.pb.ent.EVENT_TYPE_PRODUCT_CHANGE and change.source == source
    assert change.apple_notification_type == UPGRADE_TYPE and change.occurred_at_ms == upgraded_at
    assert change.transaction_id == chain, "the plan that was replaced"
    assert events[f"renewal:{premium_id}"].apple_notification_type == UPGRADE_TYPE
    assert not [e for e in events.values() if e.type == c.pb.ent.EVENT_TYPE_REFUND]
    e = c.entitlement(user)
    assert e.active and state_name(c, e) == "ENTITLEMENT_STATE_ACTIVE" and e.product_id == PREMIUM_ID


def test_an_upgrade_is_one_product_change_whichever_arrives_first(with_receipts, signer):
    c = with_receipts
    # The receipt first: the old plan's cancellation is the upgrade; the notification names it.
    chain = chain_id()
    basic, basic_upgraded, premium, upgrade, upgraded_at = _upgrade(signer, chain)
    submit_receipt(c, "upgrade-receipt", [basic])
    submit_receipt(c, "upgrade-receipt", [basic_upgraded, premium])
    events = c.events("upgrade-receipt")
    assert events[f"product_change:{chain}"].type == c.pb.ent.EVENT_TYPE_PRODUCT_CHANGE
    assert f"refund:{chain}" not in events, "an upgrade is not a refund"
    assert c.post_v2(upgrade) == 200
    _assert_one_upgrade(c, "upgrade-receipt", chain, upgraded_at, c.pb.ent.EVENT_SOURCE_RECEIPT)
    after = c.snapshot("upgrade-receipt")
    assert c.post_v2(upgrade) == 200, "a redelivery"
    assert c.snapshot("upgrade-receipt") == after

    # The notification first: recorded against the plan it replaced, which the receipt repeats.
    chain = chain_id()
    basic, basic_upgraded, premium, upgrade, upgraded_at = _upgrade(signer, chain)
    submit_receipt(c, "upgrade-notified", [basic])
    assert c.post_v2(upgrade) == 200
    submit_receipt(c, "upgrade-notified", [basic_upgraded, premium])
    _assert_one_upgrade(c, "upgrade-notified", chain, upgraded_at, c.pb.ent.EVENT_SOURCE_NOTIFICATION_V2)

    # The upgrade is the first the service hears of the chain: recorded against the new plan,
    # and the receipt that later shows the replaced plan joins it.
    chain = chain_id()
    basic, basic_upgraded, premium, upgrade, upgraded_at = _upgrade(signer, chain)
    assert c.post_v2(upgrade) == 200
    submit_receipt(c, "upgrade-first-contact", [basic_upgraded, premium])
    events = c.events("upgrade-first-contact")
    premium_id = next_id(chain)
    assert set(events) == {f"purchase:{chain}", f"product_change:to:{premium_id}", f"renewal:{premium_id}"}
    change = events[f"product_change:to:{premium_id}"]
    assert change.type == c.pb.ent.EVENT_TYPE_PRODUCT_CHANGE and change.product_id == PREMIUM_ID
    assert change.source == c.pb.ent.EVENT_SOURCE_NOTIFICATION_V2 and change.apple_notification_type == UPGRADE_TYPE


def test_v1_cancel_of_an_upgraded_plan_is_its_product_change(notify):
    c = notify()
    v1_seed(c, "v1-upgrade")
    cancel = copy.deepcopy(V1_SAMPLE)
    cancel["notification_type"] = "CANCEL"
    infos = cancel["unified_receipt"]["latest_receipt_info"]
    old = next(t for t in infos if t["transaction_id"] == "2000000080000003")
    old.update(cancellation_date_ms="1654682000000", is_upgraded="true")
    infos.insert(0, dict(old, transaction_id="2000000080000004", product_id=PREMIUM_ID,
                         purchase_date_ms="1654682000000", expires_date_ms="1654682300000",
                         web_order_line_item_id="2000000003000004"))
    for key in ("cancellation_date_ms", "is_upgraded"):
        del infos[0][key]
    assert c.post(cancel) == 200
    events = c.events("v1-upgrade")
    change = events["product_change:2000000080000003"]
    assert change.type == c.pb.ent.EVENT_TYPE_PRODUCT_CHANGE and change.occurred_at_ms == 1654682000000
    assert change.apple_notification_type == "CANCEL" and change.source == c.pb.ent.EVENT_SOURCE_NOTIFICATION_V1
    assert [e.event_id for e in events.values() if e.type == c.pb.ent.EVENT_TYPE_PRODUCT_CHANGE] == \
        ["product_change:2000000080000003"], "one event for the upgrade"
    assert not [e for e in events.values() if e.type == c.pb.ent.EVENT_TYPE_REFUND]
    assert state_name(c, c.entitlement("v1-upgrade")) != "ENTITLEMENT_STATE_REVOKED"


def _family_revocation(signer, chain):
    """A family member's shared subscription, revoked ten minutes ago: the receipt's view
    before and after, and Apple's REVOKE."""
    now = apple_pki.now_ms()
    bought, revoked_at = now - 10 * DAY_MS, now - 10 * MINUTE_MS
    shared = {"in_app_ownership_type": "FAMILY_SHARED"}
    before = (chain, bought, bought + 30 * DAY_MS, shared)
    after = before[:3] + (dict(shared, cancellation_date_ms=str(revoked_at), cancellation_reason="0"),)
    tx = transaction(chain, purchase=bought, expires=bought + 30 * DAY_MS, signed=revoked_at + 1000,
                     revocation=revoked_at, inAppOwnershipType="FAMILY_SHARED")
    revoke = notification("REVOKE", signed=revoked_at + 2000, signed_transaction=signer.sign(tx))
    return before, after, revoke, revoked_at


def _assert_one_revoke(c, user, chain, revoked_at, source):
    events = c.events(user)
    assert set(events) == {f"purchase:{chain}", f"revoke:{chain}"}, "no REFUND beside the REVOKE"
    revoke = events[f"revoke:{chain}"]
    assert revoke.type == c.pb.ent.EVENT_TYPE_REVOKE and revoke.source == source
    assert revoke.apple_notification_type == "REVOKE" and revoke.occurred_at_ms == revoked_at
    e = c.entitlement(user)
    assert state_name(c, e) == "ENTITLEMENT_STATE_REVOKED" and not e.active


def test_a_family_sharing_revocation_is_one_revoke_whichever_arrives_first(with_receipts, signer):
    c = with_receipts
    # The receipt first: a FAMILY_SHARED cancellation is already the revocation.
    chain = chain_id()
    before, after, revoke, revoked_at = _family_revocation(signer, chain)
    submit_receipt(c, "revoke-receipt", [after])
    assert c.events("revoke-receipt")[f"revoke:{chain}"].apple_notification_type == ""
    assert c.post_v2(revoke) == 200
    _assert_one_revoke(c, "revoke-receipt", chain, revoked_at, c.pb.ent.EVENT_SOURCE_RECEIPT)

    # The notification first, then the receipt showing the same revocation.
    chain = chain_id()
    before, after, revoke, revoked_at = _family_revocation(signer, chain)
    submit_receipt(c, "revoke-notified", [before])
    assert c.post_v2(revoke) == 200
    submit_receipt(c, "revoke-notified", [after])
    _assert_one_revoke(c, "revoke-notified", chain, revoked_at, c.pb.ent.EVENT_SOURCE_NOTIFICATION_V2)


# --- StoreKit 2 signed transactions ---------------------------------------------------------

def test_submit_signed_transaction(notify, signer, rogue_pki):
    c = notify()
    s = Story(signer)
    jws = signer.sign(s.tx1)
    reply = c.submit_signed("sk2", jws)
    assert reply.new_transactions == 1 and reply.apple_status == 0
    assert reply.environment == c.pb.ent.ENVIRONMENT_SANDBOX
    [e] = reply.entitlements
    assert e.active and e.original_transaction_id == s.chain and e.expires_at_ms == s.tx1["expiresDate"]
    assert e.product_type == c.pb.ent.PRODUCT_TYPE_AUTO_RENEWABLE and e.product_id == PRODUCT_ID
    assert c.check("sk2").active
    assert [ev.event_id for ev in c.history("sk2")] == [f"purchase:{s.chain}"]
    assert c.submit_signed("sk2", jws).new_transactions == 0

    other = Story(signer)
    bad = [
        ("payload replaced", replace_payload(signer.sign(other.tx1), dict(other.tx1, expiresDate=other.now + 3650 * DAY_MS))),
        ("one payload character flipped", _flip_one_char_keeping_json(signer.sign(other.tx1))),
        ("untrusted PKI", Signer(rogue_pki).sign(other.tx1)),
        ("leaf without the OID", Signer(signer.pki, leaf=signer.pki.leaf_no_oid).sign(other.tx1)),
        ("x5c with two certificates", Signer(signer.pki, x5c=signer.pki.chain()[:2]).sign(other.tx1)),
        ("not a JWS", "a.b.c"),
    ]
    for name, token in bad:
        with pytest.raises(grpc.RpcError) as info:
            c.submit_signed("sk2-bad", token)
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, f"{name}: {info.value.details()}"
        assert c.check("sk2-bad").entitlements == [] and c.history("sk2-bad") == [], f"{name}: something was stored"
    assert c.submit_signed("sk2-bad", signer.sign(other.tx1)).new_transactions == 1


def test_submit_signed_transaction_for_another_bundle(notify, signer):
    c = notify("--bundle-id", BUNDLE_ID)
    s = Story(signer)
    with pytest.raises(grpc.RpcError) as info:
        c.submit_signed("sk2-bundle", signer.sign(dict(s.tx1, bundleId="com.example.other")))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "bundle" in info.value.details()
    assert c.check("sk2-bundle").entitlements == [] and c.history("sk2-bundle") == []
    assert c.submit_signed("sk2-bundle", signer.sign(s.tx1)).new_transactions == 1


# --- throughput -----------------------------------------------------------------------------

def test_burst_of_300_notifications(notify, signer):
    c = notify()
    now = apple_pki.now_ms()
    users, per_user = 30, 10
    chains = {}
    for u in range(users):
        txs = []
        for _ in range(per_user):
            chain = chain_id()
            txs.append(transaction(chain, purchase=now - 29 * DAY_MS, expires=now + DAY_MS,
                                   signed=now - 29 * DAY_MS + 1000))
        c.seed(f"burst-{u}", [seed_tx(t) for t in txs])
        chains[f"burst-{u}"] = txs

    def build(user_tx):
        user, tx1 = user_tx
        tx2 = transaction(next_id(tx1["transactionId"]), tx1["transactionId"], purchase=now - MINUTE_MS,
                          expires=now + 31 * DAY_MS, signed=now - MINUTE_MS + 1000,
                          original_purchase=tx1["purchaseDate"])
        body = json.dumps({"signedPayload": signer.sign(
            notification("DID_RENEW", signed=now - 500, signed_transaction=signer.sign(tx2)))}).encode()
        return user, tx2, body

    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        work = list(pool.map(build, [(u, t) for u, txs in chains.items() for t in txs]))
    assert len(work) == 300 and len({b for _, _, b in work}) == 300

    threads = 16
    statuses = []
    lock = threading.Lock()

    def post_share(index):
        conn = http.client.HTTPConnection(c.server.host, c.server.port, timeout=30)
        mine = []
        try:
            for _, _, body in work[index::threads]:
                conn.request("POST", PATH, body=body, headers={"Content-Type": "application/json"})
                response = conn.getresponse()
                response.read()
                mine.append(response.status)
                assert not response.will_close, "the server closed a keep-alive connection"
        finally:
            conn.close()
        with lock:
            statuses.extend(mine)

    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        for f in [pool.submit(post_share, i) for i in range(threads)]:
            f.result()
    elapsed = time.monotonic() - start
    print(f"\n300 V2 notifications over {threads} keep-alive HTTP/1.1 connections: {elapsed:.2f} s, "
          f"{300 / elapsed:.0f} notifications/s")
    assert len(statuses) == 300 and set(statuses) == {200}, collections.Counter(statuses)

    for user, txs in chains.items():
        reply = c.check(user)
        assert len(reply.entitlements) == per_user
        latest = {e.original_transaction_id: e.latest_transaction_id for e in reply.entitlements}
        assert latest == {t["transactionId"]: next_id(t["transactionId"]) for t in txs}, user
        renewals = [e for e in c.history(user) if e.type == c.pb.ent.EVENT_TYPE_RENEWAL]
        assert len(renewals) == per_user, user
