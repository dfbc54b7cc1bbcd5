"""CheckEntitlement and ListHistory over the wire, on a store seeded through the test-only
Testing/Seed path (the same store write path SubmitReceipt uses)."""
import json
import time

import grpc
import pytest

DAY = 86_400_000
NOW = int(time.time() * 1000)


def seed(pb, channel, user, transactions, renewal_infos=()):
    stub = pb.testing_grpc.TestingStub(channel)
    facts = {"transactions": list(transactions), "renewal_infos": list(renewal_infos)}
    return stub.Seed(pb.testing.SeedRequest(user_id=user, facts_json=json.dumps(facts)), timeout=10)


def tx(tid, chain, product, purchase, expires=None, **extra):
    t = {"transaction_id": tid, "original_transaction_id": chain, "product_id": product,
         "purchase_date_ms": purchase}
    if expires is not None:
        t["expires_date_ms"] = expires
    t.update(extra)
    return t


def check(pb, channel, user, product="", entitlement="", at_ms=0):
    stub = pb.ent_grpc.EntitlementServiceStub(channel)
    return stub.CheckEntitlement(pb.ent.CheckEntitlementRequest(
        user_id=user, product_id=product, entitlement_id=entitlement, at_ms=at_ms), timeout=10)


def history(pb, channel, user, page_size=0, token="", product=""):
    stub = pb.ent_grpc.EntitlementServiceStub(channel)
    return stub.ListHistory(pb.ent.ListHistoryRequest(
        user_id=user, page_size=page_size, page_token=token, product_id=product), timeout=10)


def test_active_subscription_and_history(pb, default_server):
    ch = default_server.channel()
    reply = seed(pb, ch, "alice", [
        tx("2001", "2000", "pro.monthly", NOW - 40 * DAY, NOW - 10 * DAY),
        tx("2000", "2000", "pro.monthly", NOW - 70 * DAY, NOW - 40 * DAY, is_trial_period="true"),
        tx("2002", "2000", "pro.monthly", NOW - 10 * DAY, NOW + 20 * DAY),
    ], [{"original_transaction_id": "2000", "auto_renew_status": True, "signed_date_ms": NOW}])
    assert reply.new_transactions == 3
    assert seed(pb, ch, "alice", [tx("2002", "2000", "pro.monthly", NOW - 10 * DAY, NOW + 20 * DAY)]).new_transactions == 0

    answer = check(pb, ch, "alice", product="pro.monthly")
    assert answer.active
    assert abs(answer.evaluated_at_ms - time.time() * 1000) < 60_000, "evaluated at the time of the call"
    [e] = answer.entitlements
    assert e.state == pb.ent.ENTITLEMENT_STATE_ACTIVE
    assert e.latest_transaction_id == "2002"
    assert e.expires_at_ms == NOW + 20 * DAY
    assert e.will_auto_renew
    assert e.product_type == pb.ent.PRODUCT_TYPE_AUTO_RENEWABLE

    # at_ms in the past: the first (trial) period was the latest then.
    past = check(pb, ch, "alice", at_ms=NOW - 50 * DAY)
    assert past.active and past.evaluated_at_ms == NOW - 50 * DAY
    assert past.entitlements[0].latest_transaction_id == "2000"
    assert past.entitlements[0].is_trial_period

    events = history(pb, ch, "alice").events
    assert [ev.transaction_id for ev in events] == ["2002", "2001", "2000"]
    assert [ev.type for ev in events] == [pb.ent.EVENT_TYPE_RENEWAL, pb.ent.EVENT_TYPE_RENEWAL, pb.ent.EVENT_TYPE_PURCHASE]
    assert all(ev.source == pb.ent.EVENT_SOURCE_RECEIPT for ev in events)


def test_unknown_user_expired_and_other_products(pb, default_server):
    ch = default_server.channel()
    seed(pb, ch, "bob", [tx("3000", "3000", "pro.monthly", NOW - 40 * DAY, NOW - 10 * DAY),
                         tx("3100", "3100", "lifetime", NOW - 5 * DAY)])
    expired = check(pb, ch, "bob", product="pro.monthly")
    assert not expired.active
    assert [e.state for e in expired.entitlements] == [pb.ent.ENTITLEMENT_STATE_EXPIRED]
    lifetime = check(pb, ch, "bob", product="lifetime")
    assert lifetime.active and lifetime.entitlements[0].product_type == pb.ent.PRODUCT_TYPE_NON_CONSUMABLE
    anything = check(pb, ch, "bob")
    assert anything.active and len(anything.entitlements) == 2
    assert anything.entitlements[0].active, "active entitlements come first"
    nobody = check(pb, ch, "nobody")
    assert not nobody.active and len(nobody.entitlements) == 0


def test_refund_revokes(pb, default_server):
    ch = default_server.channel()
    seed(pb, ch, "carol", [tx("4000", "4000", "pro.monthly", NOW - 5 * DAY, NOW + 25 * DAY)])
    assert check(pb, ch, "carol").active
    seed(pb, ch, "carol", [tx("4000", "4000", "pro.monthly", NOW - 5 * DAY, NOW + 25 * DAY,
                               cancellation_date_ms=NOW - DAY)])
    answer = check(pb, ch, "carol")
    assert not answer.active
    assert answer.entitlements[0].state == pb.ent.ENTITLEMENT_STATE_REVOKED
    assert pb.ent.EVENT_TYPE_REFUND in [ev.type for ev in history(pb, ch, "carol").events]


