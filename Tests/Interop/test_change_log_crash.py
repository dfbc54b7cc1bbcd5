"""SIGKILL in the middle of a write load: the change log holds exactly one change for every fact
that caused one and none for a fact that was not stored, because each change commits in the
same transaction as its fact (issue 12: a crash never loses or invents a change)."""
import json
import sqlite3
import threading
import time

import grpc
import pytest

DAY = 86_400_000


@pytest.mark.single_process("SIGKILLs the server and reads the change log in its SQLite file")
def test_a_crash_neither_loses_nor_invents_a_change(pb, server, tmp_path):
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
            user, tid = f"crash-{worker}-{i}", str(20_000_000 + worker * 100_000 + i)
            facts = {"transactions": [{"transaction_id": tid, "original_transaction_id": tid,
                                       "product_id": "pro.monthly", "purchase_date_ms": now,
                                       "expires_date_ms": now + 30 * DAY}]}
            try:
                stub.Seed(pb.testing.SeedRequest(user_id=user, facts_json=json.dumps(facts)), timeout=5)
            except grpc.RpcError:
                break  # the server died mid-call: not acknowledged
            with lock:
                acknowledged.append(user)
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
        changes = conn.execute("""
            SELECT c.sequence, u.user_id, c.state, c.previous_state, c.original_transaction_id
            FROM entitlement_changes c JOIN users u ON u.id = c.user_rowid ORDER BY c.sequence""").fetchall()
        # chains keep a decimal id as an INTEGER (migration chains_decimal_ids): its text is the id.
        stored = {user: chain for user, chain in conn.execute("""
            SELECT u.user_id, CAST(c.original_transaction_id AS TEXT)
            FROM chains c JOIN users u ON u.id = c.user_rowid""")}

    sequences = [row[0] for row in changes]
    assert sequences == list(range(1, len(changes) + 1)), "one unbroken sequence"
    by_user = {}
    for _, user, state, previous, chain in changes:
        assert (state, previous) == ("active", None), (user, state, previous)
        by_user.setdefault(user, []).append(chain)
    lost = [user for user in acknowledged if by_user.get(user) != [stored.get(user)]]
    assert not lost, f"{len(lost)} of {len(acknowledged)} acknowledged purchases have no single change, e.g. {lost[:5]}"
    invented = [user for user in by_user if stored.get(user) is None]
    assert not invented, f"changes for facts that were never stored: {invented[:5]}"
    assert set(by_user) == set(stored), "every stored purchase has its change, and only those"
