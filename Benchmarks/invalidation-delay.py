"""Cross-replica invalidation delay: how long after replica A acknowledges a write does replica
B answer from it? Prints p50/p99/max over N trials. A benchmark, not a test.

    invalidation-delay.py A_HOST:PORT B_HOST:PORT STUBS_DIR [--trials 200] [--token T]

Needs replicas sharing one PostgreSQL database with --transfer-policy transfer (the default),
Apple played by `apple-fake --distinct` (each receipt gets its own transactions;
Benchmarks/cluster.sh starts all of it). Per trial, a new receipt and two new users X and Y:
  1. SubmitReceipt(X, receipt) on A, then CheckEntitlement(X) on B until it shows X's
     entitlements: B has now read X and holds X's facts in its cache;
  2. SubmitReceipt(Y, the same receipt) on A: the chain moves from X to Y. From the moment A
     answers, call CheckEntitlement(X) on B back to back until its answer changes. That time
     is the delay: B's cached facts for X were stale until its listener received A's NOTIFY
     (which names both users) and dropped them.
The resolution is one CheckEntitlement round trip (printed). The checks ask at a fixed instant
(at_ms), so an answer changes only when the facts do.
"""
import argparse
import base64
import os
import statistics
import struct
import sys
import time
from pathlib import Path

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_protos  # noqa: E402

GIVE_UP_S = 10.0


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("stubs", type=Path)
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--token", default="")
    args = parser.parse_args()
    pb = bench_protos.load(args.stubs)
    metadata = [("authorization", f"Bearer {args.token}")] if args.token else []
    a = pb.ent_grpc.EntitlementServiceStub(grpc.insecure_channel(args.a))
    b = pb.ent_grpc.EntitlementServiceStub(grpc.insecure_channel(args.b))
    run = os.urandom(4)
    rest = os.urandom(3000)
    at_ms = int(time.time() * 1000)

    def receipt(trial):
        # apple-fake --distinct tells receipts apart by their first 64 base64 characters.
        return base64.b64encode(run + struct.pack(">Q", trial) + rest).decode()

    def check(user):
        return b.CheckEntitlement(pb.ent.CheckEntitlementRequest(user_id=user, at_ms=at_ms),
                                  timeout=10, metadata=metadata).SerializeToString()

    def until_changed(user, before, since):
        polls = 0
        while True:
            answer = check(user)
            polls += 1
            if answer != before:
                return time.monotonic() - since, polls, answer
            if time.monotonic() - since > GIVE_UP_S:
                raise SystemExit(f"B still answers the old facts for {user} {GIVE_UP_S}s after A's write")

    delays, polls_per_trial, round_trips = [], [], []
    for trial in range(args.trials):
        x, y = f"inval-{run.hex()}-{trial}-x", f"inval-{run.hex()}-{trial}-y"
        empty = check(x)
        a.SubmitReceipt(pb.ent.SubmitReceiptRequest(user_id=x, receipt_data=receipt(trial)),
                        timeout=30, metadata=metadata)
        _, _, owned = until_changed(x, empty, time.monotonic())
        started = time.monotonic()
        for _ in range(3):
            assert check(x) == owned
        round_trips.append((time.monotonic() - started) / 3)
        a.SubmitReceipt(pb.ent.SubmitReceiptRequest(user_id=y, receipt_data=receipt(trial)),
                        timeout=30, metadata=metadata)
        acknowledged = time.monotonic()
        delay, polls, _ = until_changed(x, owned, acknowledged)
        delays.append(delay)
        polls_per_trial.append(polls)
    ms = [d * 1000 for d in delays]
    print(f"invalidation delay over {len(ms)} trials (A {args.a} writes, B {args.b} reads):"
          f" p50 {percentile(ms, 50):.1f} ms, p99 {percentile(ms, 99):.1f} ms, max {max(ms):.1f} ms,"
          f" mean {statistics.mean(ms):.1f} ms")
    print(f"resolution: one CheckEntitlement round trip on B, p50 {percentile(round_trips, 50) * 1000:.2f} ms;"
          f" polls until changed p50 {percentile(polls_per_trial, 50)}, max {max(polls_per_trial)};"
          f" trials where B's first poll already had the write: {sum(1 for p in polls_per_trial if p == 1)}")
    print(f"RESULT trials={len(ms)} p50_ms={percentile(ms, 50):.2f} p99_ms={percentile(ms, 99):.2f} max_ms={max(ms):.2f}")


if __name__ == "__main__":
    main()
