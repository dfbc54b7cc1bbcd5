"""Reconciliation (issue 11) end to end: appstore-sim as Apple (webhook, Server API, notification
history), entitlementd with the sim's .p8, entitlementctl reconcile. A notification the webhook
never got is applied exactly once; runs are idempotent across restarts; the watermark survives
them; 5xx/429 from Apple are retried, and a run that still fails leaves the watermark alone."""
import json
import re
import subprocess
import time
import urllib.request

import pytest

from appstore_sim import BUNDLE_ID, ISSUER_ID, KEY_ID, Sim, free_port
from cluster import metrics_text
from conftest import admin_address

HOUR_MS = 3_600_000
ACTIVE, REVOKED = 1, 5


class Stack:
    """appstore-sim posting to one entitlementd port; the daemon can be restarted on it."""

    def __init__(self, binary, server, tmp_path, sim_flags=(), daemon_flags=()):
        sim_bin = binary.parent / "appstore-sim"
        self.ctl_bin = binary.parent / "entitlementctl"
        for b in (sim_bin, self.ctl_bin):
            if not b.exists():
                pytest.fail(f"{b} not built (swift build builds every product)")
        self.port = free_port()
        self.database = tmp_path / "entitlements.sqlite"
        self.server_factory = server
        self.daemon_flags = list(daemon_flags)
        self.sim = Sim(sim_bin, tmp_path, "--api-page-size", "2", "--notifications", "v2",
                       "--webhook-url", f"http://127.0.0.1:{self.port}/apple/notifications", *sim_flags)
        self.daemon = None

    def start(self, *extra):
        s = self.sim
        self.daemon = self.server_factory(
            "--listen", f"127.0.0.1:{self.port}", "--database", self.database, "--bundle-id", BUNDLE_ID,
            "--apple-root-ca", s.root_path, "--app-store-key", s.key_path, "--app-store-key-id", KEY_ID,
            "--app-store-issuer-id", ISSUER_ID, "--app-store-api-url", s.url,
            "--app-store-api-sandbox-url", s.url + "/sandbox", "--admin-listen", "127.0.0.1:0",
            *self.daemon_flags, *extra)
        return self.daemon

    def restart(self, *extra):
        assert self.daemon.stop() == 0, self.daemon.stderr()[-2000:]
        return self.start(*extra)

    def ctl(self, *args):
        return subprocess.run([str(self.ctl_bin), "--server", self.daemon.address, "--admin",
                               admin_address(self.daemon), *args], capture_output=True, text=True, timeout=120)

    def reconcile(self, since_ms=None):
        """POST /admin/reconcile: (HTTP status, report)."""
        body = json.dumps({} if since_ms is None else {"since_ms": since_ms}).encode()
        request = urllib.request.Request(f"http://{admin_address(self.daemon)}/admin/reconcile", data=body,
                                         method="POST",
                                         headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def wait_delivered(self):
        """Until the sim has no webhook delivery in flight; returns its recent deliveries."""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            deliveries = self.sim.get("/control/deliveries")
            if deliveries["pending"] == 0:
                return deliveries["recent"]
            time.sleep(0.05)
        pytest.fail(f"deliveries still pending: {deliveries}")


def state(pb, daemon, user):
    stub = pb.ent_grpc.EntitlementServiceStub(daemon.channel())
    answer = stub.CheckEntitlement(pb.ent.CheckEntitlementRequest(user_id=user, product_id="pro.monthly"), timeout=10)
    return [e.state for e in answer.entitlements]


def subscribe(pb, stack, user):
    """A purchase in the sim, submitted by transaction id (the Server API path); active."""
    tx = stack.sim.control("purchase", {"product_id": "pro.monthly", "user_token": user, "period": "30d"})
    stub = pb.ent_grpc.EntitlementServiceStub(stack.daemon.channel())
    stub.SubmitReceipt(pb.ent.SubmitReceiptRequest(user_id=user, transaction_id=tx["transaction_id"]), timeout=60)
    assert state(pb, stack.daemon, user) == [ACTIVE]
    return tx["transaction_id"]


def metric(daemon, name, **labels):
    text = metrics_text(daemon)
    wanted = ",".join(f'{k}="{v}"' for k, v in labels.items())
    for line in text.splitlines():
        if line.startswith(name + "{" + wanted + "}") or (not labels and line.startswith(name + " ")):
            return float(line.rsplit(" ", 1)[1])
    return None


@pytest.fixture
def stack(binary, server, tmp_path):
    made = Stack(binary, server, tmp_path, daemon_flags=["--reconcile-interval", "0"])
    yield made
    made.sim.stop()


def test_a_dropped_refund_is_applied_once_and_reconciling_again_finds_nothing_new(pb, stack):
    stack.start()
    tx = subscribe(pb, stack, "alice")
    stack.sim.control("drop-webhooks", {"drop": "all"})
    stack.sim.control("refund", {"transaction_id": tx})
    recent = stack.wait_delivered()
    assert recent[-1]["notification"] == "REFUND" and recent[-1].get("dropped"), recent
    assert state(pb, stack.daemon, "alice") == [ACTIVE], "the refund never arrived"

    result = stack.ctl("reconcile")
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"^production .* applied 1 ", result.stdout, re.M), result.stdout
    assert state(pb, stack.daemon, "alice") == [REVOKED]
    assert metric(stack.daemon, "entitlementd_reconciled_notifications_total",
                  environment="production", outcome="applied") == 1
    assert metric(stack.daemon, "entitlementd_reconciliation_last_success_timestamp_seconds") > 0

    status, again = stack.reconcile()
    assert status == 200 and again["applied"] == 0 and again["duplicate"] >= 1, again
    first_end = again["environments"][0]["end_ms"]

    # A restart keeps the watermark: the next window starts an hour before the last end,
    # not 7 days back, and finds nothing new.
    stack.restart()
    status, after = stack.reconcile()
    assert status == 200 and after["applied"] == 0, after
    production = after["environments"][0]
    assert production["environment"] == "production"
    assert first_end - HOUR_MS <= production["start_ms"] <= first_end, (first_end, production)
    assert state(pb, stack.daemon, "alice") == [REVOKED]


