"""Cross-replica guarantees of the PostgreSQL backend (issue 13), with real PostgreSQL, haproxy
and entitlementd replicas (the cluster stage: ENTITLEMENTD_CLUSTER=N, cluster.py):

- a write on replica A is read on replica B within 1 s, B having the old answer cached (the
  LISTEN/NOTIFY invalidation), and a watcher on B gets a change written on A;
- the same receipt (verifyReceipt, and a StoreKit 2 signed transaction) submitted at once to A
  and B records once; the same notification posted at once to A and B applies once;
- kill -9 of the singleton-lease holder: another replica takes the lease within seconds, and
  the singleton work (webhook delivery) goes on there;
- replicas restarted under load through haproxy (SIGTERM, then SIGKILL) lose no acknowledged write.

What was stored is read back through the API and counted in the database itself (psql).
"""
import concurrent.futures
import json
import random
import shutil
import threading
import time
import urllib.request
from signal import SIGKILL, SIGTERM

import pytest

from apple_pki import DAY_MS, PKI, Signer, notification, now_ms, renewal, transaction
from cluster import lease_held
from cluster_load import Outcomes, drive, requests_served
from fake_apple import FakeApple
from fast_signer import FastSigner
from test_crash_loop import Model, verify
from webhook_receiver import Receiver

pytestmark = [pytest.mark.cluster_only, pytest.mark.replicas]

NOTIFICATIONS = "/apple/notifications"
READ_WITHIN_S = 1.0     # the bound for another replica to see a write
LEASE_HANDOVER_S = 15.0  # "within seconds": the lease is retried every second; generous for a loaded box
WEBHOOK_SECRET = "whsec-cluster-3f9a"


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    if not shutil.which("openssl"):
        pytest.skip("the openssl CLI is needed to generate the test PKI")
    return PKI(tmp_path_factory.mktemp("pki"), "Test")


@pytest.fixture(scope="module")
def signer(pki):
    return Signer(pki)


@pytest.fixture(scope="module")
def fast_signer(pki):
    pytest.importorskip("cryptography", reason="Scripts/test installs cryptography into the venv")
    return FastSigner(pki)


@pytest.fixture
def apple():
    fake = FakeApple()
    yield fake
    fake.close()


