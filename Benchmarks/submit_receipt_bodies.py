"""Writes gRPC-framed SubmitReceiptRequest bodies for h2load (Benchmarks/submit-receipt.sh).

    submit_receipt_bodies.py OUT_DIR [--small-bytes 4096] [--large-bytes 300000]

OUT_DIR/small.bin: user bench-small, a receipt_data string of about --small-bytes base64
characters (a real app receipt with a handful of purchases is a few KB); OUT_DIR/large.bin:
user bench-large, --large-bytes characters. The fake Apple answers both with the 7-transaction
sandbox sample. Prints `NAME BYTES` per file.
"""
import argparse
import base64
import os
from pathlib import Path

import bench_protos


def receipt(chars: int, tag: bytes = b"") -> str:
    """Standard base64 of random bytes, `chars` characters long (rounded down to a multiple of 4),
    starting with `tag` so receipts are told apart by their first bytes."""
    raw = tag + os.urandom(max(0, chars // 4 * 3 - len(tag)))
    return base64.b64encode(raw).decode()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--small-bytes", type=int, default=4096)
    parser.add_argument("--large-bytes", type=int, default=300_000)
    args = parser.parse_args()
    pb = bench_protos.load(args.out / "stubs")
    for name, user, size in (("small", "bench-small", args.small_bytes), ("large", "bench-large", args.large_bytes)):
        message = pb.ent.SubmitReceiptRequest(user_id=user, receipt_data=receipt(size)).SerializeToString()
        path = args.out / f"{name}.bin"
        path.write_bytes(bench_protos.grpc_frame(message))
        print(name, path.stat().st_size)


if __name__ == "__main__":
    main()
