"""The App Store Server API path (issue 11) against a scripted fake Apple (fake_server_api.py):
SubmitReceipt by transaction_id, RefreshEntitlements, the JWT as an independent implementation
(Python `cryptography`) sees it, paging, production -> sandbox, and how 401/404/429/5xx are
retried or not, counted in requests. Forged signed data from the API stores nothing."""
import shutil
import time

import grpc
import pytest

import apple_pki
from apple_pki import DAY_MS, PKI, PRODUCT_ID, renewal, transaction
from cluster import metrics_text
from fake_server_api import ISSUER_ID, KEY_ID, FakeServerAPI
from fast_signer import FastSigner

ACTIVE = 1
REVOKED = 5


@pytest.fixture(scope="session")
def pki(tmp_path_factory):
    if not shutil.which("openssl"):
        pytest.skip("the openssl CLI is needed to generate the test PKI")
    return PKI(tmp_path_factory.mktemp("api-pki"), "Test")


@pytest.fixture(scope="session")
def signer(pki):
    return FastSigner(pki)


@pytest.fixture
def api(tmp_path):
    fake = FakeServerAPI(tmp_path)
    yield fake
    fake.close()


@pytest.fixture
def start(server, api, pki):
    """start(*flags): a server using the fake Server API and trusting the test PKI."""
    return lambda *flags: server(*api.flags(), "--apple-root-ca", pki.root_pem_path, *flags)


def stub(pb, s):
    return pb.ent_grpc.EntitlementServiceStub(s.channel())


def submit_id(pb, s, user, transaction_id, timeout=30):
    return stub(pb, s).SubmitReceipt(pb.ent.SubmitReceiptRequest(user_id=user, transaction_id=transaction_id),
                                     timeout=timeout)


def rpc_error(call):
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value


def subscription(signer, original, periods, environment="Production", revoked_at=None):
    """`periods` monthly renewals of one chain, oldest first, the latest still running; ids
    original, original+1, ...; returns the signed transactions and the statuses entry."""
    now = apple_pki.now_ms()
    signed = []
    for i in range(periods):
        purchase = now - (periods - i) * 30 * DAY_MS + 15 * DAY_MS
        extra = {}
        if revoked_at is not None and i == periods - 1:
            extra = {"revocationDate": revoked_at, "revocationReason": 0}
        signed.append(signer.sign(transaction(original + i, original, purchase=purchase,
                                              expires=purchase + 30 * DAY_MS, signed=now - 1000,
                                              environment=environment, **extra)))
    status = {"status": REVOKED if revoked_at else ACTIVE, "originalTransactionId": str(original),
              "signedTransactionInfo": signed[-1],
              "signedRenewalInfo": signer.sign(renewal(original, signed=now - 1000, environment=environment))}
    return signed, status


def test_jwt_header_claims_and_signature_verify_with_cryptography(pb, start, api, signer):
    signed, status = subscription(signer, 5000, 2)
    api.add_customer(["5000", "5001"], signed, statuses=[status])
    s = start()
    reply = submit_id(pb, s, "jwt-user", "5001")
    assert reply.environment == pb.ent.ENVIRONMENT_PRODUCTION
    calls = api.calls
    assert [c["status"] for c in calls] == [200, 200], [c.get("reason") for c in calls]
    for call in calls:
        assert call["header"] == {"alg": "ES256", "kid": KEY_ID, "typ": "JWT"}
        claims = call["claims"]
        assert claims["iss"] == ISSUER_ID and claims["aud"] == "appstoreconnect-v1"
        assert claims["bid"] == "com.example.app"
        assert abs(claims["iat"] - time.time()) < 120
        assert 0 < claims["exp"] - claims["iat"] <= 3600
    # One token serves both requests (it is reused until shortly before it expires).
    assert len({c["token"] for c in calls}) == 1


