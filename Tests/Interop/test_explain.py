"""ExplainEntitlement over the wire: it agrees with CheckEntitlement for the same request in
every state, and names the rule and the transaction the state rests on."""
import json
import time

import grpc
import pytest

from test_entitlements import DAY, NOW, check, seed, tx

STATE_NAMES = {
    "ENTITLEMENT_STATE_ACTIVE": "ACTIVE", "ENTITLEMENT_STATE_GRACE_PERIOD": "GRACE_PERIOD",
    "ENTITLEMENT_STATE_BILLING_RETRY": "BILLING_RETRY", "ENTITLEMENT_STATE_EXPIRED": "EXPIRED",
    "ENTITLEMENT_STATE_REVOKED": "REVOKED",
}


def explain(pb, channel, user, product="", entitlement="", at_ms=0, metadata=None):
    stub = pb.ent_grpc.EntitlementServiceStub(channel)
    return stub.ExplainEntitlement(pb.ent.ExplainEntitlementRequest(
        user_id=user, product_id=product, entitlement_id=entitlement, at_ms=at_ms), timeout=10, metadata=metadata)


def iso(ms):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + \
        (f".{ms % 1000:03d}" if ms % 1000 else "") + "Z"


# user -> (transactions, renewal infos, expected state now, decisive transaction now)
USERS = {
    "active": ([tx("2000", "2000", "pro.monthly", NOW - 70 * DAY, NOW - 40 * DAY, is_trial_period="true"),
                tx("2001", "2000", "pro.monthly", NOW - 40 * DAY, NOW - 10 * DAY),
                tx("2002", "2000", "pro.monthly", NOW - 10 * DAY, NOW + 20 * DAY)],
               [{"original_transaction_id": "2000", "auto_renew_status": True, "signed_date_ms": NOW - DAY}],
               "ENTITLEMENT_STATE_ACTIVE", "2002"),
    "grace": ([tx("2100", "2100", "pro.monthly", NOW - 32 * DAY, NOW - 2 * DAY)],
              [{"original_transaction_id": "2100", "auto_renew_status": True, "is_in_billing_retry_period": True,
                "grace_period_expires_date_ms": NOW + 14 * DAY, "signed_date_ms": NOW - DAY}],
              "ENTITLEMENT_STATE_GRACE_PERIOD", "2100"),
    "retry": ([tx("2200", "2200", "pro.monthly", NOW - 32 * DAY, NOW - 2 * DAY)],
              [{"original_transaction_id": "2200", "auto_renew_status": True, "is_in_billing_retry_period": True,
                "signed_date_ms": NOW - DAY}],
              "ENTITLEMENT_STATE_BILLING_RETRY", "2200"),
    "expired": ([tx("2300", "2300", "pro.monthly", NOW - 40 * DAY, NOW - 10 * DAY)], [],
                "ENTITLEMENT_STATE_EXPIRED", "2300"),
    "refunded": ([tx("2400", "2400", "pro.monthly", NOW - 40 * DAY, NOW - 10 * DAY),
                  tx("2401", "2400", "pro.monthly", NOW - 10 * DAY, NOW + 20 * DAY, cancellation_date_ms=NOW - DAY)],
                 [], "ENTITLEMENT_STATE_REVOKED", "2401"),
    "upgraded": ([tx("2500", "2500", "pro.monthly", NOW - 20 * DAY, NOW + 10 * DAY, is_upgraded="true",
                     cancellation_date_ms=NOW - 5 * DAY),
                  tx("2501", "2500", "pro.premium", NOW - 5 * DAY, NOW + 25 * DAY)],
                 [], "ENTITLEMENT_STATE_ACTIVE", "2501"),
    "lifetime": ([tx("2600", "2600", "lifetime", NOW - 100 * DAY)], [], "ENTITLEMENT_STATE_ACTIVE", "2600"),
}


@pytest.fixture
def seeded(pb, default_server):
    ch = default_server.channel()
    for user, (transactions, renewals, _, _) in USERS.items():
        seed(pb, ch, user, transactions, renewals)
    return ch


def assert_agrees(pb, checked, explained, label):
    assert [e for e in (x.entitlement for x in explained.explanations)] == list(checked.entitlements), label
    for x in explained.explanations:
        state = pb.ent.EntitlementState.Name(x.entitlement.state)
        assert x.reason.startswith(STATE_NAMES[state] + ": "), (label, x.reason)
        decisive = [t for t in x.transactions if t.decisive]
        assert len(decisive) == 1, (label, x)
        assert decisive[0].transaction_id in x.reason, (label, x.reason)
        order = [(t.expires_at_ms, t.purchased_at_ms) for t in x.transactions]
        assert order == sorted(order, reverse=True), (label, "newest first")


