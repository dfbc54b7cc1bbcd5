"""WatchEntitlementChanges over the wire (issue 12): changes in order with the right states,
time-driven changes without any notification, resume by cursor across a restart, and the
stream's edges: cancellation, a client that stops reading, deadlines, shutdown, keepalive."""
import signal
import subprocess
import time

import grpc
import pytest

from watch_support import (DAY, Collector, RawWatch, metric, now_ms, purchase, seed, wait_for)


def names(pb, changes):
    state = pb.ent.EntitlementState.Name
    return [(state(c.previous_state), state(c.entitlement.state)) for c in changes]


def test_purchase_grace_recovery_refund_in_order(pb, default_server):
    ch = default_server.channel()
    watcher = Collector(pb, ch, user_id="w")
    wait_for("watcher registered", lambda: metric(default_server, "entitlementd_watchers_connected") == 1)
    expires = now_ms() + 3000
    purchase(pb, ch, "w", "w0", expires_ms=expires, purchase_ms=now_ms() - 30 * DAY)
    # Renewal failed, Apple grants grace: nothing changes while the period still covers...
    seed(pb, ch, "w", [], [{"original_transaction_id": "w0", "auto_renew_status": True,
                            "is_in_billing_retry_period": True, "grace_period_expires_date_ms": now_ms() + 14 * DAY,
                            "signed_date_ms": now_ms()}])
    # ...and at the period's end the state becomes GRACE_PERIOD by time alone.
    grace = watcher.wait_count(2)[1]
    assert grace.occurred_at_ms == expires and grace.cause_event_id == ""
    renewal = {"transaction_id": "w1", "original_transaction_id": "w0", "product_id": "pro.monthly",
               "purchase_date_ms": now_ms(), "expires_date_ms": now_ms() + 30 * DAY}
    seed(pb, ch, "w", [renewal], [{"original_transaction_id": "w0", "auto_renew_status": True,
                                   "is_in_billing_retry_period": False, "signed_date_ms": now_ms() + 1}])
    watcher.wait_count(3)
    seed(pb, ch, "w", [dict(renewal, cancellation_date_ms=now_ms())])
    changes = watcher.wait_count(4)
    assert names(pb, changes) == [
        ("ENTITLEMENT_STATE_UNSPECIFIED", "ENTITLEMENT_STATE_ACTIVE"),
        ("ENTITLEMENT_STATE_ACTIVE", "ENTITLEMENT_STATE_GRACE_PERIOD"),
        ("ENTITLEMENT_STATE_GRACE_PERIOD", "ENTITLEMENT_STATE_ACTIVE"),
        ("ENTITLEMENT_STATE_ACTIVE", "ENTITLEMENT_STATE_REVOKED"),
    ]
    assert [c.entitlement.active for c in changes] == [True, True, True, False]
    assert [c.user_id for c in changes] == ["w"] * 4
    assert [c.cursor for c in changes] == sorted(c.cursor for c in changes) and len({c.cursor for c in changes}) == 4
    assert len({c.change_id for c in changes}) == 4
    assert all(c.cause_event_id for i, c in enumerate(changes) if i != 1)
    time.sleep(0.3)
    assert len(watcher.changes) == 4, "a renewal-free refund is one change, nothing else"


def test_expiry_arrives_at_its_instant_with_no_notification(pb, default_server):
    ch = default_server.channel()
    watcher = Collector(pb, ch, user_id="e")
    wait_for("watcher registered", lambda: metric(default_server, "entitlementd_watchers_connected") == 1)
    expires = now_ms() + 2000
    purchase(pb, ch, "e", "e0", expires_ms=expires)
    watcher.wait_count(1)
    expired = watcher.wait_count(2, timeout=30)[1]
    arrived = now_ms()
    assert names(pb, [expired]) == [("ENTITLEMENT_STATE_ACTIVE", "ENTITLEMENT_STATE_EXPIRED")]
    assert expired.occurred_at_ms == expires and expired.cause_event_id == ""
    assert not expired.entitlement.active
    # The store's timer is due within 1 s of the instant; 2 s more of slack for a loaded machine.
    assert arrived - expires < 3000, f"expiry arrived {arrived - expires} ms after its instant"


