"""Webhooks (issue 12) against a real HTTP receiver: every change arrives signed, as the
proto3 JSON of EntitlementChange, in order per user, at least once, through receiver failures,
a receiver down across a server restart, and a SIGKILL of the server mid-delivery."""
import json
import os
import signal
import subprocess
import time
import urllib.request

import pytest
from google.protobuf import json_format

from conftest import admin_address
from webhook_receiver import Receiver, assert_in_order_per_user, verify

DAY = 86_400_000
SECRET = "whsec-interop-7c1d"
# Only entitlementd-testing reads this: retries after 50 ms doubling to 400 ms, for 3 s.
FAST_RETRY = "50,400,3000"


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch):
    monkeypatch.setenv("ENTITLEMENTD_TESTING_WEBHOOK_RETRY", FAST_RETRY)


def hooked(server, receiver, *flags):
    return server("--webhook-url", receiver.url, "--webhook-secret", SECRET, "--admin-listen", "127.0.0.1:0", *flags)


def seed(pb, srv, user, tid, now, refunded_at=None):
    t = {"transaction_id": tid, "original_transaction_id": tid, "product_id": "pro.monthly",
         "purchase_date_ms": now - DAY, "expires_date_ms": now + 30 * DAY}
    if refunded_at:
        t["cancellation_date_ms"] = refunded_at
    stub = pb.testing_grpc.TestingStub(srv.channel())
    stub.Seed(pb.testing.SeedRequest(user_id=user, facts_json=json.dumps({"transactions": [t]})), timeout=10)


def purchase_then_refund(pb, srv, users, now):
    """Two changes per user: first appearance ACTIVE, then REVOKED."""
    for i, user in enumerate(users):
        seed(pb, srv, user, str(30_000_000 + i), now)
    for i, user in enumerate(users):
        seed(pb, srv, user, str(30_000_000 + i), now, refunded_at=now)


