"""Identity and ownership from outside: app account tokens issued by GetAppAccountToken, a V2
notification carrying one binding its purchase to the token's user with no SubmitReceipt, and
the claim rules (a bare transaction id never takes another account's purchase; a purchase bound
by token never moves), seen through gRPC, ListHistory, /metrics and entitlementctl."""
import json
import re
import shutil
import subprocess
import time
import uuid

import grpc
import pytest

import apple_pki
from apple_pki import DAY_MS, PKI, Signer, notification, renewal, transaction
from cluster import metrics_text
from conftest import admin_address
from fake_server_api import FakeServerAPI
from fast_signer import FastSigner

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
PATH = "/apple/notifications"


@pytest.fixture(scope="session")
def pki(tmp_path_factory):
    if not shutil.which("openssl"):
        pytest.skip("the openssl CLI is needed to generate the test PKI")
    return PKI(tmp_path_factory.mktemp("identity-pki"), "Test")


@pytest.fixture(scope="session")
def signer(pki):
    return Signer(pki)


@pytest.fixture(scope="session")
def api_signer(pki):
    return FastSigner(pki)


@pytest.fixture
def api(tmp_path):
    fake = FakeServerAPI(tmp_path)
    yield fake
    fake.close()


def stub(pb, s):
    return pb.ent_grpc.EntitlementServiceStub(s.channel())


def token_of(pb, s, user):
    return stub(pb, s).GetAppAccountToken(pb.ent.GetAppAccountTokenRequest(user_id=user), timeout=10).app_account_token


def rpc_error(call):
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value


