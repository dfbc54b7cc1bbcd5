#!/usr/bin/env python3
"""Reconciliation throughput: N notifications the webhook never got, recovered by one
`entitlementctl reconcile` from appstore-sim's notification history (every page fetched over
the App Store Server API with a JWT, each payload verified and applied durably), then a second
run that finds them all duplicates. Prints figures; a benchmark, never a test.

    Benchmarks/reconcile.py [N] [PAGE_SIZE]          (default 1000 notifications, Apple's 20 a page)

Needs a debug or release build (BIN=.build/release); uses the interop venv's Python."""
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "Interop"))
from appstore_sim import BUNDLE_ID, ISSUER_ID, KEY_ID, Sim, free_port  # noqa: E402

count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
page_size = sys.argv[2] if len(sys.argv) > 2 else "20"
bin_dir = Path(os.environ.get("BIN") or subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT,
                                                       capture_output=True, text=True, check=True).stdout.strip())
work = Path(tempfile.mkdtemp(prefix="reconcile-bench-"))
port, admin_port = free_port(), free_port()
sim = Sim(bin_dir / "appstore-sim", work, "--api-page-size", page_size, "--drop-webhooks", "all",
          "--webhook-url", f"http://127.0.0.1:{port}/apple/notifications")
daemon = subprocess.Popen(
    [str(bin_dir / "entitlementd"), "--listen", f"127.0.0.1:{port}", "--database", str(work / "e.sqlite"),
     "--bundle-id", BUNDLE_ID, "--apple-root-ca", str(sim.root_path), "--app-store-key", str(sim.key_path),
     "--app-store-key-id", KEY_ID, "--app-store-issuer-id", ISSUER_ID, "--app-store-api-url", sim.url,
     "--app-store-api-sandbox-url", sim.url + "/sandbox", "--reconcile-interval", "0", "--log-level", "warning",
     "--admin-listen", f"127.0.0.1:{admin_port}"],
    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
try:
    assert b"listening on" in daemon.stdout.readline()
    for i in range(count):
        sim.control("purchase", {"product_id": "pro.monthly", "user_token": f"user-{i}"})
    while sim.get("/control/deliveries")["pending"]:
        time.sleep(0.05)

    def reconcile():
        started = time.monotonic()
        result = subprocess.run([str(bin_dir / "entitlementctl"), "--admin", f"127.0.0.1:{admin_port}", "reconcile"],
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stdout + result.stderr
        return time.monotonic() - started, result.stdout.splitlines()[0]

    seconds, line = reconcile()
    print(f"first run:  {count} missed notifications, {page_size} a page: {seconds:.2f} s "
          f"({count / seconds:.0f} notifications/s)\n  {line}")
    seconds, line = reconcile()
    print(f"second run: all duplicates: {seconds:.2f} s ({count / seconds:.0f} notifications/s)\n  {line}")
finally:
    daemon.terminate()
    daemon.wait(timeout=15)
    sim.stop()