def test_transaction_id_records_the_whole_history_across_pages(pb, start, api, signer):
    signed, status = subscription(signer, 10_000, 45)
    api.add_customer([str(10_000 + i) for i in range(45)], signed, statuses=[status])
    s = start()
    reply = submit_id(pb, s, "pages", "10044")
    assert reply.new_transactions == 45
    assert reply.apple_status == 0
    assert [e.state for e in reply.entitlements] == [pb.ent.ENTITLEMENT_STATE_ACTIVE]
    assert reply.entitlements[0].latest_transaction_id == "10044"
    history = api.calls_to("history")
    assert [c["query"].get("revision") for c in history] == [None, ["20"], ["40"]]
    assert all(c["path"] == "inApps/v2/history/10044" for c in history)
    assert len(api.calls_to("subscriptions")) == 1
    # Submitting again is idempotent: nothing new.
    assert submit_id(pb, s, "pages", "10044").new_transactions == 0


def test_not_found_in_production_asks_sandbox_and_records_sandbox(pb, start, api, signer):
    signed, status = subscription(signer, 20_000, 1, environment="Sandbox")
    api.add_customer(["20000"], signed, environment="sandbox", statuses=[status])
    s = start()
    reply = submit_id(pb, s, "sandbox-user", "20000")
    assert reply.environment == pb.ent.ENVIRONMENT_SANDBOX
    assert reply.entitlements[0].environment == pb.ent.ENVIRONMENT_SANDBOX
    assert [(c["endpoint"], c["environment"], c["status"]) for c in api.calls] == [
        ("history", "production", 404), ("history", "sandbox", 200), ("subscriptions", "sandbox", 200)]


def test_unknown_in_both_environments_is_not_found(pb, start, api):
    s = start()
    error = rpc_error(lambda: submit_id(pb, s, "nobody", "999"))
    assert error.code() == grpc.StatusCode.NOT_FOUND
    assert "neither the production nor the sandbox" in error.details()
    assert [c["environment"] for c in api.calls] == ["production", "sandbox"]


def test_401_is_failed_precondition_and_not_retried(pb, start, api):
    api.fail("history", [(401, None)])
    s = start()
    error = rpc_error(lambda: submit_id(pb, s, "u", "1234"))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "rejected the credentials" in error.details() and "first release" in error.details()
    assert len(api.calls) == 1


def test_a_key_apple_does_not_know_is_refused_by_the_fake_too(pb, server, api, pki):
    """The fake checks the signature independently: a token signed with another key fails."""
    (api.key_path.parent / "other").mkdir()
    other = FakeServerAPI(api.key_path.parent / "other")
    try:
        flags = api.flags()
        flags[flags.index("--app-store-key") + 1] = str(other.key_path)
        s = server(*flags, "--apple-root-ca", pki.root_pem_path)
        error = rpc_error(lambda: submit_id(pb, s, "u", "1234"))
        assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert [c["status"] for c in api.calls] == [401]
    finally:
        other.close()


def test_5xx_and_retryable_codes_are_retried_then_succeed(pb, start, api, signer):
    signed, status = subscription(signer, 30_000, 1)
    api.add_customer(["30000"], signed, statuses=[status])
    api.fail("history", [(503, {}), (500, {"errorCode": 5000001}), (404, {"errorCode": 4040002})])
    s = start()
    assert submit_id(pb, s, "retry", "30000").new_transactions == 1
    assert [c["status"] for c in api.calls_to("history")] == [503, 500, 404, 200]


def test_5xx_exhausts_retries_then_unavailable(pb, start, api):
    api.fail("history", [(503, {})] * 10)
    s = start()
    error = rpc_error(lambda: submit_id(pb, s, "down", "40000"))
    assert error.code() == grpc.StatusCode.UNAVAILABLE
    assert "4 attempts" in error.details()
    assert len(api.calls_to("history")) == 4


def test_429_waits_for_retry_after_within_the_deadline(pb, start, api, signer):
    signed, status = subscription(signer, 50_000, 1)
    api.add_customer(["50000"], signed, statuses=[status])
    s = start()
    retry_at = int(time.time() * 1000) + 1500
    api.fail("history", [(429, {"errorCode": 4290000}, retry_at)])
    assert submit_id(pb, s, "limited", "50000").new_transactions == 1
    history = api.calls_to("history")
    assert [c["status"] for c in history] == [429, 200]
    # The retry came no earlier than Retry-After said (10 ms for clock granularity).
    assert history[1]["at_ms"] >= retry_at - 10


