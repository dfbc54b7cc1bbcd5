"""Crash loop: 100 times start entitlementd, drive concurrent SubmitReceipt (StoreKit 2 signed
transactions), V2 notifications (some delivered twice, as Apple retries) and reads, SIGKILL it at
a random instant, and check on restart: every acknowledged write present, none twice, nothing
that was never sent, `PRAGMA integrity_check` ok, and CheckEntitlement agreeing with ListHistory.

Some users buy the way an app with app account tokens does: GetAppAccountToken, then a
SUBSCRIBED notification carrying the token binds the purchase (no SubmitReceipt), while another
account keeps trying to claim it with the signed transaction and must be refused. On restart
their token is the one issued, the purchase is theirs, and never the other account's too.

Each user owns one chain; its transactions are numbered 0 (the purchase), 1, 2, ... (renewals),
all in the past, each expiring later than the one before. A write is acknowledged when its RPC
answered OK or its webhook post answered 200; a write cut off by the kill is "maybe": after the
restart it is either there or not, and whatever it is then must stay so. The run is seeded:
CRASH_LOOP_SEED=N reproduces one (thread timing aside); CRASH_LOOP_ITERATIONS overrides 100.
"""
import json
import os
import random
import shutil
import sqlite3
import threading
import time
import urllib.error
import urllib.request

import grpc
import pytest

from apple_pki import DAY_MS, PKI, now_ms, notification, renewal, transaction
from fast_signer import FastSigner

pytestmark = pytest.mark.single_process(
    "SIGKILLs the one server 100 times and checks its SQLite file (test_cluster.py restarts replicas under load)")

ITERATIONS = int(os.environ.get("CRASH_LOOP_ITERATIONS", "100"))
MAX_RENEWALS = 4


class User:
    """What the test sent about one user's chain, and which of it was acknowledged."""

    def __init__(self, name, chain, base):
        self.name, self.chain, self.base = name, chain, base
        self.sent = {}      # transaction id -> expires_at_ms, for everything sent and not known lost
        self.acked = set()  # transaction ids whose write was acknowledged
        self.next = 0       # index of the next transaction to send
        self.by_token = False  # buys with an app account token, bound by the notification alone
        self.token = None      # the token GetAppAccountToken answered (acknowledged)

    @property
    def thief(self):
        return "thief-" + self.name

    def tid(self, index):
        return str(int(self.chain) + index)

    def payload(self, index):
        """Transaction `index`: bought `index` days after the first, all in the past; each
        expires a day after the one before, all in the future."""
        purchase = self.base + index * DAY_MS
        extra = {"appAccountToken": self.token} if self.token else {}
        return transaction(self.tid(index), self.chain, purchase=purchase, expires=self.base + (20 + index) * DAY_MS,
                           signed=purchase + 1000, original_purchase=self.base, **extra)


class Model:
    def __init__(self, seed):
        self.lock = threading.Lock()
        self.users = []
        self.acked_users = []  # users whose purchase was acknowledged: renewals and reads pick these
        self.seed = seed
        self.base = now_ms() - 10 * DAY_MS

    def new_user(self):
        with self.lock:
            n = len(self.users)
            user = User(f"loop-{self.seed}-{n}", str(3_000_000_000_000_000 + n * 100), self.base)
            self.users.append(user)
            return user

    def reserve(self, user, index, expires):
        with self.lock:
            user.sent[user.tid(index)] = expires

    def next_write(self, known=None, by_token=False):
        """(user, index) of the next write: a new user's purchase (index 0) without `known`
        (bought with an app account token when `by_token`), else `known`'s next renewal; None
        once `known` had MAX_RENEWALS."""
        if known is None:
            user = self.new_user()
            user.by_token = by_token
            user.next = 1
            return user, 0
        with self.lock:
            index = known.next
            known.next += 1
        return None if index > MAX_RENEWALS else (known, index)

    def acknowledge(self, user, index):
        with self.lock:
            if not user.acked:
                self.acked_users.append(user)
            user.acked.add(user.tid(index))