def wait_for_changes(receiver, count, timeout_s=60.0):
    """The change ids once `count` distinct ones were accepted."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        ids = {a.webhook_id for a in receiver.accepted()}
        if len(ids) >= count:
            return ids
        time.sleep(0.05)
    raise AssertionError(f"only {len({a.webhook_id for a in receiver.accepted()})} of {count} changes accepted")


@pytest.mark.replicas
def test_every_change_arrives_signed_as_proto3_json_in_order_after_failures(pb, server):
    receiver = Receiver(SECRET.encode(), fail_first=5)
    srv = hooked(server, receiver)
    users = [f"hook-{i}" for i in range(5)]
    purchase_then_refund(pb, srv, users, int(time.time() * 1000))
    wait_for_changes(receiver, 2 * len(users))
    time.sleep(0.5)  # nothing more may come
    accepted = receiver.accepted()
    assert len({a.webhook_id for a in accepted}) == 2 * len(users)
    assert all(a.valid for a in receiver.arrivals), "a request with a bad signature"
    assert sum(1 for a in receiver.arrivals if a.status == 500) == 5
    assert_in_order_per_user(accepted)
    for user in users:
        states = [a.body["entitlement"]["state"] for a in accepted if a.body["userId"] == user]
        assert states == ["ENTITLEMENT_STATE_ACTIVE", "ENTITLEMENT_STATE_REVOKED"], (user, states)
    for a in accepted:
        assert a.headers["Content-Type"] == "application/json"
        assert a.webhook_id == a.body["changeId"]
        # The canonical proto3 JSON: protobuf parses it and writes back exactly the same object.
        message = json_format.Parse(a.raw, pb.ent.EntitlementChange())
        assert json_format.MessageToDict(message) == a.body
    refund = next(a for a in accepted if a.body["entitlement"]["state"] == "ENTITLEMENT_STATE_REVOKED")
    assert refund.body["previousState"] == "ENTITLEMENT_STATE_ACTIVE"
    assert "active" not in refund.body["entitlement"]  # false is a default: left out
    first = next(a for a in accepted if a.body["entitlement"]["state"] == "ENTITLEMENT_STATE_ACTIVE")
    assert "previousState" not in first.body and first.body["entitlement"]["active"] is True

    # The receiver's check refuses what was not signed with the secret, or was changed.
    header = refund.headers["Webhook-Signature"]
    assert verify(SECRET.encode(), header, refund.raw)
    assert not verify(SECRET.encode(), header, refund.raw.replace(b"REVOKED", b"ACTIVE"))
    assert not verify(b"another-secret", header, refund.raw)
    t = int(header.split(",")[0][2:])
    assert not verify(SECRET.encode(), header, refund.raw, now=t + 3600), "an hour-old capture must be refused"
    assert SECRET not in srv.stderr()


@pytest.mark.replicas
def test_receiver_down_across_a_server_restart_loses_nothing(pb, server, tmp_path):
    receiver = Receiver(SECRET.encode())
    receiver.stop()  # down before anything is sent
    db = tmp_path / "hooks.sqlite"
    srv = hooked(server, receiver, "--database", db)
    users = [f"down-{i}" for i in range(4)]
    purchase_then_refund(pb, srv, users, int(time.time() * 1000))
    time.sleep(1.0)  # attempts fail (connection refused) and back off
    assert srv.stop() == 0
    receiver.start()
    hooked(server, receiver, "--database", db)
    wait_for_changes(receiver, 2 * len(users))
    assert_in_order_per_user(receiver.accepted())


@pytest.mark.replicas
def test_sigkill_during_delivery_loses_nothing(pb, server, tmp_path):
    receiver = Receiver(SECRET.encode(), delay_s=0.2)
    db = tmp_path / "killed.sqlite"
    victim = hooked(server, receiver, "--database", db, "--webhook-max-concurrency", "4")
    victim.check_exit_code = False
    users = [f"kill-{i}" for i in range(30)]
    purchase_then_refund(pb, victim, users, int(time.time() * 1000))
    deadline = time.monotonic() + 30
    while len(receiver.accepted()) < 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    victim.kill()  # SIGKILL with deliveries in flight and outcomes not yet recorded
    delivered_before = len({a.webhook_id for a in receiver.accepted()})
    assert 0 < delivered_before < 2 * len(users), "the kill should land mid-delivery"
    hooked(server, receiver, "--database", db)
    ids = wait_for_changes(receiver, 2 * len(users))
    assert len(ids) == 2 * len(users)
    assert_in_order_per_user(receiver.accepted())


def test_an_endpoint_that_never_answers_holds_bounded_posts_and_slows_no_write(pb, server, binary):
    """The endpoint accepts connections and never answers: POSTs in flight stay at
    --webhook-max-concurrency, and every write (each one appends changes) still completes."""
    receiver = Receiver(SECRET.encode(), delay_s=30)
    srv = hooked(server, receiver, "--webhook-max-concurrency", "3", "--webhook-timeout", "60s")
    now = int(time.time() * 1000)
    for i in range(40):
        seed(pb, srv, f"hang-{i}", str(60_000_000 + i), now)  # each Seed has a 10 s deadline
    deadline = time.monotonic() + 30
    while receiver.requests < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)
    assert receiver.max_in_flight == 3, receiver.max_in_flight
    out = ctl(binary, srv, "--json", "webhooks", "status")
    assert out.returncode == 0, out.stderr
    status = json.loads(out.stdout)["endpoints"][0]
    assert status["pending"] == 40 and status["delivered"] == 0, status
    assert status["oldest_undelivered_age_seconds"] > 0


def test_a_redirect_is_a_failed_attempt_never_followed(pb, server, binary):
    receiver = Receiver(SECRET.encode())
    receiver.redirect_to = f"http://127.0.0.1:{receiver.port}/elsewhere"
    srv = hooked(server, receiver)
    seed(pb, srv, "redirected-0", "70000000", int(time.time() * 1000))
    deadline = time.monotonic() + 30
    status = {}
    while time.monotonic() < deadline:
        status = json.loads(ctl(binary, srv, "--json", "webhooks", "status").stdout)["endpoints"][0]
        if status["failed_attempts"] >= 2:
            break
        time.sleep(0.1)
    assert status["failed_attempts"] >= 2 and status["last_error"] == "HTTP 307", status
    assert all(path.startswith("/hooks") for path in receiver.paths), receiver.paths


def ctl(binary, srv, *args):
    ctl_path = binary.parent / "entitlementctl"
    return subprocess.run([str(ctl_path), "--server", srv.address, "--admin", admin_address(srv), *args],
                          capture_output=True, text=True, timeout=30)


def test_dead_letter_status_and_replay_through_entitlementctl(pb, server, binary):
    receiver = Receiver(SECRET.encode())
    receiver.refuse_when = lambda arrival: arrival.body and arrival.body["userId"] == "dead-0"
    srv = hooked(server, receiver)
    now = int(time.time() * 1000)
    seed(pb, srv, "dead-0", "40000000", now)
    seed(pb, srv, "live-0", "40000001", now)
    deadline = time.monotonic() + 30
    status = {}
    while time.monotonic() < deadline:
        out = ctl(binary, srv, "--json", "webhooks", "status")
        assert out.returncode == 0, out.stderr
        status = json.loads(out.stdout)["endpoints"][0]
        if status["dead_letters"] == 1 and status["delivered"] == 1:
            break
        time.sleep(0.1)
    assert status["dead_letters"] == 1 and status["delivered"] == 1, status
    assert status["pending"] == 0 and status["failed_attempts"] >= 3
    assert status["last_error"] == "HTTP 500"
    assert "receiver-side-secret" not in status["url"], "the URL's query is not shown"
    table = ctl(binary, srv, "webhooks", "status")
    assert table.returncode == 0 and "DEAD" in table.stdout, table

    metrics = urllib.request.urlopen(f"http://{admin_address(srv)}/metrics", timeout=10).read().decode()
    assert 'entitlementd_webhook_deliveries_total{outcome="dead_lettered"} 1' in metrics
    assert 'entitlementd_webhook_deliveries_total{outcome="delivered"} 1' in metrics
    assert "entitlementd_webhook_dead_letters 1" in metrics
    assert "entitlementd_webhook_oldest_undelivered_age_seconds 0" in metrics

    # The receiver is fixed; replaying from the start delivers the dead-lettered change too.
    receiver.refuse_when = None
    first_cursor = receiver.accepted()[0].body["cursor"]
    replay = ctl(binary, srv, "webhooks", "replay", "--from", "c1.0000000000000000")
    assert replay.returncode == 0, replay.stderr
    assert "enqueued 2" in replay.stdout
    dead_id = next(a.webhook_id for a in receiver.arrivals if a.body["userId"] == "dead-0")
    receiver.wait_for([dead_id])
    assert first_cursor

    bad = ctl(binary, srv, "webhooks", "replay", "--from", "not-a-cursor")
    assert bad.returncode == 3 and "400" in bad.stderr


@pytest.mark.parametrize("flags,message", [
    (["--webhook-url", "http://127.0.0.1:9/h"], "--webhook-url needs --webhook-secret"),
    (["--webhook-url", "ftp://example.com/h", "--webhook-secret", "s"], "--webhook-url must be an http(s) URL"),
    (["--webhook-secret", "s"], "no --webhook-url"),
])
def test_bad_webhook_flags_exit_2(binary, tmp_path, flags, message):
    run = subprocess.run([str(binary), "--listen", "127.0.0.1:0", "--database", str(tmp_path / "x.sqlite"), *flags],
                         capture_output=True, text=True, timeout=30)
    assert run.returncode == 2 and message in run.stderr, run.stderr


def test_secret_file_readable_by_others_is_refused_and_a_private_one_works(pb, binary, server, tmp_path):
    secret_file = tmp_path / "webhook-secret"
    secret_file.write_text(SECRET + "\n")
    os.chmod(secret_file, 0o644)
    run = subprocess.run([str(binary), "--listen", "127.0.0.1:0", "--database", str(tmp_path / "x.sqlite"),
                          "--webhook-url", "http://127.0.0.1:9/h", "--webhook-secret-file", str(secret_file)],
                         capture_output=True, text=True, timeout=30)
    assert run.returncode == 2 and "chmod 600" in run.stderr, run.stderr
    os.chmod(secret_file, 0o600)
    receiver = Receiver(SECRET.encode())
    srv = server("--webhook-url", receiver.url, "--webhook-secret-file", secret_file)
    seed(pb, srv, "file-0", "50000000", int(time.time() * 1000))
    wait_for_changes(receiver, 1)
    assert all(a.valid for a in receiver.arrivals)