def test_429_beyond_the_deadline_is_unavailable_at_once(pb, start, api):
    api.fail("history", [(429, {"errorCode": 4290000}, int(time.time() * 1000) + 120_000)])
    s = start()
    began = time.monotonic()
    error = rpc_error(lambda: submit_id(pb, s, "limited", "50000", timeout=10))
    assert error.code() == grpc.StatusCode.UNAVAILABLE
    assert "429" in error.details()
    assert time.monotonic() - began < 8  # answered, not timed out
    assert len(api.calls_to("history")) == 1


def test_forged_signed_transactions_are_rejected_and_nothing_is_stored(pb, start, api, signer, tmp_path):
    rogue = FastSigner(PKI(tmp_path / "rogue", "Rogue"))
    good, status = subscription(signer, 60_000, 2)
    forged, _ = subscription(rogue, 60_002, 1)
    tampered = apple_pki.replace_payload(good[0], {**apple_pki.decode_payload(good[0]), "productId": "free.upgrade"})
    api.add_customer(["60000"], [good[0], forged[0]], statuses=[status])
    api.add_customer(["60100"], [tampered], statuses=[status])
    other_bundle = signer.sign(transaction(60_200, purchase=apple_pki.now_ms() - DAY_MS,
                                           expires=apple_pki.now_ms() + DAY_MS, signed=apple_pki.now_ms(),
                                           environment="Production", bundle_id="com.other.app"))
    api.add_customer(["60200"], [other_bundle])
    s = start()
    for user, transaction_id in [("forged", "60000"), ("tampered", "60100"), ("other-bundle", "60200")]:
        error = rpc_error(lambda: submit_id(pb, s, user, transaction_id))
        assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, transaction_id
        assert "failed verification" in error.details() and "nothing was stored" in error.details()
        check = stub(pb, s).CheckEntitlement(pb.ent.CheckEntitlementRequest(user_id=user), timeout=5)
        assert not check.active and list(check.entitlements) == []


def test_refresh_fetches_only_whats_new_and_repairs_a_missed_refund(pb, start, api, signer):
    signed, status = subscription(signer, 70_000, 3)
    customer = api.add_customer(["70000", "70001", "70002"], signed, statuses=[status])
    s = start()
    assert submit_id(pb, s, "refresh-user", "70002").new_transactions == 3
    # Apple refunds the latest period; the notification never arrives.
    refunded = signer.sign({**apple_pki.decode_payload(signed[-1]), "revocationDate": apple_pki.now_ms() - 500,
                            "revocationReason": 0, "signedDate": apple_pki.now_ms() - 400})
    customer.signed_transactions.append(refunded)
    customer.statuses = [{**status, "status": REVOKED, "signedTransactionInfo": refunded}]
    api.calls.clear()
    reply = stub(pb, s).RefreshEntitlements(pb.ent.RefreshEntitlementsRequest(user_id="refresh-user"), timeout=30)
    assert [e.state for e in reply.entitlements] == [pb.ent.ENTITLEMENT_STATE_REVOKED]
    assert reply.new_transactions == 0  # the same transaction, now refunded
    assert abs(reply.refreshed_at_ms - time.time() * 1000) < 60_000
    history = api.calls_to("history")
    assert [(c["path"], c["query"].get("revision")) for c in history] == [("inApps/v2/history/70000", ["3"])]
    assert len(api.calls_to("subscriptions")) == 1


def test_refresh_for_a_user_with_nothing_is_ok_and_empty(pb, start, api):
    s = start()
    reply = stub(pb, s).RefreshEntitlements(pb.ent.RefreshEntitlementsRequest(user_id="nobody"), timeout=10)
    assert list(reply.entitlements) == [] and reply.new_transactions == 0
    assert api.calls == []