def send_write(stub, ent, webhook_url, signer, model, user, index, rng, receipt_share, redelivery_share=0.0,
               timeout=5):
    """Sends transaction `index` of `user`, reserved in `model` first (it may land even if this
    raises): a purchase by SubmitReceipt; a renewal by SubmitReceipt with probability
    `receipt_share`, else as a DID_RENEW notification posted to `webhook_url` (twice with
    probability `redelivery_share`, as Apple redelivers). Raises what the RPC or the post raised;
    returning means acknowledged (OK / 200)."""
    if user.by_token and user.token is None:
        user.token = stub.GetAppAccountToken(ent.GetAppAccountTokenRequest(user_id=user.name),
                                             timeout=timeout).app_account_token
    payload = user.payload(index)
    model.reserve(user, index, payload["expiresDate"])
    jws = signer.sign(payload)
    if (index == 0 and not user.by_token) or (index > 0 and rng.random() < receipt_share):
        stub.SubmitReceipt(ent.SubmitReceiptRequest(user_id=user.name, signed_transaction=jws), timeout=timeout)
        return
    body = json.dumps({"signedPayload": signer.sign(notification(
        "SUBSCRIBED" if index == 0 else "DID_RENEW", signed=payload["signedDate"] + 500, signed_transaction=jws,
        signed_renewal=signer.sign(renewal(user.chain, signed=payload["signedDate"]))))}).encode()
    for _ in range(2 if rng.random() < redelivery_share else 1):
        request = urllib.request.Request(webhook_url, data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            response.read()


def load(address, port, model, signer, rng, stop, touched, failures):
    """One worker: new purchases, renewals (by notification or SubmitReceipt) and reads."""
    import entitlement_pb2 as ent
    import entitlement_pb2_grpc as ent_grpc
    channel = grpc.insecure_channel(address)
    stub = ent_grpc.EntitlementServiceStub(channel)
    url = f"http://127.0.0.1:{port}/apple/notifications"
    try:
        while not stop.is_set():
            roll = rng.random()
            with model.lock:
                known = rng.choice(model.acked_users) if model.acked_users else None
            if 0.75 <= roll < 0.8 and known is not None and known.by_token:
                # Another account claims the token user's purchase with its signed transaction.
                try:
                    stub.SubmitReceipt(ent.SubmitReceiptRequest(
                        user_id=known.thief, signed_transaction=signer.sign(known.payload(0))), timeout=5)
                    failures.append(f"{known.thief} took {known.name}'s purchase bought with their token")
                except grpc.RpcError as error:
                    if error.code() != grpc.StatusCode.PERMISSION_DENIED:
                        return expect_cut_off(error, failures)
                continue
            if roll >= 0.8 and known is not None:
                with model.lock:
                    floor = max(known.sent[t] for t in known.acked)
                try:
                    reply = stub.CheckEntitlement(ent.CheckEntitlementRequest(user_id=known.name), timeout=5)
                except grpc.RpcError as error:
                    return expect_cut_off(error, failures)
                if not reply.entitlements or reply.entitlements[0].expires_at_ms < floor:
                    failures.append(f"read of {known.name} missed an acknowledged write: {reply}")
                continue
            write = model.next_write(None if roll < 0.4 else known, by_token=roll < 0.15)
            if write is None:
                continue
            user, index = write
            with model.lock:
                touched.add(user.name)
            try:
                send_write(stub, ent, url, signer, model, user, index, rng, receipt_share=0.25, redelivery_share=0.2)
            except grpc.RpcError as error:
                return expect_cut_off(error, failures)  # this write is "maybe"
            except urllib.error.HTTPError as error:
                failures.append(f"webhook answered {error.code} for {user.name}/{index}: {error.read()[:200]}")
                return
            except OSError:
                return  # killed mid-post: this write is "maybe"
            model.acknowledge(user, index)
    finally:
        channel.close()


def expect_cut_off(error, failures):
    """An RPC failure is expected only as the kill's doing, never as a refusal."""
    if error.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED,
                            grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNKNOWN):
        failures.append(f"RPC refused: {error.code()} {error.details()}")


