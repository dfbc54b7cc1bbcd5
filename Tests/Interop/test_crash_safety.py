"""SIGKILL in the middle of a write load: every acknowledged write survives, and the database
passes PRAGMA integrity_check. Acknowledgement means durable (WAL, synchronous=FULL)."""
import json
import sqlite3
import threading
import time

import grpc
import pytest

DAY = 86_400_000


@pytest.mark.single_process(
    "SIGKILLs the server and checks its SQLite file (test_cluster.py kills replicas under load)")
def test_acknowledged_writes_survive_sigkill(pb, server, tmp_path):
    db = tmp_path / "crash.sqlite"
    victim = server("--database", db)
    victim.check_exit_code = False
    now = int(time.time() * 1000)
    acknowledged, lock, stop = [], threading.Lock(), threading.Event()

    def writer(worker: int):
        ch = grpc.insecure_channel(victim.address)
        stub = pb.testing_grpc.TestingStub(ch)
        i = 0
        while not stop.is_set():
            user = f"crash-{worker}-{i}"
            tid = str(10_000_000 + worker * 100_000 + i)
            facts = {"transactions": [{"transaction_id": tid, "original_transaction_id": tid,
                                       "product_id": "pro.monthly", "purchase_date_ms": now,
                                       "expires_date_ms": now + 30 * DAY}]}
            try:
                stub.Seed(pb.testing.SeedRequest(user_id=user, facts_json=json.dumps(facts)), timeout=5)
            except grpc.RpcError:
                break  # the server died mid-call: not acknowledged
            with lock:
                acknowledged.append((user, tid))
            i += 1
        ch.close()

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(16)]
    for t in threads:
        t.start()
    time.sleep(1.5)
    victim.kill()  # SIGKILL while writes are in flight
    stop.set()
    for t in threads:
        t.join(timeout=10)
    assert len(acknowledged) > 100, f"the load produced too few writes to mean anything ({len(acknowledged)})"

    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    survivor = server("--database", db)
    stub = pb.ent_grpc.EntitlementServiceStub(survivor.channel())
    missing = []
    for user, tid in acknowledged:
        reply = stub.CheckEntitlement(pb.ent.CheckEntitlementRequest(user_id=user), timeout=10)
        if not (reply.active and reply.entitlements[0].latest_transaction_id == tid):
            missing.append((user, tid))
    assert not missing, f"{len(missing)} of {len(acknowledged)} acknowledged writes lost, e.g. {missing[:5]}"
