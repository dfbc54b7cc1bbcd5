"""Seeds the owners of Benchmarks/notifications.sh's V2 chains through Testing/Seed.

    seed_owners.py HOST:PORT STUBS_DIR OWNERS.jsonl

64 calls in flight (grpcio futures); exits 1 on any failure.
"""
import json
import sys
import time
from collections import deque
from pathlib import Path

import grpc

import bench_protos


def main():
    address, stubs, owners = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    pb = bench_protos.load(stubs)
    stub = pb.testing_grpc.TestingStub(grpc.insecure_channel(address))
    start = time.monotonic()
    pending = deque()
    count = 0
    for line in owners.open():
        owner = json.loads(line)
        pending.append(stub.Seed.future(pb.testing.SeedRequest(**owner), timeout=60))
        count += 1
        if len(pending) >= 64:
            pending.popleft().result()
    while pending:
        pending.popleft().result()
    print(f"seeded {count} owners in {time.monotonic() - start:.1f}s")


if __name__ == "__main__":
    main()
