"""PostgreSQL faults under write load, on a private PostgreSQL server each test owns (started by
Scripts/lib/postgres.sh, so stopping or freezing it disturbs no other test):

- PostgreSQL restarted while two replicas take writes: no acknowledged write lost, no event
  recorded twice, both replicas ready again within 5 s of PostgreSQL;
- a replica killed -9 mid-batch while the other goes on: the same, once it is started again;
- PostgreSQL frozen (SIGSTOP on every one of its processes) for longer than the callers'
  deadline: the callers get DEADLINE_EXCEEDED or UNAVAILABLE, nothing is half-written, and
  writes succeed again once it runs.

The load is test_cluster's: purchases by SubmitReceipt and renewals by SubmitReceipt or V2
notification, with test_crash_loop's model of what was sent and acknowledged, checked through
the API afterwards (`verify`: every acknowledged transaction there, none twice, no phantom)."""
import random
import subprocess
import threading
import time
import urllib.error
import urllib.request

import grpc
import pytest

from cluster_load import Outcomes, drive
from postgres_server import PrivatePostgres
from test_crash_loop import Model, fast_signer, verify  # noqa: F401 (fast_signer: a fixture)

READY_WITHIN_S = 5.0


@pytest.fixture
def private_postgres():
    server = PrivatePostgres()
    yield server
    server.close()


def readyz(address):
    try:
        with urllib.request.urlopen(f"http://{address}/readyz", timeout=2) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


def seconds_until_ready(replicas, timeout=30.0):
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if all(readyz(r.address) == 200 for r in replicas):
            return time.monotonic() - started
        time.sleep(0.05)
    return None


class Load:
    """Two clients per replica writing until stopped."""

    def __init__(self, replicas, signer, seed):
        self.model, self.outcomes, self.stop_event = Model(seed), Outcomes(), threading.Event()
        rng = random.Random(seed)
        self.workers = [threading.Thread(target=drive, args=(r.address, self.model, signer,
                                                             random.Random(rng.random()), self.stop_event,
                                                             self.outcomes))
                        for r in replicas for _ in range(2)]
        for worker in self.workers:
            worker.start()

    def acknowledged(self):
        with self.outcomes.lock:
            return len(self.outcomes.acked_at)

    def wait_for_acknowledgements(self, count, timeout=60.0):
        target = self.acknowledged() + count
        started = time.monotonic()
        while self.acknowledged() < target:
            assert time.monotonic() - started < timeout, f"the load stalled: {self.outcomes.cut_off_at[-5:]}"
            time.sleep(0.02)

    def stop(self):
        self.stop_event.set()
        for worker in self.workers:
            worker.join(timeout=60)

    def verify(self, pb, replica, context):
        assert not self.outcomes.failures, f"{context}: writes refused, not cut off: {self.outcomes.failures[:5]}"
        stub = pb.ent_grpc.EntitlementServiceStub(replica.channel())
        verify(stub, pb.ent, self.model, {u.name for u in self.model.users}, context)
        return sum(len(u.acked) for u in self.model.users)


def start_replicas(server, url, signer, count=2):
    return [server("--database", url, "--apple-root-ca", signer.pki.root_pem_path, "--log-level", "warning")
            for _ in range(count)]


@pytest.mark.single_process("starts two replicas on a PostgreSQL server of its own")
def test_postgresql_restarted_under_write_load_loses_no_acknowledged_write(pb, server, private_postgres,
                                                                           fast_signer):
    seed = random.SystemRandom().randrange(1, 1 << 31)
    replicas = start_replicas(server, private_postgres.start(), fast_signer)
    load = Load(replicas, fast_signer, seed)
    try:
        load.wait_for_acknowledgements(30)
        before = load.acknowledged()
        private_postgres.run("stop")
        time.sleep(1.0)
        private_postgres.start()
        ready_after = seconds_until_ready(replicas)
        load.wait_for_acknowledgements(30)
    finally:
        load.stop()
    cut = dict(__import__("collections").Counter(what for _, what in load.outcomes.cut_off_at))
    print(f"PostgreSQL restart (seed {seed}): {before} writes acknowledged before, {load.acknowledged()} in all; "
          f"cut off: {cut}; both replicas ready {ready_after:.2f} s after PostgreSQL")
    assert ready_after is not None and ready_after <= READY_WITHIN_S, f"ready after {ready_after} s"
    acked = load.verify(pb, replicas[0], f"seed {seed}")
    assert acked >= load.acknowledged()
    for replica in replicas:
        assert replica.stop() == 0, replica.stderr()[-2000:]