@pytest.mark.replicas
def test_resume_from_a_cursor_after_restart_gives_exactly_the_missing_changes(pb, server, tmp_path):
    database = str(tmp_path / "resume.sqlite")
    first = server("--database", database)
    ch = first.channel()
    watcher = Collector(pb, ch)
    wait_for("registered", lambda: metric(first, "entitlementd_watchers_connected") == 1)
    for i in range(5):
        purchase(pb, ch, f"r{i}", f"r{i}")
    seen = watcher.wait_count(5)
    first.signal(signal.SIGTERM)
    watcher.ended.wait(10)
    assert first.stop() == 0
    assert watcher.error.code() == grpc.StatusCode.UNAVAILABLE, "shutdown ends the stream UNAVAILABLE"

    second = server("--database", database)
    ch2 = second.channel()
    for i in range(5, 7):
        purchase(pb, ch2, f"r{i}", f"r{i}")
    # The consumer processed up to the second change before the restart: resume after it.
    resumed = Collector(pb, ch2, after_cursor=seen[1].cursor)
    replayed = resumed.wait_count(5)
    assert [c.change_id for c in replayed[:3]] == [c.change_id for c in seen[2:5]], "same ids on replay"
    assert [c.user_id for c in replayed] == ["r2", "r3", "r4", "r5", "r6"]
    purchase(pb, ch2, "r7", "r7")
    assert resumed.wait_count(6)[5].user_id == "r7", "then live, with no gap"
    time.sleep(0.3)
    assert len(resumed.changes) == 6, "and no duplicate at the seam"
    cursors = [c.cursor for c in resumed.changes]
    assert cursors == sorted(cursors) and seen[1].cursor < cursors[0]


@pytest.mark.single_process("counts requests in flight, which haproxy's health checks move")
def test_cancelled_watcher_frees_its_stream(pb, default_server):
    ch = default_server.channel()
    watchers = [Collector(pb, ch), Collector(pb, ch, user_id="x")]
    wait_for("two watchers", lambda: metric(default_server, "entitlementd_watchers_connected") == 2)
    active = metric(default_server, "entitlementd_active_requests")
    watchers[0].call.cancel()
    wait_for("one watcher left", lambda: metric(default_server, "entitlementd_watchers_connected") == 1)
    wait_for("its stream gone", lambda: metric(default_server, "entitlementd_active_requests") == active - 1)
    purchase(pb, ch, "x", "x0")
    assert watchers[1].wait_count(1)[0].user_id == "x", "the other keeps going"


@pytest.mark.single_process("a watcher that never reads: haproxy buffers for it, so the server sees no slow reader")
def test_slow_watcher_is_ended_with_resource_exhausted_others_unaffected(pb, server):
    s = server("--watch-buffer-bytes", "4096")
    ch = s.channel()
    healthy = Collector(pb, ch)
    slow = RawWatch(s, pb.ent.WatchEntitlementChangesRequest().SerializeToString(), window=16)
    wait_for("both watching", lambda: metric(s, "entitlementd_watchers_connected") == 2)
    for i in range(60):
        purchase(pb, ch, f"s{i}", f"s{i}")
    slow.pump(20, until=lambda w: w.trailers is not None)
    assert slow.trailers is not None, "the slow watcher got a status although its window stayed shut"
    assert slow.trailers["grpc-status"] == "8"
    assert "not reading" in slow.trailers.get("grpc-message", "")
    assert len(slow.body) <= 16, "flow control held back everything past its window"
    assert [c.user_id for c in healthy.wait_count(60)] == [f"s{i}" for i in range(60)]
    wait_for("slow watcher freed", lambda: metric(s, "entitlementd_watchers_connected") == 1)
    slow.close()