@pytest.mark.parametrize("user", sorted(USERS))
def test_explain_agrees_with_check_in_every_state(pb, seeded, user):
    transactions, _, state, decisive = USERS[user]
    requests = [dict(), dict(product="pro.monthly"), dict(product="pro.premium"), dict(entitlement="lifetime"),
                dict(product="lifetime", entitlement="pro.monthly"), dict(at_ms=NOW - 15 * DAY),
                dict(at_ms=NOW - 60 * DAY), dict(at_ms=NOW - 200 * DAY), dict(at_ms=NOW + 16 * DAY)]
    for request in requests:
        checked = check(pb, seeded, user, **request)
        explained = explain(pb, seeded, user, **request)
        if request.get("at_ms"):
            assert explained.evaluated_at_ms == checked.evaluated_at_ms == request["at_ms"]
        else:
            assert abs(explained.evaluated_at_ms - checked.evaluated_at_ms) < 60_000
        assert_agrees(pb, checked, explained, f"{user} {request}")

    [x] = explain(pb, seeded, user).explanations
    assert pb.ent.EntitlementState.Name(x.entitlement.state) == state
    assert [t.transaction_id for t in x.transactions if t.decisive] == [decisive]
    assert sorted(t.transaction_id for t in x.transactions) == sorted(t["transaction_id"] for t in transactions)
    assert all(t.source == pb.ent.EVENT_SOURCE_RECEIPT for t in x.transactions), "seeded through the receipt path"


def test_reasons_name_the_instants(pb, seeded):
    [grace] = explain(pb, seeded, "grace").explanations
    assert grace.reason == (f"GRACE_PERIOD: the period of transaction 2100 ended at {iso(NOW - 2 * DAY)}, "
                            f"and Apple's grace period runs until {iso(NOW + 14 * DAY)}")
    [refund] = explain(pb, seeded, "refunded").explanations
    assert refund.reason.startswith(f"REVOKED: transaction 2401, the chain's newest, was refunded at {iso(NOW - DAY)}")
    refunded = {t.transaction_id: t for t in refund.transactions}
    assert refunded["2401"].revoked_at_ms == NOW - DAY and refunded["2400"].revoked_at_ms == 0
    [upgrade] = explain(pb, seeded, "upgraded").explanations
    facts = {t.transaction_id: t for t in upgrade.transactions}
    assert facts["2500"].upgraded and facts["2500"].revoked_at_ms == 0, "an upgrade is not a refund"
    assert facts["2501"].product_id == "pro.premium" and not facts["2501"].upgraded
    # Before the upgrade, the old plan was the one that counted, and the new one not bought yet.
    [before] = explain(pb, seeded, "upgraded", at_ms=NOW - 10 * DAY).explanations
    assert [(t.transaction_id, t.decisive) for t in before.transactions] == [("2500", True)]
    assert before.reason == f"ACTIVE: the period of transaction 2500 runs until {iso(NOW + 10 * DAY)}"
    [trial] = explain(pb, seeded, "active", at_ms=NOW - 50 * DAY).explanations
    assert trial.reason == f"ACTIVE: the period of transaction 2000 (a free trial) runs until {iso(NOW - 40 * DAY)}"
    assert [t.transaction_id for t in trial.transactions] == ["2000"], "renewals bought later are left out"


def test_catalog_non_renewing_and_consumable(pb, server, tmp_path):
    catalog = tmp_path / "catalog.json"
    catalog.write_text(json.dumps({"products": [
        {"product_id": "pass.30d", "type": "non_renewing", "entitlement_id": "pass", "duration_ms": 30 * DAY},
        {"product_id": "coins", "type": "consumable"},
    ]}))
    ch = server("--catalog", catalog).channel()
    seed(pb, ch, "erin", [tx("5100", "5100", "pass.30d", NOW - 31 * DAY), tx("5200", "5200", "coins", NOW - DAY)])
    explained = explain(pb, ch, "erin")
    assert_agrees(pb, check(pb, ch, "erin"), explained, "erin")
    [x] = explained.explanations
    assert x.entitlement.product_id == "pass.30d", "a consumable grants nothing, so nothing to explain"
    assert x.reason == (f"EXPIRED: non-renewing purchase 5100, bought at {iso(NOW - 31 * DAY)}, ended at "
                        f"{iso(NOW - DAY)} (the catalog's duration of 30 days)")
    [active] = explain(pb, ch, "erin", entitlement="pass", at_ms=NOW - 20 * DAY).explanations
    assert active.entitlement.state == pb.ent.ENTITLEMENT_STATE_ACTIVE


def test_unknown_user_and_bad_requests(pb, seeded):
    nobody = explain(pb, seeded, "nobody")
    assert list(nobody.explanations) == [] and nobody.evaluated_at_ms > 0
    for request, words in [(dict(user="", at_ms=0), "user_id is required"), (dict(user="active", at_ms=-1), "at_ms")]:
        with pytest.raises(grpc.RpcError) as error:
            explain(pb, seeded, request["user"], at_ms=request["at_ms"])
        assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert words in error.value.details()