@pytest.mark.replicas
def test_the_periodic_job_catches_up_right_after_a_restart(pb, stack):
    stack.start()
    tx = subscribe(pb, stack, "bob")
    stack.daemon.stop()
    stack.sim.control("refund", {"transaction_id": tx})  # posted while entitlementd is down
    recent = stack.wait_delivered()
    assert recent[-1]["http_status"] is None, recent
    stack.start("--reconcile-interval", "1h")
    deadline = time.monotonic() + 30
    while state(pb, stack.daemon, "bob") != [REVOKED]:
        assert time.monotonic() < deadline, stack.daemon.stderr()[-3000:]
        time.sleep(0.1)
    # The refund is visible as soon as its page is applied; the startup run still has the other
    # environment and the watermark to do, and an on-demand run meanwhile is refused (409).
    while metric(stack.daemon, "entitlementd_reconciliation_runs_total", result="complete") != 1:
        assert time.monotonic() < deadline, stack.daemon.stderr()[-3000:]
        time.sleep(0.1)
    status, report = stack.reconcile()
    assert status == 200 and report["applied"] == 0, report


def test_apple_5xx_and_429_are_retried_and_a_failing_run_keeps_the_watermark(pb, stack):
    stack.start()
    tx = subscribe(pb, stack, "carol")
    status, first = stack.reconcile()
    assert status == 200, first
    watermark = first["environments"][0]["end_ms"]

    # Two 503s, then a 429 a moment long: the client retries and the run completes.
    stack.sim.control("api-fault", {"status": 503, "count": 2})
    status, report = stack.reconcile()
    assert status == 200 and report["succeeded"], report
    tally = stack.sim.get("/control/api-requests")["requests"]
    assert tally.get("POST v1/notifications/history Production 503") == 2, tally
    stack.sim.control("api-fault", {"status": 429, "count": 1, "retry_after_ms": 300})
    status, report = stack.reconcile()
    assert status == 200 and report["succeeded"], report
    assert tally.get("POST v1/notifications/history Production 429") is None
    assert stack.sim.get("/control/api-requests")["requests"]["POST v1/notifications/history Production 429"] == 1
    watermark = report["environments"][0]["end_ms"]

    # Apple keeps failing: the run reports it and neither environment's watermark moves past
    # where it was for production; the missed refund is applied once Apple answers again.
    stack.sim.control("drop-webhooks", {"drop": "all"})
    stack.sim.control("refund", {"transaction_id": tx})
    stack.wait_delivered()
    stack.sim.control("api-fault", {"status": 500, "count": 1000})
    result = stack.ctl("reconcile")
    assert result.returncode != 0, result.stdout
    assert "INCOMPLETE" in result.stdout or "503" in result.stdout, result.stdout
    assert state(pb, stack.daemon, "carol") == [ACTIVE]
    stack.sim.control("api-fault", {"status": 500, "count": 0})
    status, report = stack.reconcile()
    assert status == 200 and report["applied"] == 1, report
    production = report["environments"][0]
    assert production["start_ms"] == watermark - HOUR_MS, "the failed run did not move the watermark"
    assert state(pb, stack.daemon, "carol") == [REVOKED]