def post(s, payload_jws):
    import http.client
    conn = http.client.HTTPConnection(s.host, s.port, timeout=30)
    try:
        conn.request("POST", PATH, body=json.dumps({"signedPayload": payload_jws}).encode(),
                     headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def subscribed(signer, chain, token):
    """A SUBSCRIBED notification for a new monthly chain bought with `token` (None: without)."""
    now = apple_pki.now_ms()
    extra = {} if token is None else {"appAccountToken": token}
    tx = transaction(chain, purchase=now - DAY_MS, expires=now + 29 * DAY_MS, signed=now - 1000, **extra)
    info = renewal(chain, signed=now - 1000, **extra)
    return tx, notification("SUBSCRIBED", subtype="INITIAL_BUY", signed=now - 500,
                            signed_transaction=signer.sign(tx), signed_renewal=signer.sign(info))


def refused_total(s, reason):
    match = re.search(r'^entitlementd_claims_refused_total\{reason="%s"\} (\d+)' % reason, metrics_text(s), re.M)
    return int(match.group(1)) if match else 0


def test_tokens_are_uuids_issued_once_per_user_and_kept_across_restarts(pb, server, tmp_path):
    database = tmp_path / "tokens.sqlite"
    s = server("--database", database)
    alice = token_of(pb, s, "alice")
    assert UUID.match(alice), alice
    assert token_of(pb, s, "alice") == alice
    assert token_of(pb, s, "bob") != alice
    error = rpc_error(lambda: token_of(pb, s, ""))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert s.stop() == 0
    again = server("--database", database)
    assert token_of(pb, again, "alice") == alice, "stored, not derived per process"


def test_a_subscribed_notification_with_the_users_token_makes_them_active_alone(pb, server, pki, signer):
    s = server("--apple-root-ca", pki.root_pem_path)
    token = token_of(pb, s, "token-user")
    tx, payload = subscribed(signer, 7_100_000, token.upper())
    assert post(s, signer.sign(payload)) == 200
    reply = stub(pb, s).CheckEntitlement(pb.ent.CheckEntitlementRequest(user_id="token-user"), timeout=10)
    assert reply.active, "active from Apple's notification alone, with no SubmitReceipt"
    [e] = reply.entitlements
    assert e.app_account_token == token and e.original_transaction_id == tx["originalTransactionId"]

    # Another account presenting the signed transaction is refused, whatever it holds.
    error = rpc_error(lambda: stub(pb, s).SubmitReceipt(
        pb.ent.SubmitReceiptRequest(user_id="mallory", signed_transaction=signer.sign(tx)), timeout=10))
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "token-user" not in error.details()
    assert stub(pb, s).CheckEntitlement(pb.ent.CheckEntitlementRequest(user_id="token-user"), timeout=10).active
    events = stub(pb, s).ListHistory(pb.ent.ListHistoryRequest(user_id="token-user"), timeout=10).events
    refused = [e for e in events if e.type == pb.ent.EVENT_TYPE_CLAIM_REFUSED]
    assert len(refused) == 1 and "mallory" in refused[0].reason
    assert refused_total(s, "token") == 1

    # A token this service never issued binds nothing: the purchase waits for a claim.
    _, foreign = subscribed(signer, 7_200_000, str(uuid.uuid4()))
    assert post(s, signer.sign(foreign)) == 200
    _, malformed = subscribed(signer, 7_300_000, "not-a-uuid")
    assert post(s, signer.sign(malformed)) == 200, "a malformed token is never an error for the notification"
    assert "appAccountToken is not a UUID" in s.stderr()


def test_a_transaction_id_alone_cannot_take_a_paying_customers_purchase(pb, server, pki, api, api_signer):
    """The attack: `entitlementctl submit attacker --transaction-id <the customer's id>`."""
    now = apple_pki.now_ms()
    signed = [api_signer.sign(transaction(8_000_000, purchase=now - DAY_MS, expires=now + 29 * DAY_MS,
                                          signed=now - 1000, environment="Production"))]
    status = {"status": 1, "originalTransactionId": "8000000", "signedTransactionInfo": signed[-1],
              "signedRenewalInfo": api_signer.sign(renewal(8_000_000, signed=now - 1000, environment="Production"))}
    api.add_customer(["8000000"], signed, statuses=[status])
    s = server(*api.flags(), "--apple-root-ca", pki.root_pem_path, "--transfer-policy", "transfer")
    submit = lambda user: stub(pb, s).SubmitReceipt(  # noqa: E731
        pb.ent.SubmitReceiptRequest(user_id=user, transaction_id="8000000"), timeout=30)
    assert submit("customer").entitlements[0].active, "a bare id still claims a purchase nobody owns"
    assert submit("customer").entitlements[0].active, "and refreshes the owner's own"

    error = rpc_error(lambda: submit("attacker"))
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "receipt" in error.details() and "signed" in error.details(), error.details()
    check = lambda user: stub(pb, s).CheckEntitlement(  # noqa: E731
        pb.ent.CheckEntitlementRequest(user_id=user), timeout=10)
    assert check("customer").active and not check("attacker").active
    events = stub(pb, s).ListHistory(pb.ent.ListHistoryRequest(user_id="customer"), timeout=10).events
    assert [e.type for e in events if e.type == pb.ent.EVENT_TYPE_CLAIM_REFUSED] == [pb.ent.EVENT_TYPE_CLAIM_REFUSED]
    assert refused_total(s, "bare_transaction_id") == 1


def test_owners_lists_the_accounts_a_purchase_passed_through(pb, server, pki, signer, binary):
    s = server("--apple-root-ca", pki.root_pem_path, "--transfer-policy", "transfer", "--admin-listen", "127.0.0.1:0")
    now = apple_pki.now_ms()
    tx = transaction(7_400_000, purchase=now - DAY_MS, expires=now + 29 * DAY_MS, signed=now - 1000)
    for user in ["first", "second", "third"]:
        stub(pb, s).SubmitReceipt(pb.ent.SubmitReceiptRequest(user_id=user, signed_transaction=signer.sign(tx)),
                                  timeout=10)
    assert re.search(r"^entitlementd_ownership_transfers_total (\d+)", metrics_text(s), re.M).group(1) == "2"
    ctl = binary.parent / "entitlementctl"
    if not ctl.exists():
        pytest.skip(f"no entitlementctl beside {binary}")
    out = subprocess.run([str(ctl), "--server", s.address, "--admin", admin_address(s), "--json", "owners", "7400000"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    owners = json.loads(out.stdout)["owners"]
    assert [o["user_id"] for o in owners] == ["first", "second", "third"]
    assert "until_ms" not in owners[-1] and all("until_ms" in o for o in owners[:-1])
    token = subprocess.run([str(ctl), "--server", s.address, "app-account-token", "first"],
                           capture_output=True, text=True, timeout=30)
    assert token.returncode == 0 and token.stdout.strip() == token_of(pb, s, "first")


def test_a_device_proof_of_a_tokenless_purchase_asks_apple_to_set_the_users_token(pb, server, pki, api, api_signer):
    now = apple_pki.now_ms()
    tx = transaction(8_100_000, purchase=now - DAY_MS, expires=now + 29 * DAY_MS, signed=now - 1000,
                     environment="Production")
    signed = api_signer.sign(tx)
    api.add_customer(["8100000"], [signed])
    s = server(*api.flags(), "--apple-root-ca", pki.root_pem_path)
    stub(pb, s).SubmitReceipt(pb.ent.SubmitReceiptRequest(user_id="device-user", signed_transaction=signed),
                              timeout=30)
    deadline = time.monotonic() + 10
    while not api.calls_to("app_account_token") and time.monotonic() < deadline:
        time.sleep(0.05)
    [call] = api.calls_to("app_account_token")
    assert call["method"] == "PUT" and call["path"] == "inApps/v1/transactions/8100000/appAccountToken"
    assert call["body"] == {"appAccountToken": token_of(pb, s, "device-user")}
    # A second submission of the now-owned chain asks nothing more.
    stub(pb, s).SubmitReceipt(pb.ent.SubmitReceiptRequest(user_id="device-user", signed_transaction=signed),
                              timeout=30)
    time.sleep(0.3)
    assert len(api.calls_to("app_account_token")) == 1