def test_deadline_ends_the_stream_with_deadline_exceeded(pb, default_server):
    raw = RawWatch(default_server, b"", headers=[("grpc-timeout", "700m")])
    started = time.monotonic()
    raw.pump(15, until=lambda w: w.trailers is not None)
    assert raw.trailers is not None and raw.trailers["grpc-status"] == "4", raw.trailers
    assert time.monotonic() - started < 10
    wait_for("freed", lambda: metric(default_server, "entitlementd_watchers_connected") == 0)
    # grpcio's view of the same.
    with pytest.raises(grpc.RpcError) as failure:
        list(pb.ent_grpc.EntitlementServiceStub(default_server.channel()).WatchEntitlementChanges(
            pb.ent.WatchEntitlementChangesRequest(), timeout=0.5))
    assert failure.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED


@pytest.mark.single_process(
    "SIGTERM of the server ends its own streams; through haproxy the stream may be on another replica")
def test_graceful_shutdown_ends_streams_promptly_with_unavailable(pb, server):
    s = server("--shutdown-grace-period", "60s")
    ch = s.channel()
    live = Collector(pb, ch)
    stuck = RawWatch(s, b"", window=16)
    wait_for("watching", lambda: metric(s, "entitlementd_watchers_connected") == 2)
    for i in range(10):
        purchase(pb, ch, f"g{i}", f"g{i}")
    live.wait_count(10)
    started = time.monotonic()
    s.signal(signal.SIGTERM)
    assert s.proc.wait(timeout=30) == 0
    took = time.monotonic() - started
    assert took < 15, f"shutdown took {took:.1f}s: streams held the 60 s grace period"
    live.ended.wait(5)
    assert live.error.code() == grpc.StatusCode.UNAVAILABLE
    assert "shutting down" in live.error.details() and "after_cursor" in live.error.details()
    stuck.pump(5, until=lambda w: w.trailers is not None or w.closed)
    assert stuck.trailers is not None and stuck.trailers["grpc-status"] == "14", "even a client that does not read"


@pytest.mark.single_process("HTTP/2 PINGs are per connection: haproxy answers the client's")
def test_idle_stream_gets_keepalive_pings(pb, server):
    s = server("--stream-keepalive", "1s")
    raw = RawWatch(s, b"")
    raw.pump(6, until=lambda w: w.pings >= 2)
    assert raw.pings >= 2, "a PING about every second while the stream is idle"
    assert raw.trailers is None and not raw.closed, "and the stream stays open"
    raw.close()


def test_cursor_errors(pb, default_server):
    stub = pb.ent_grpc.EntitlementServiceStub(default_server.channel())
    cases = [("not-a-cursor", grpc.StatusCode.INVALID_ARGUMENT, "not a cursor this server issued"),
             ("c1.00000000000003e8", grpc.StatusCode.OUT_OF_RANGE, "ahead of this server's change log")]
    for cursor, code, text in cases:
        with pytest.raises(grpc.RpcError) as failure:
            list(stub.WatchEntitlementChanges(pb.ent.WatchEntitlementChangesRequest(after_cursor=cursor), timeout=10))
        assert failure.value.code() == code and text in failure.value.details(), failure.value


def test_entitlementctl_watch_prints_changes_and_stops_on_ctrl_c(pb, binary, default_server):
    ctl = binary.parent / "entitlementctl"
    proc = subprocess.Popen([str(ctl), "--server", default_server.address, "watch", "--json", "--user", "c"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for("ctl watching", lambda: metric(default_server, "entitlementd_watchers_connected") == 1)
    purchase(pb, default_server.channel(), "c", "c0")
    line = proc.stdout.readline()
    assert '"userId":"c"' in line and '"state":"ENTITLEMENT_STATE_ACTIVE"' in line, line
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=10) == 0, proc.stderr.read()
    wait_for("ctl's stream gone", lambda: metric(default_server, "entitlementd_watchers_connected") == 0)
