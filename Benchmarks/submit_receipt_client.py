"""Distinct-receipt SubmitReceipt load (Benchmarks/submit-receipt.sh): every call sends a
receipt never sent before, for a user never seen before, so each one is a first verification
and a write of 7 new transactions (with apple-fake --distinct).

    submit_receipt_client.py HOST:PORT STUBS_DIR [--channels 4] [--concurrency 128]
                             [--duration 10] [--warmup 2] [--receipt-bytes 4096]
                             [--transaction-ids --expect-new 1]

--transaction-ids sends a new transaction_id per call instead (the App Store Server API path,
Benchmarks/server-api.sh), each answer expected to report --expect-new new transactions.

grpc.aio, requests pre-serialized per call with raw-bytes stubs (no protobuf on the hot path
but the receipt's few bytes of difference). Every 50th answer is decoded and must report
7 new transactions. Prints a summary and
`RESULT rps=... p50_us=... p99_us=... requests=N errors=E client_cpu_pct=P`.
"""
import argparse
import asyncio
import base64
import os
import resource
import struct
import time
from pathlib import Path

import grpc

import bench_protos

PATH = "/entitlement.v1.EntitlementService/SubmitReceipt"


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Load:
    def __init__(self, pb, receipt_bytes, transaction_ids=False, expect_new=7):
        self.pb = pb
        self.transaction_ids = transaction_ids
        self.expect_new = expect_new
        self.id_base = int.from_bytes(os.urandom(4), "big") * 1_000_000
        self.rest = os.urandom(max(0, receipt_bytes // 4 * 3 - 12))
        self.run_tag = os.urandom(4)
        self.counter = 0
        self.latencies = []
        self.errors = 0
        self.bad_answers = 0
        self.recording = False

    def next_request(self) -> bytes:
        self.counter += 1
        if self.transaction_ids:
            return self.pb.ent.SubmitReceiptRequest(user_id=f"bench-t{self.id_base}-{self.counter}",
                                                    transaction_id=str(self.id_base + self.counter)).SerializeToString()
        # The first 12 raw bytes (16 base64 characters) differ per call: apple-fake tells
        # receipts apart by their first 64 characters.
        tag = self.run_tag + struct.pack(">Q", self.counter)
        data = base64.b64encode(tag + self.rest).decode()
        return self.pb.ent.SubmitReceiptRequest(user_id=f"bench-d{self.run_tag.hex()}-{self.counter}",
                                                receipt_data=data).SerializeToString()

    async def worker(self, call, stop_at):
        while time.monotonic() < stop_at:
            request = self.next_request()
            start = time.monotonic_ns()
            try:
                answer = await call(request, timeout=30)
            except grpc.aio.AioRpcError as error:
                self.errors += 1
                if self.errors <= 3:
                    print(f"error: {error.code()} {error.details()}")
                continue
            if self.recording:
                self.latencies.append((time.monotonic_ns() - start) // 1000)
            if self.counter % 50 == 0:
                reply = self.pb.ent.SubmitReceiptResponse.FromString(answer)
                if reply.new_transactions != self.expect_new:
                    self.bad_answers += 1


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("address")
    parser.add_argument("stubs", type=Path)
    parser.add_argument("--channels", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=128)
    parser.add_argument("--duration", type=float, default=10)
    parser.add_argument("--warmup", type=float, default=2)
    parser.add_argument("--receipt-bytes", type=int, default=4096)
    parser.add_argument("--transaction-ids", action="store_true")
    parser.add_argument("--expect-new", type=int, default=7)
    args = parser.parse_args()
    load = Load(bench_protos.load(args.stubs), args.receipt_bytes, args.transaction_ids, args.expect_new)
    # A local subchannel pool per channel: one TCP connection each, as h2load's -c.
    channels = [grpc.aio.insecure_channel(args.address, options=[("grpc.use_local_subchannel_pool", 1)])
                for _ in range(args.channels)]
    calls = [ch.unary_unary(PATH, request_serializer=None, response_deserializer=None) for ch in channels]
    begin = time.monotonic()
    stop_at = begin + args.warmup + args.duration
    workers = [asyncio.create_task(load.worker(calls[i % len(calls)], stop_at)) for i in range(args.concurrency)]
    await asyncio.sleep(args.warmup)
    load.recording = True
    cpu0, t0 = cpu_seconds(), time.monotonic()
    await asyncio.gather(*workers)
    cpu1, t1 = cpu_seconds(), time.monotonic()
    for ch in channels:
        await ch.close()
    lat = sorted(load.latencies)
    n = len(lat)
    pct = lambda p: lat[min(n - 1, max(0, int(round(p / 100 * n + 0.5)) - 1))] if n else 0
    rps = n / (t1 - t0)
    cpu = 100 * (cpu1 - cpu0) / (t1 - t0)
    kind = "distinct transaction ids" if args.transaction_ids else "distinct receipts"
    print(f"{kind}: {n} calls in {t1 - t0:.1f}s = {rps:.0f}/s, p50 {pct(50) / 1000:.3f} ms, "
          f"p99 {pct(99) / 1000:.3f} ms, errors {load.errors}, wrong answers {load.bad_answers}, client CPU {cpu:.0f}%")
    print(f"RESULT rps={rps:.0f} p50_us={pct(50)} p99_us={pct(99)} requests={n} errors={load.errors} "
          f"bad={load.bad_answers} client_cpu_pct={cpu:.0f}")


if __name__ == "__main__":
    asyncio.run(main())
