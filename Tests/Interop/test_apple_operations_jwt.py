"""Apple's operations against the scripted fake (fake_server_api.py), which checks every
request's JWT with Python's `cryptography`, independently of the service's OpenSSL code:
ExtendSubscription's and the consumption answer's requests as Apple receives them, and
LookUpOrder refusing forged, tampered and other-bundle transactions."""
import json
import time
import urllib.request

import grpc

import apple_pki
from apple_pki import DAY_MS, PKI, transaction
from fake_server_api import ISSUER_ID, KEY_ID
from fast_signer import FastSigner
from test_server_api import api, pki, rpc_error, signer, start, stub, submit_id, subscription  # noqa: F401


def assert_apple_shaped_token(call):
    assert call["status"] in (200, 202), call.get("reason")
    assert call["header"] == {"alg": "ES256", "kid": KEY_ID, "typ": "JWT"}
    assert call["claims"]["iss"] == ISSUER_ID and call["claims"]["aud"] == "appstoreconnect-v1"
    assert call["claims"]["bid"] == "com.example.app"


def test_extend_sends_apples_body_with_a_valid_jwt(pb, start, api, signer):
    signed, status = subscription(signer, 80_000, 1)
    api.add_customer(["80000"], signed, statuses=[status])
    s = start()
    submit_id(pb, s, "jwt-extend", "80000")
    reply = stub(pb, s).ExtendSubscription(pb.ent.ExtendSubscriptionRequest(
        user_id="jwt-extend", original_transaction_id="80000", extend_by_days=9, reason_code=2), timeout=30)
    [call] = api.calls_to("extend")
    assert_apple_shaped_token(call)
    assert call["method"] == "PUT" and call["path"] == "inApps/v1/subscriptions/extend/80000"
    body = call["body"]
    assert (body["extendByDays"], body["extendReasonCode"]) == (9, 2)
    assert len(body["requestIdentifier"]) == 36 and body["requestIdentifier"] == body["requestIdentifier"].lower()
    expires = apple_pki.decode_payload(signed[-1])["expiresDate"]
    assert reply.effective_at_ms == expires + 9 * DAY_MS
    assert reply.entitlement.expires_at_ms == expires + 9 * DAY_MS


def test_lookup_refuses_forged_tampered_and_other_bundle_transactions(pb, start, api, signer, tmp_path):
    rogue = FastSigner(PKI(tmp_path / "rogue", "Rogue"))
    now = apple_pki.now_ms()
    good = signer.sign(transaction(81_000, purchase=now - DAY_MS, expires=now + DAY_MS, signed=now,
                                   environment="Production"))
    forged = rogue.sign(transaction(81_001, purchase=now - DAY_MS, expires=now + DAY_MS, signed=now,
                                    environment="Production"))
    tampered = apple_pki.replace_payload(good, {**apple_pki.decode_payload(good), "productId": "free.upgrade"})
    other = signer.sign(transaction(81_002, purchase=now - DAY_MS, expires=now + DAY_MS, signed=now,
                                    environment="Production", bundle_id="com.other.app"))
    api.orders.update({"MKGOOD": [good], "MKFORGED": [good, forged], "MKTAMPERED": [tampered], "MKOTHER": [other]})
    s = start()
    reply = stub(pb, s).LookUpOrder(pb.ent.LookUpOrderRequest(order_id="MKGOOD"), timeout=30)
    assert reply.found and [t.transaction_id for t in reply.transactions] == ["81000"]
    for order in ("MKFORGED", "MKTAMPERED", "MKOTHER"):
        error = rpc_error(lambda: stub(pb, s).LookUpOrder(pb.ent.LookUpOrderRequest(order_id=order), timeout=30))
        assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, order
        assert "failed verification" in error.details() and "nothing was stored" in error.details()
    for call in api.calls_to("lookup"):
        assert_apple_shaped_token(call)


def test_consumption_answer_carries_apples_fields_and_a_valid_jwt(pb, start, api, signer):
    signed, status = subscription(signer, 82_000, 1)
    api.add_customer(["82000"], signed, statuses=[status])
    s = start("--refund-preference", "decline")
    submit_id(pb, s, "jwt-consumer", "82000")
    stub(pb, s).RecordConsumption(pb.ent.RecordConsumptionRequest(
        user_id="jwt-consumer", transaction_id="82000", customer_consented=True, consumption_percentage=100_000,
        delivery_status="DELIVERED"), timeout=30)
    # Apple's CONSUMPTION_REQUEST, signed by the test PKI the server trusts, at the webhook.
    payload = {"notificationType": "CONSUMPTION_REQUEST",
               "notificationUUID": "c0ffee00-0000-4000-8000-000000082000", "version": "2.0",
               "signedDate": apple_pki.now_ms(),
               "data": {"bundleId": "com.example.app", "environment": "Production", "appAppleId": 1,
                        "signedTransactionInfo": signed[-1], "consumptionRequestReason": "LEGAL"}}
    body = json.dumps({"signedPayload": signer.sign(payload)}).encode()
    request = urllib.request.Request(f"http://{s.address}/apple/notifications", data=body, method="POST",
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200
    deadline = time.monotonic() + 30
    while not api.calls_to("consumption") and time.monotonic() < deadline:
        time.sleep(0.1)
    [call] = api.calls_to("consumption")
    assert_apple_shaped_token(call)
    assert call["path"] == "inApps/v2/transactions/consumption/82000"
    assert call["body"] == {"customerConsented": True, "consumptionPercentage": 100_000,
                            "deliveryStatus": "DELIVERED", "sampleContentProvided": False,
                            "refundPreference": "DECLINE"}