def test_catalog_entitlement_ids(pb, server, tmp_path):
    catalog = tmp_path / "catalog.json"
    catalog.write_text(json.dumps({"products": [
        {"product_id": "pro.monthly", "type": "auto_renewable", "entitlement_id": "pro"},
        {"product_id": "pro.yearly", "type": "auto_renewable", "entitlement_id": "pro"},
        {"product_id": "pass.30d", "type": "non_renewing", "entitlement_id": "pass", "duration_ms": 30 * DAY},
    ]}))
    s = server("--catalog", catalog)
    ch = s.channel()
    seed(pb, ch, "dave", [tx("5000", "5000", "pro.yearly", NOW - DAY, NOW + 300 * DAY),
                          tx("5100", "5100", "pass.30d", NOW - 31 * DAY)])
    pro = check(pb, ch, "dave", entitlement="pro")
    assert pro.active and pro.entitlements[0].entitlement_id == "pro" and pro.entitlements[0].product_id == "pro.yearly"
    passes = check(pb, ch, "dave", entitlement="pass")
    assert not passes.active
    assert passes.entitlements[0].product_type == pb.ent.PRODUCT_TYPE_NON_RENEWING
    assert passes.entitlements[0].expires_at_ms == NOW - DAY


def test_bad_catalog_stops_startup_naming_the_line(binary, tmp_path):
    import subprocess
    catalog = tmp_path / "catalog.json"
    catalog.write_text('{"products": [\n  {"product_id": "a", "type": "auto_renewable"},\n  {"product_id": "b", "type": "monthly"}\n]}\n')
    result = subprocess.run([str(binary), "--listen", "127.0.0.1:0", "--database", str(tmp_path / "x.sqlite"),
                             "--catalog", str(catalog)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert "line 3" in result.stderr and "monthly" in result.stderr


def test_ownership_transfer_and_reject(pb, server):
    transfer = server()
    ch = transfer.channel()
    seed(pb, ch, "erin", [tx("6000", "6000", "pro.monthly", NOW - DAY, NOW + 29 * DAY)])
    seed(pb, ch, "frank", [tx("6000", "6000", "pro.monthly", NOW - DAY, NOW + 29 * DAY)])
    assert check(pb, ch, "frank").active
    assert not check(pb, ch, "erin").active
    assert pb.ent.EVENT_TYPE_OWNERSHIP_TRANSFER in [ev.type for ev in history(pb, ch, "erin").events]

    reject = server("--transfer-policy", "reject")
    ch2 = reject.channel()
    seed(pb, ch2, "erin", [tx("6000", "6000", "pro.monthly", NOW - DAY, NOW + 29 * DAY)])
    with pytest.raises(grpc.RpcError) as info:
        seed(pb, ch2, "frank", [tx("6000", "6000", "pro.monthly", NOW - DAY, NOW + 29 * DAY)])
    assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert check(pb, ch2, "erin").active and not check(pb, ch2, "frank").active


def test_history_pagination_and_filters(pb, default_server):
    ch = default_server.channel()
    # 120 renewals of one chain plus 30 purchases of another product.
    txs = [tx(str(7000 + i), "7000", "pro.monthly", NOW - (200 - i) * DAY, NOW - (199 - i) * DAY) for i in range(120)]
    txs += [tx(str(8000 + i), str(8000 + i), "coins", NOW - 3 * DAY) for i in range(30)]
    seed(pb, ch, "gina", txs)
    seen, token, pages = [], "", 0
    while True:
        page = history(pb, ch, "gina", page_size=40, token=token)
        seen += [ev.event_id for ev in page.events]
        pages += 1
        token = page.next_page_token
        if not token:
            break
    assert len(seen) == 150 and len(set(seen)) == 150 and pages == 4
    assert history(pb, ch, "gina").events.__len__() == 50, "default page size is 50"
    assert len(history(pb, ch, "gina", page_size=100000).events) == 150, "clamped to 500, all fit"
    coins = history(pb, ch, "gina", product="coins", page_size=500).events
    assert len(coins) == 30 and all(ev.product_id == "coins" for ev in coins)
    for bad in ["garbage", "%%%", token + "x"]:
        with pytest.raises(grpc.RpcError) as info:
            history(pb, ch, "gina", token=bad)
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_empty_user_id_is_invalid(pb, default_server):
    ch = default_server.channel()
    for call in (lambda: check(pb, ch, ""), lambda: history(pb, ch, "")):
        with pytest.raises(grpc.RpcError) as info:
            call()
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "user_id" in info.value.details()


@pytest.mark.replicas
def test_data_survives_restart(pb, server, tmp_path):
    db = tmp_path / "persist.sqlite"
    first = server("--database", db)
    seed(pb, first.channel(), "hank", [tx("9000", "9000", "pro.monthly", NOW - DAY, NOW + 29 * DAY)])
    assert first.stop() == 0
    second = server("--database", db)
    assert check(pb, second.channel(), "hank").active