def test_without_a_key_transaction_id_and_refresh_are_failed_precondition(pb, default_server):
    s = default_server
    error = rpc_error(lambda: submit_id(pb, s, "u", "1000"))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "--app-store-key" in error.details()
    error = rpc_error(lambda: stub(pb, s).RefreshEntitlements(pb.ent.RefreshEntitlementsRequest(user_id="u"),
                                                              timeout=10))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION


def test_exactly_one_purchase_proof(pb, start):
    s = start()
    error = rpc_error(lambda: stub(pb, s).SubmitReceipt(pb.ent.SubmitReceiptRequest(
        user_id="u", signed_transaction="a.b.c", transaction_id="1"), timeout=10))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and "exactly one" in error.details()
    error = rpc_error(lambda: submit_id(pb, s, "u", "12ab"))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and "transaction_id" in error.details()


def test_requests_are_counted_by_endpoint_status_and_environment(pb, start, api, signer):
    signed, status = subscription(signer, 80_000, 1, environment="Sandbox")
    api.add_customer(["80000"], signed, environment="sandbox", statuses=[status])
    s = start()
    submit_id(pb, s, "metrics", "80000")
    text = metrics_text(s)
    for series in ['endpoint="transaction_history",status="404",environment="production"} 1',
                   'endpoint="transaction_history",status="200",environment="sandbox"} 1',
                   'endpoint="subscription_statuses",status="200",environment="sandbox"} 1']:
        assert "entitlementd_app_store_api_requests_total{" + series in text, series
    assert 'entitlementd_app_store_api_request_duration_seconds_count{endpoint="transaction_history"' in text


def submit_receipt(pb, s, user, receipt, timeout=30):
    return stub(pb, s).SubmitReceipt(pb.ent.SubmitReceiptRequest(user_id=user, receipt_data=receipt),
                                     timeout=timeout)


def test_receipt_data_is_read_locally_and_looked_up_once_per_original(pb, start, api, signer):
    import app_receipt
    first, first_status = subscription(signer, 90_000, 2)
    second, _ = subscription(signer, 91_000, 1)
    api.add_customer(["90000", "90001"], first, statuses=[first_status])
    api.add_customer(["91000"], second, statuses=[])
    s = start()
    receipt = app_receipt.receipt_base64([(90_000, 90_000), (90_001, 90_000), (91_000, 91_000)])
    reply = submit_receipt(pb, s, "receipt-user", receipt)
    assert reply.new_transactions == 3 and reply.apple_status == 0
    assert sorted(c["path"] for c in api.calls_to("history")) == ["inApps/v2/history/90000",
                                                                  "inApps/v2/history/91000"]


@pytest.mark.parametrize("mode", ["auto", "server-api"])
def test_receipt_without_in_app_purchase(pb, start, api, mode):
    import app_receipt
    from fake_apple import FakeApple
    apple = FakeApple()
    try:
        s = start("--receipt-mode", mode, *apple.flags())
        empty = app_receipt.receipt_base64([])
        if mode == "server-api":
            error = rpc_error(lambda: submit_receipt(pb, s, "u", empty))
            assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "no in-app purchase" in error.details()
            assert apple.calls == []
        else:
            # auto falls back to verifyReceipt (the fake does not know this receipt: 21002).
            error = rpc_error(lambda: submit_receipt(pb, s, "u", empty))
            assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and "21002" in error.details()
            assert len(apple.calls) >= 1
        assert api.calls == []
    finally:
        apple.close()


