"""appstore-sim's App Store Server API checked from outside: tokens minted by Python's
`cryptography` with the .p8 it wrote, Apple's 401s, paging, and the faults it injects."""
import time

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from appstore_sim import Sim


@pytest.fixture
def sim(binary, tmp_path):
    sim_bin = binary.parent / "appstore-sim"
    if not sim_bin.exists():
        pytest.fail(f"{sim_bin} not built (swift build builds every product)")
    running = Sim(sim_bin, tmp_path, "--api-page-size", "2")
    yield running
    running.stop()


def test_the_p8_is_pkcs8_p256_and_only_apple_shaped_tokens_pass(sim):
    text = sim.key_path.read_text()
    assert text.startswith("-----BEGIN PRIVATE KEY-----"), "PKCS#8 PEM, as App Store Connect's .p8"
    assert sim.key_path.stat().st_mode & 0o077 == 0, "a private key is owner-only"
    tx = sim.control("purchase", {"product_id": "pro.monthly", "user_token": "alice"})["transaction_id"]
    now = int(time.time())
    cases = {
        "valid": (None, None, None, 200),
        "another key": (None, None, ec.generate_private_key(ec.SECP256R1()), 401),
        "unknown kid": ({"kid": "NOTMYKEY01"}, None, None, 401),
        "wrong iss": (None, {"iss": "someone"}, None, 401),
        "wrong aud": (None, {"aud": "appstoreconnect-v2"}, None, 401),
        "wrong bid": (None, {"bid": "com.example.other"}, None, 401),
        "expired": (None, {"iat": now - 1300, "exp": now - 60}, None, 401),
        "lives 61 minutes": (None, {"exp": now + 3660}, None, 401),
    }
    for name, (header, claims, key, expected) in cases.items():
        status, body, headers = sim.request("GET", f"/inApps/v1/transactions/{tx}",
                                            token=sim.token(header, claims, key))
        assert status == expected, f"{name}: {status} {body} {headers.get('x-appstore-sim-reason')}"
    status, _, _ = sim.request("GET", f"/inApps/v1/transactions/{tx}", token=False)
    assert status == 401, "no Authorization header"


def test_history_pages_and_the_other_environment_says_4040010(sim):
    tx = sim.control("purchase", {"product_id": "pro.monthly", "user_token": "alice"})["transaction_id"]
    for _ in range(2):
        sim.control("renew", {"original_transaction_id": tx})
    seen, revision, pages = [], None, 0
    while True:
        query = f"?revision={revision}" if revision else ""
        status, body, _ = sim.request("GET", f"/inApps/v2/history/{tx}{query}")
        assert status == 200, body
        seen += body["signedTransactions"]
        revision, pages = body["revision"], pages + 1
        if not body["hasMore"]:
            break
    assert (len(seen), pages) == (3, 2)
    status, body, _ = sim.request("GET", f"/sandbox/inApps/v2/history/{tx}")
    assert (status, body["errorCode"]) == (404, 4040010)


def test_armed_faults_answer_429_then_5xx_and_are_counted(sim):
    tx = sim.control("purchase", {"product_id": "pro.monthly", "user_token": "alice"})["transaction_id"]
    sim.control("api-fault", {"status": 429, "count": 1, "retry_after_ms": 2000})
    before = int(time.time() * 1000)
    status, body, headers = sim.request("GET", f"/inApps/v1/transactions/{tx}")
    assert (status, body["errorCode"]) == (429, 4290000)
    assert before + 1500 <= int(headers["retry-after"]) <= int(time.time() * 1000) + 2500, "Unix ms"
    sim.control("api-fault", {"status": 500, "count": 2, "error_code": 5000001})
    assert [sim.request("GET", f"/inApps/v1/transactions/{tx}")[0] for _ in range(3)] == [500, 500, 200]
    tally = sim.get("/control/api-requests")
    assert tally["requests"]["GET v1/transactions Production 500"] == 2
    assert tally["total"] == 4


def test_receipts_are_pkcs7_app_receipts_holding_the_transaction_ids(sim, tmp_path):
    """The receipt a purchase returns is PKCS#7 SignedData (openssl verifies its signature
    against the certificates it carries) whose content is Apple's attribute SET: type 17 per
    in-app purchase, with 1703 transaction_id and 1705 original_transaction_id."""
    import base64
    import shutil
    import subprocess
    if not shutil.which("openssl"):
        pytest.skip("the openssl CLI is needed to read PKCS#7")
    first = sim.control("purchase", {"product_id": "pro.monthly", "user_token": "alice"})
    renewed = sim.control("renew", {"original_transaction_id": first["transaction_id"]})
    receipt = tmp_path / "receipt.der"
    receipt.write_bytes(base64.b64decode(renewed["receipt_data"]))
    content = tmp_path / "content.der"
    verified = subprocess.run(["openssl", "cms", "-verify", "-noverify", "-inform", "DER", "-in", str(receipt),
                               "-out", str(content)], capture_output=True, text=True)
    assert verified.returncode == 0, verified.stderr
    dump = subprocess.run(["openssl", "asn1parse", "-inform", "DER", "-in", str(content), "-dump"],
                          capture_output=True, text=True, check=True).stdout
    raw = content.read_bytes()
    for transaction_id in (first["transaction_id"], renewed["transaction_id"]):
        assert transaction_id.encode() in raw, dump
    assert raw.count(b"\x02\x02\x06\xa7") == 2, "one 1703 (transaction_id) per in-app purchase"
    assert raw.count(b"\x02\x02\x06\xa9") == 2, "one 1705 (original_transaction_id) per in-app purchase"
    assert raw.count(first["transaction_id"].encode()) == 3, "1703 and 1705 of the first, 1705 of the renewal"