def verify(stub, ent, model, names, context):
    """Checks each named user against the model; settles "maybe" writes either way."""
    by_name = {u.name: u for u in model.users}
    kinds = {ent.EVENT_TYPE_PURCHASE, ent.EVENT_TYPE_RENEWAL}
    for name in sorted(names):
        user = by_name[name]
        events = list(stub.ListHistory(ent.ListHistoryRequest(user_id=name, page_size=500), timeout=10).events)
        ids = [e.event_id for e in events]
        assert len(ids) == len(set(ids)), f"{context}: {name}: duplicate events {ids}"
        stored = [e.transaction_id for e in events if e.type in kinds]
        assert len(stored) == len(set(stored)), f"{context}: {name}: a transaction recorded twice {stored}"
        phantom = set(stored) - set(user.sent)
        assert not phantom, f"{context}: {name}: transactions never sent (or once lost) appeared: {phantom}"
        lost = user.acked - set(stored)
        assert not lost, f"{context}: {name}: acknowledged transactions lost: {lost}"
        for tid in set(user.sent) - set(stored):
            del user.sent[tid]  # an unacknowledged write the kill cut off: it must never appear later
        user.acked |= set(stored)
        if user.by_token:
            thief = stub.CheckEntitlement(ent.CheckEntitlementRequest(user_id=user.thief), timeout=10)
            assert not thief.entitlements, f"{context}: {user.thief} owns {name}'s purchase: {thief}"
            token = stub.GetAppAccountToken(ent.GetAppAccountTokenRequest(user_id=name), timeout=10)
            if user.token is not None:
                assert token.app_account_token == user.token, f"{context}: {name}: the token changed"
        reply = stub.CheckEntitlement(ent.CheckEntitlementRequest(user_id=name), timeout=10)
        if not stored:
            assert not any(e.active for e in reply.entitlements), f"{context}: {name}: entitled with no history"
            continue
        latest = max(stored, key=lambda t: user.sent[t])
        assert len(reply.entitlements) == 1, f"{context}: {name}: {reply}"
        e = reply.entitlements[0]
        assert e.active and e.latest_transaction_id == latest and e.expires_at_ms == user.sent[latest], \
            f"{context}: {name}: state disagrees with history (latest {latest}): {e}"


def integrity_check(path):
    with sqlite3.connect(path) as conn:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]


@pytest.fixture(scope="module")
def fast_signer(tmp_path_factory):
    if not shutil.which("openssl"):
        pytest.skip("the openssl CLI is needed to generate the test PKI")
    pytest.importorskip("cryptography", reason="Scripts/test installs cryptography into the venv")
    return FastSigner(PKI(tmp_path_factory.mktemp("pki"), "Test"))


def test_crash_loop(pb, server, tmp_path, fast_signer):
    seed = int(os.environ.get("CRASH_LOOP_SEED") or random.SystemRandom().randrange(1, 1 << 31))
    print(f"crash loop: seed {seed}, {ITERATIONS} iterations (rerun with CRASH_LOOP_SEED={seed})")
    rng = random.Random(seed)
    model = Model(seed)
    db = tmp_path / "loop.sqlite"
    flags = ("--database", db, "--apple-root-ca", fast_signer.pki.root_pem_path, "--log-level", "warning")
    touched, failures, started = set(), [], time.monotonic()
    for iteration in range(ITERATIONS):
        context = f"seed {seed}, iteration {iteration}"
        victim = server(*flags)
        victim.check_exit_code = False
        stub = pb.ent_grpc.EntitlementServiceStub(victim.channel())
        verify(stub, pb.ent, model, touched, f"{context} (after restart)")
        touched = set()
        stop = threading.Event()
        workers = [threading.Thread(target=load, args=(victim.address, victim.port, model, fast_signer,
                                                       random.Random(rng.random()), stop, touched, failures))
                   for _ in range(6)]
        for w in workers:
            w.start()
        time.sleep(rng.uniform(0.05, 0.6))
        victim.kill()  # SIGKILL, wherever the writer is
        stop.set()
        for w in workers:
            w.join(timeout=20)
        assert not failures, f"{context}: {failures[:3]}"
        assert integrity_check(db) == "ok", f"{context}: integrity_check failed"
    survivor = server(*flags)
    verify(pb.ent_grpc.EntitlementServiceStub(survivor.channel()), pb.ent, model,
           {u.name for u in model.users}, f"seed {seed}, final pass over every user")
    acked = sum(len(u.acked) for u in model.users)
    bound = sum(1 for u in model.users if u.by_token and u.acked)
    print(f"crash loop: {ITERATIONS} kills, {len(model.users)} users ({bound} bound by app account token), "
          f"{acked} transactions stored, {time.monotonic() - started:.0f}s")
    assert bound > ITERATIONS, f"seed {seed}: too few purchases were bound by token to mean anything ({bound})"
    assert acked > 10 * ITERATIONS, f"seed {seed}: the load produced too few writes to mean anything ({acked})"
