"""A write load killed mid-flight: the crash tests' shared first half (test_crash_safety.py,
test_change_log_crash.py)."""
import json
import threading
import time

import grpc

DAY = 86_400_000


def seed_until_killed(pb, victim, tid_base: int, enough: int = 150, writers: int = 16) -> list:
    """Seeds one purchase per new user from `writers` threads until `enough` are acknowledged,
    then SIGKILLs `victim` while the rest are in flight; returns the acknowledged (user, tid).

    Killed on a count, not after a fixed time: on a loaded machine 1.5 s once gave 32 writes."""
    now = int(time.time() * 1000)
    acknowledged, lock, stop = [], threading.Lock(), threading.Event()

    def writer(worker: int):
        ch = grpc.insecure_channel(victim.address)
        stub = pb.testing_grpc.TestingStub(ch)
        i = 0
        while not stop.is_set():
            user, tid = f"crash-{worker}-{i}", str(tid_base + worker * 100_000 + i)
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

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with lock:
            if len(acknowledged) >= enough:
                break
        time.sleep(0.02)
    victim.kill()  # SIGKILL while writes are in flight
    stop.set()
    for t in threads:
        t.join(timeout=10)
    assert len(acknowledged) >= enough, f"the load produced too few writes to mean anything ({len(acknowledged)})"
    return acknowledged