class Replica:
    """Direct gRPC and webhook access to one replica, bypassing haproxy."""

    def __init__(self, pb, server, index):
        self.pb, self.server, self.index = pb, server, index
        self.stub = pb.ent_grpc.EntitlementServiceStub(server.channel())
        self.stub.CheckEntitlement(pb.ent.CheckEntitlementRequest(user_id="warm-up"), timeout=10)

    def check(self, user):
        return self.stub.CheckEntitlement(self.pb.ent.CheckEntitlementRequest(user_id=user), timeout=10)

    def latest(self, user):
        """The latest transaction id of the user's one entitlement, or None."""
        reply = self.check(user)
        return reply.entitlements[0].latest_transaction_id if reply.entitlements else None

    def submit(self, user, receipt_data="", signed=""):
        return self.stub.SubmitReceipt(self.pb.ent.SubmitReceiptRequest(
            user_id=user, receipt_data=receipt_data, signed_transaction=signed), timeout=30)

    def history(self, user):
        return list(self.stub.ListHistory(self.pb.ent.ListHistoryRequest(user_id=user, page_size=500),
                                          timeout=10).events)

    def post(self, body: bytes) -> int:
        request = urllib.request.Request(f"http://{self.server.address}{NOTIFICATIONS}", data=body,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
            return response.status


def at_once(*calls):
    """Runs the calls on their own threads released together; returns their results in order."""
    barrier = threading.Barrier(len(calls))

    def run(call):
        barrier.wait()
        return call()

    with concurrent.futures.ThreadPoolExecutor(len(calls)) as pool:
        return [f.result() for f in [pool.submit(run, c) for c in calls]]


def count(postgres, cluster, sql):
    return postgres.scalar(sql, cluster.database_name)


def user_rows(postgres, cluster, table, user):
    return count(postgres, cluster, f"SELECT count(*) FROM {table} t JOIN users u ON u.id = t.user_rowid "
                                     f"WHERE u.user_id = '{user}'")


class Chain:
    """One subscription chain: a purchase a month ago and renewals after it, each signed."""
    _next = iter(range(1, 1_000_000))

    def __init__(self, signer):
        self.signer = signer
        self.id = str(4_000_000_000_000_000 + next(self._next) * 1000)
        self.base = now_ms() - 29 * DAY_MS

    def tid(self, index):
        return str(int(self.id) + index)

    def payload(self, index):
        purchase = self.base + index * DAY_MS
        return transaction(self.tid(index), self.id, purchase=purchase, expires=self.base + (30 + index) * DAY_MS,
                           signed=purchase + 1000, original_purchase=self.base)

    def signed(self, index):
        return self.signer.sign(self.payload(index))

    def did_renew(self, index) -> bytes:
        tx = self.payload(index)
        return json.dumps({"signedPayload": self.signer.sign(notification(
            "DID_RENEW", signed=tx["signedDate"] + 500, signed_transaction=self.signer.sign(tx),
            signed_renewal=self.signer.sign(renewal(self.id, signed=tx["signedDate"]))))}).encode()


def wait_until(condition, timeout):
    """Seconds until condition() held, polling every 2 ms; None when it did not within timeout."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if condition():
            return time.monotonic() - start
        time.sleep(0.002)
    return None


def test_a_write_on_one_replica_is_read_on_another_within_a_second(pb, server, pki, signer):
    c = server("--apple-root-ca", pki.root_pem_path, replicas=2)
    a, b = Replica(pb, c.replicas[0], 0), Replica(pb, c.replicas[1], 1)
    delays = []
    for round_ in range(10):
        for writer, reader in ((a, b), (b, a)):
            user, chain = f"rw-{round_}-{writer.index}", Chain(signer)
            assert reader.latest(user) is None  # the reader has now answered "nothing" for the user
            for index in range(3):  # the purchase, then renewals: each replaces what the reader cached
                writer.submit(user, signed=chain.signed(index))
                delay = wait_until(lambda: reader.latest(user) == chain.tid(index), READ_WITHIN_S)
                assert delay is not None, \
                    f"replica {reader.index} still answered {reader.check(user)} {READ_WITHIN_S}s after " \
                    f"replica {writer.index} recorded {chain.tid(index)} for {user}"
                delays.append(delay)
                assert reader.latest(user) == chain.tid(index), "a later read went back to the old answer"
    delays.sort()
    print(f"cross-replica read delay over {len(delays)} writes: p50 {delays[len(delays) // 2] * 1000:.1f} ms, "
          f"max {delays[-1] * 1000:.1f} ms")


def test_a_watcher_on_one_replica_gets_changes_written_on_another(pb, server, pki, signer):
    c = server("--apple-root-ca", pki.root_pem_path, replicas=2)
    a, b = Replica(pb, c.replicas[0], 0), Replica(pb, c.replicas[1], 1)
    user, chain = "watched", Chain(signer)
    stream = b.stub.WatchEntitlementChanges(pb.ent.WatchEntitlementChangesRequest(user_id=user), timeout=60)
    time.sleep(0.5)  # the stream is registered before the write ("only changes committed from now on")
    written = time.monotonic()
    a.submit(user, signed=chain.signed(0))
    change = next(stream)
    delay = time.monotonic() - written
    stream.cancel()
    assert change.user_id == user and change.entitlement.original_transaction_id == chain.id
    assert change.previous_state == pb.ent.ENTITLEMENT_STATE_UNSPECIFIED
    assert delay < READ_WITHIN_S, f"the change written on replica 0 reached a watcher on replica 1 after {delay:.3f}s"


def test_the_same_receipt_submitted_at_once_to_two_replicas_records_once(pb, server, cluster_postgres, apple,
                                                                          pki, signer):
    c = server(*apple.flags(), "--apple-root-ca", pki.root_pem_path, replicas=2)
    a, b = Replica(pb, c.replicas[0], 0), Replica(pb, c.replicas[1], 1)
    # What one submission records, the measure for two at once.
    expected = a.submit("reference", apple.receipt("production")).new_transactions
    assert expected == 2, "the fake's production receipt holds two transactions"
    changes = user_rows(cluster_postgres, c, "entitlement_changes", "reference")
    assert user_rows(cluster_postgres, c, "history_events", "reference") == expected and changes >= 1
    for round_ in range(10):
        user, data = f"receipt-{round_}", apple.receipt("production")
        replies = at_once(lambda: a.submit(user, data), lambda: b.submit(user, data))
        assert sum(r.new_transactions for r in replies) == expected, \
            f"round {round_}: both replicas counted the receipt's transactions as new: {replies}"
        assert replies[0].entitlements == replies[1].entitlements
        events = a.history(user)
        assert len(events) == expected and len({e.transaction_id for e in events}) == expected, events
        assert user_rows(cluster_postgres, c, "history_events", user) == expected
        assert user_rows(cluster_postgres, c, "entitlement_changes", user) == changes

        user, chain = f"signed-{round_}", Chain(signer)
        jws = chain.signed(0)
        replies = at_once(lambda: a.submit(user, signed=jws), lambda: b.submit(user, signed=jws))
        assert sorted(r.new_transactions for r in replies) == [0, 1], f"round {round_}: {replies}"
        assert [e.transaction_id for e in b.history(user)] == [chain.tid(0)]
        assert user_rows(cluster_postgres, c, "history_events", user) == 1
        assert user_rows(cluster_postgres, c, "entitlement_changes", user) == 1, "one purchase, one change"
        assert count(cluster_postgres, c,
                     f"SELECT count(*) FROM transactions WHERE transaction_id = '{chain.tid(0)}'") == 1


def test_the_same_notification_posted_at_once_to_two_replicas_applies_once(pb, server, cluster_postgres, pki,
                                                                            signer):
    c = server("--apple-root-ca", pki.root_pem_path, replicas=2)
    a, b = Replica(pb, c.replicas[0], 0), Replica(pb, c.replicas[1], 1)
    for round_ in range(10):
        user, chain = f"notified-{round_}", Chain(signer)
        a.submit(user, signed=chain.signed(0))
        body = chain.did_renew(1)
        assert at_once(lambda: a.post(body), lambda: b.post(body)) == [200, 200]
        for replica in (a, b):
            renewals = [e for e in replica.history(user) if e.transaction_id == chain.tid(1)]
            assert len(renewals) == 1 and renewals[0].type == pb.ent.EVENT_TYPE_RENEWAL, \
                f"round {round_}: replica {replica.index} lists {renewals}"
        assert user_rows(cluster_postgres, c, "history_events", user) == 2, "the purchase and one renewal"
        assert count(cluster_postgres, c,
                     f"SELECT count(*) FROM transactions WHERE transaction_id = '{chain.tid(1)}'") == 1
        assert wait_until(lambda: a.latest(user) == chain.tid(1) and b.latest(user) == chain.tid(1), READ_WITHIN_S)


def seed_purchase(pb, channel, user, tid):
    now = now_ms()
    t = {"transaction_id": tid, "original_transaction_id": tid, "product_id": "pro.monthly",
         "purchase_date_ms": now - DAY_MS, "expires_date_ms": now + 30 * DAY_MS}
    pb.testing_grpc.TestingStub(channel).Seed(
        pb.testing.SeedRequest(user_id=user, facts_json=json.dumps({"transactions": [t]})), timeout=10)


def delivered_to(receiver, user, timeout=30.0):
    return wait_until(lambda: any(a.body and a.body.get("userId") == user for a in receiver.accepted()), timeout)


def test_kill_9_of_the_lease_holder_hands_the_lease_over(pb, server):
    receiver = Receiver(WEBHOOK_SECRET.encode())
    try:
        c = server("--webhook-url", receiver.url, "--webhook-secret", WEBHOOK_SECRET, replicas=3)

        def holders():
            return [i for i, r in enumerate(c.replicas) if r.proc.poll() is None and lease_held(r.address) == 1]

        assert holders() == [0], "replica 0 took the lease before the others started; nobody else holds it"
        channel = c.channel()
        seed_purchase(pb, channel, "before-kill", "51000001")
        assert delivered_to(receiver, "before-kill") is not None, "the holder delivers webhooks"

        c.replicas[0].kill()  # SIGKILL: no chance to release anything
        handover = wait_until(lambda: len(holders()) == 1, LEASE_HANDOVER_S)
        assert handover is not None, f"no replica took the lease within {LEASE_HANDOVER_S}s of the holder's " \
                                     f"kill -9: {[lease_held(r.address) for r in c.replicas[1:]]}"
        [holder] = holders()
        print(f"lease handed over {handover:.2f}s after kill -9 of the holder, to replica {holder}")
        assert "singleton lease acquired" in c.replicas[holder].stderr(), "the new holder logs that it took the lease"

        seed_purchase(pb, channel, "after-kill", "51000002")  # through haproxy, to a live replica
        assert delivered_to(receiver, "after-kill") is not None, "webhook delivery goes on on the new holder"

        c.restart_replica(0, SIGKILL)  # the old holder comes back: it must not take the lease back
        time.sleep(2.5)
        assert holders() == [holder], "exactly one holder, the one that took over"
    finally:
        receiver.stop()


def test_replicas_restarted_under_load_lose_no_acknowledged_write(pb, server, cluster_postgres, fast_signer):
    seed = random.SystemRandom().randrange(1, 1 << 31)
    print(f"restart under load: seed {seed}")
    c = server("--apple-root-ca", fast_signer.pki.root_pem_path, "--log-level", "warning", replicas=3,
               spread=True)  # the load reaches every replica, so each restart cuts into live traffic
    model, outcomes, stop = Model(seed), Outcomes(), threading.Event()
    rng = random.Random(seed)
    workers = [threading.Thread(target=drive, args=(c.address, model, fast_signer, random.Random(rng.random()),
                                                    stop, outcomes)) for _ in range(4)]
    for w in workers:
        w.start()
    marks = []
    try:
        time.sleep(1.5)
        marks.append(time.monotonic())
        c.restart_replica(1, SIGTERM)  # drained: it must exit 0 with the load running
        time.sleep(2.0)
        marks.append(time.monotonic())
        c.restart_replica(2, SIGKILL)
        time.sleep(2.0)
        marks.append(time.monotonic())
        time.sleep(1.0)
    finally:
        stop.set()
        for w in workers:
            w.join(timeout=30)
    assert not outcomes.failures, f"seed {seed}: writes refused: {outcomes.failures[:5]}"
    phases = outcomes.per_phase(marks)
    print(f"(acknowledged, cut off) before the restarts, after the SIGTERM restart, after the SIGKILL restart, "
          f"at the end: {phases}")
    assert all(acked > 0 for acked, _ in phases), f"seed {seed}: the load stalled in a phase: {phases}"
    # A drained replica refuses new connections and finishes what it took: haproxy marks it down at
    # the first refused connection and sends the request elsewhere, so no client sees an error.
    assert not phases[1][1], f"seed {seed}: the SIGTERM restart cut writes off: {phases[1][1]}"
    for index in (1, 2):
        assert requests_served(c.replicas[index].address) > 0, f"restarted replica {index} got no traffic back"

    time.sleep(READ_WITHIN_S)  # every replica has seen the last writes
    stub = pb.ent_grpc.EntitlementServiceStub(c.channel())
    verify(stub, pb.ent, model, {u.name for u in model.users}, f"seed {seed}")
    acked = sum(len(u.acked) for u in model.users)
    stored = count(cluster_postgres, c, "SELECT count(*) FROM transactions")
    assert stored >= acked, f"seed {seed}: {acked} acknowledged transactions, {stored} in the database"


def test_an_app_account_token_is_one_per_user_on_every_replica_and_after_restarts(pb, server):
    """Both replicas asked at once for users new to both: one token per user, the same from
    either; after every replica restarts on the database, still the same."""
    c = server("--database", "identity-db", replicas=2)
    stubs = [pb.ent_grpc.EntitlementServiceStub(r.channel()) for r in c.replicas]

    def ask(which, user):
        return stubs[which].GetAppAccountToken(pb.ent.GetAppAccountTokenRequest(user_id=user),
                                               timeout=10).app_account_token

    users = [f"token-{i}" for i in range(40)]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        futures = [(pool.submit(ask, 0, u), pool.submit(ask, 1, u)) for u in users]
        first = [a.result() for a, _ in futures]
        second = [b.result() for _, b in futures]
    assert first == second, "one token per user, whichever replica issued it"
    assert len(set(first)) == len(users)
    assert c.stop() == 0
    again = server("--database", "identity-db", replicas=2)
    stub = pb.ent_grpc.EntitlementServiceStub(again.replicas[1].channel())
    assert [stub.GetAppAccountToken(pb.ent.GetAppAccountTokenRequest(user_id=u), timeout=10).app_account_token
            for u in users] == first