@pytest.mark.single_process("starts two replicas on a PostgreSQL server of its own")
def test_a_replica_killed_mid_batch_loses_no_acknowledged_write(pb, server, private_postgres, fast_signer):
    seed = random.SystemRandom().randrange(1, 1 << 31)
    url = private_postgres.start()
    replicas = start_replicas(server, url, fast_signer)
    load = Load(replicas, fast_signer, seed)
    try:
        load.wait_for_acknowledgements(40)
        replicas[1].kill()  # with four clients writing, its writer is inside a batch
        load.wait_for_acknowledgements(20)
    finally:
        load.stop()
    restarted = start_replicas(server, url, fast_signer, count=1)[0]
    assert seconds_until_ready([restarted]) is not None
    acked = load.verify(pb, restarted, f"seed {seed}")
    print(f"replica killed -9 (seed {seed}): {acked} transactions acknowledged or settled, all there, none twice")
    replicas[1].check_exit_code = False
    for replica in (replicas[0], restarted):
        assert replica.stop() == 0, replica.stderr()[-2000:]


@pytest.mark.single_process("freezes a PostgreSQL server of its own")
def test_a_frozen_postgresql_fails_calls_at_their_deadline_and_half_writes_nothing(pb, server, private_postgres,
                                                                                    fast_signer):
    seed = random.SystemRandom().randrange(1, 1 << 31)
    replicas = start_replicas(server, private_postgres.start(), fast_signer, count=1)
    stub = pb.ent_grpc.EntitlementServiceStub(replicas[0].channel())
    load = Load(replicas, fast_signer, seed)
    frozen = private_postgres.pids()
    codes = []
    try:
        load.wait_for_acknowledgements(20)
        for pid in frozen:
            subprocess.run(["kill", "-STOP", str(pid)])
        try:
            for n in range(3):
                started = time.monotonic()
                with pytest.raises(grpc.RpcError) as stalled:
                    stub.GrantEntitlement(pb.ent.GrantEntitlementRequest(
                        user_id=f"frozen-{n}", entitlement_id="pro", expires_at_ms=int(time.time() * 1000) + 86_400_000,
                        reason="during the freeze", idempotency_key=f"frozen-{n}"), timeout=1.0)
                codes.append((stalled.value.code(), round(time.monotonic() - started, 2)))
        finally:
            for pid in frozen:
                subprocess.run(["kill", "-CONT", str(pid)])
        assert seconds_until_ready(replicas) is not None
        load.wait_for_acknowledgements(20)
    finally:
        load.stop()
    print(f"PostgreSQL frozen (seed {seed}): calls with a 1 s deadline ended {codes}")
    assert all(code in (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE) for code, _ in codes), codes
    load.verify(pb, replicas[0], f"seed {seed}")
    # A grant cut off by the freeze was either made whole or not at all: asked again with its
    # key, it exists once.
    for n in range(3):
        again = stub.GrantEntitlement(pb.ent.GrantEntitlementRequest(
            user_id=f"frozen-{n}", entitlement_id="pro", expires_at_ms=int(time.time() * 1000) + 86_400_000,
            reason="after the freeze", idempotency_key=f"frozen-{n}"), timeout=10)
        listed = stub.CheckEntitlement(pb.ent.CheckEntitlementRequest(user_id=f"frozen-{n}"), timeout=10)
        grants = [e for e in listed.entitlements if e.grant_id]
        assert [e.grant_id for e in grants] == [again.grant_id], listed
    assert replicas[0].stop() == 0, replicas[0].stderr()[-2000:]