@pytest.mark.parametrize("mode", ["auto", "server-api"])
def test_an_unverified_receipt_of_another_users_chain_moves_nothing(pb, start, api, signer, mode):
    """The Server API route reads a receipt's ids without checking its signature: a receipt
    naming another user's chain counts only as verifyReceipt vouches for it (auto), or is
    refused (server-api), never as proof by itself."""
    import app_receipt
    from fake_apple import FakeApple
    signed, status = subscription(signer, 95_000, 1)
    api.add_customer(["95000"], signed, statuses=[status])
    apple = FakeApple()
    try:
        s = start("--receipt-mode", mode, *apple.flags())
        receipt = app_receipt.receipt_base64([(95_000, 95_000)])
        assert submit_receipt(pb, s, "owner", receipt).entitlements[0].active, "an unowned chain is claimed"
        error = rpc_error(lambda: submit_receipt(pb, s, "other", receipt))
        if mode == "server-api":
            assert error.code() == grpc.StatusCode.PERMISSION_DENIED
            assert "signed_transaction" in error.details()
            assert apple.calls == []
        else:
            # verifyReceipt does not know this forged-for-the-test receipt (21002): refused there.
            assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and "21002" in error.details()
            assert len(apple.calls) >= 1
        check = stub(pb, s).CheckEntitlement(pb.ent.CheckEntitlementRequest(user_id="owner"), timeout=10)
        assert check.active
    finally:
        apple.close()


def test_receipt_that_is_not_pkcs7_is_invalid_argument(pb, start, api):
    import base64
    s = start()
    for junk in [b"not a receipt at all", b"\x30\x03\x02\x01\x01", b"\x30\x80" * 50]:
        error = rpc_error(lambda: submit_receipt(pb, s, "u", base64.b64encode(junk).decode()))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "not an App Store receipt" in error.details()
    assert api.calls == []


def test_verify_receipt_mode_keeps_receipts_on_verify_receipt(pb, start, api):
    import app_receipt
    from fake_apple import FakeApple
    apple = FakeApple()
    try:
        s = start("--receipt-mode", "verify-receipt", *apple.flags())
        rpc_error(lambda: submit_receipt(pb, s, "u", app_receipt.receipt_base64([(1, 1)])))
        assert api.calls == [] and len(apple.calls) >= 1
    finally:
        apple.close()


def test_entitlementctl_submit_transaction_id_and_refresh(start, api, signer, binary):
    import json
    import os
    import subprocess
    signed, status = subscription(signer, 95_000, 2)
    api.add_customer(["95000", "95001"], signed, statuses=[status])
    s = start()
    ctl = binary.parent / "entitlementctl"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENTITLEMENTCTL_")}

    def run(*args):
        return subprocess.run([str(ctl), f"--server={s.address}", *args], capture_output=True, text=True,
                              timeout=30, env=env)

    submitted = run("submit", "ctl-user", "--transaction-id", "95001")
    assert submitted.returncode == 0, submitted.stderr
    assert "recorded 2 new transactions" in submitted.stdout and " active " in submitted.stdout
    refreshed = run("--json", "refresh", "ctl-user")
    assert refreshed.returncode == 0, refreshed.stderr
    body = json.loads(refreshed.stdout)
    assert body["newTransactions"] == 0 and int(body["refreshedAtMs"]) > 0
    assert [e["state"] for e in body["entitlements"]] == ["ENTITLEMENT_STATE_ACTIVE"]
    assert run("refresh", "ctl-user").stdout.startswith("refreshed from Apple at")
    missing = run("submit", "ctl-user")
    assert missing.returncode == 2 and "RECEIPT_FILE" in missing.stderr
    unknown = run("submit", "ctl-user", "--transaction-id", "123")
    assert unknown.returncode == 3 and unknown.stderr.startswith("NOT_FOUND")


def test_app_store_api_rate_spaces_requests(pb, start, api, signer):
    """--app-store-api-rate 4: a burst of 4, then one request per 250 ms, so 10 one-request
    submissions span at least (10 - 4) x 250 ms at the fake (a lower bound: a loaded machine
    only makes it longer)."""
    now = apple_pki.now_ms()
    for i in range(10):
        api.add_customer([str(96_000 + i)], [signer.sign(transaction(96_000 + i, purchase=now - DAY_MS, expires=None,
                                                                       signed=now - 1000, environment="Production",
                                                                       type="Non-Consumable"))])
    s = start("--app-store-api-rate", "4")
    for i in range(10):
        submit_id(pb, s, f"rate-{i}", str(96_000 + i))
    history = api.calls_to("history")
    assert len(history) == 10 and all(c["status"] == 200 for c in history)
    assert history[-1]["at_ms"] - history[0]["at_ms"] >= 6 * 250 - 50
