"""entitlementctl, the command-line client, run as a process against a seeded entitlementd.

The binary is expected next to $ENTITLEMENTD_BIN (both come from the same build)."""
import http.client
import json
import os
import socket
import subprocess
import time

import pytest

from fake_apple import FakeApple
from test_entitlements import DAY, NOW, seed, tx

TOKEN = "ctl-token-0123456789"


@pytest.fixture(scope="session")
def ctl(binary):
    path = binary.parent / "entitlementctl"
    if not os.access(path, os.X_OK):
        pytest.fail(f"entitlementctl not found at {path}: build it next to entitlementd")

    def run(*args, server=None, env=None, stdin=None):
        argv = [str(path)] + ([f"--server={server.address}"] if server is not None else []) + [str(a) for a in args]
        environment = {k: v for k, v in os.environ.items() if not k.startswith("ENTITLEMENTCTL_")}
        environment.update(env or {})
        return subprocess.run(argv, capture_output=True, text=True, timeout=30, env=environment, input=stdin)

    return run


@pytest.fixture
def seeded(pb, default_server):
    ch = default_server.channel()
    seed(pb, ch, "alice", [
        tx("2000", "2000", "pro.monthly", NOW - 70 * DAY, NOW - 40 * DAY, is_trial_period="true"),
        tx("2001", "2000", "pro.monthly", NOW - 40 * DAY, NOW - 10 * DAY),
        tx("2002", "2000", "pro.monthly", NOW - 10 * DAY, NOW + 20 * DAY),
    ], [{"original_transaction_id": "2000", "auto_renew_status": True, "signed_date_ms": NOW}])
    seed(pb, ch, "bob", [tx("3000", "3000", "pro.monthly", NOW - 40 * DAY, NOW - 10 * DAY)])
    return default_server


def iso(ms):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + \
        (f".{ms % 1000:03d}" if ms % 1000 else "") + "Z"


def test_check_active_prints_a_table_and_exits_0(ctl, seeded):
    result = ctl("check", "alice", "--product", "pro.monthly", server=seeded)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "ACTIVE"
    header = next(line for line in lines if line.startswith("PRODUCT"))
    for column in ["STATE", "EXPIRES", "AUTO-RENEW", "TRIAL", "ENTITLEMENT", "ORIGINAL TX"]:
        assert column in header
    row = next(line for line in lines if line.startswith("pro.monthly")).split()
    assert row[1] == "active" and row[2] == iso(NOW + 20 * DAY) and row[3] == "yes" and row[-1] == "2000"


def test_check_inactive_and_unknown_users_exit_1(ctl, seeded):
    expired = ctl("check", "bob", server=seeded)
    assert expired.returncode == 1, expired.stderr
    assert expired.stdout.splitlines()[0] == "NOT ACTIVE"
    assert "expired" in expired.stdout
    nobody = ctl("check", "nobody", server=seeded)
    assert nobody.returncode == 1 and "(no entitlements)" in nobody.stdout


def test_check_json_has_the_proto_json_fields(ctl, seeded):
    before = int(time.time() * 1000)
    result = ctl("--json", "check", "alice", server=seeded)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["active"] is True
    # Evaluated at the call, not at NOW (the module's import, minutes earlier in a loaded run).
    assert before - 1_000 <= int(answer["evaluatedAtMs"]) <= int(time.time() * 1000) + 1_000
    [e] = answer["entitlements"]
    assert e["productId"] == "pro.monthly" and e["originalTransactionId"] == "2000"
    assert e["state"] == "ENTITLEMENT_STATE_ACTIVE" and e["active"] is True
    assert int(e["expiresAtMs"]) == NOW + 20 * DAY
    assert e["willAutoRenew"] is True and e["latestTransactionId"] == "2002"
    assert e["productType"] == "PRODUCT_TYPE_AUTO_RENEWABLE"
    for field in ["purchasedAtMs", "gracePeriodExpiresAtMs", "isTrialPeriod", "isInIntroOfferPeriod",
                  "subscriptionGroupId", "environment", "entitlementId"]:
        assert field in e
    inactive = ctl("check", "bob", "--json", server=seeded)
    assert inactive.returncode == 1 and json.loads(inactive.stdout)["active"] is False


def test_check_at_a_past_instant(ctl, seeded):
    at = NOW - 50 * DAY
    for text in [str(at), iso(at)]:
        result = ctl("check", "alice", "--at", text, "--json", server=seeded)
        assert result.returncode == 0, result.stderr
        answer = json.loads(result.stdout)
        assert int(answer["evaluatedAtMs"]) == at
        assert answer["entitlements"][0]["latestTransactionId"] == "2000"
        assert answer["entitlements"][0]["isTrialPeriod"] is True
    before = ctl("check", "alice", "--at", "2000-01-01T00:00:00Z", server=seeded)
    assert before.returncode == 1 and before.stdout.startswith("NOT ACTIVE")


def test_explain_prints_the_reason_and_the_chain(ctl, seeded):
    result = ctl("explain", "alice", server=seeded)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("as of ")
    assert "pro.monthly: active (entitlement pro.monthly, original transaction 2000)" in lines
    assert f"  why: ACTIVE: the period of transaction 2002 runs until {iso(NOW + 20 * DAY)}" in lines
    header = next(line for line in lines if "TRANSACTION" in line)
    for column in ["PRODUCT", "PURCHASED", "EXPIRES", "REVOKED", "UPGRADED", "SOURCE"]:
        assert column in header
    rows = [line.split() for line in lines[lines.index(header) + 1:]]
    assert rows[0][:2] == ["*", "2002"] and rows[0][-1] == "receipt", "newest first, the decisive one marked"
    assert [row[0] for row in rows[1:]] == ["2001", "2000"]

    past = ctl("explain", "alice", "--at", iso(NOW - 50 * DAY), "--product", "pro.monthly", server=seeded)
    assert past.returncode == 0, past.stderr
    assert f"as of {iso(NOW - 50 * DAY)}" == past.stdout.splitlines()[0]
    assert "ACTIVE: the period of transaction 2000 (a free trial)" in past.stdout
    expired = ctl("explain", "bob", "--entitlement", "pro.monthly", server=seeded)
    assert expired.returncode == 0 and "why: EXPIRED: the period of transaction 3000 ended at" in expired.stdout
    nobody = ctl("explain", "nobody", server=seeded)
    assert nobody.returncode == 0 and "(no entitlements)" in nobody.stdout


def test_explain_json_has_the_proto_json_fields(ctl, seeded):
    before = int(time.time() * 1000)
    result = ctl("explain", "bob", "--json", server=seeded)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert before - 1_000 <= int(answer["evaluatedAtMs"]) <= int(time.time() * 1000) + 1_000
    [x] = answer["explanations"]
    assert x["entitlement"]["state"] == "ENTITLEMENT_STATE_EXPIRED"
    assert x["reason"] == f"EXPIRED: the period of transaction 3000 ended at {iso(NOW - 10 * DAY)}, and no later " \
        "transaction renewed it"
    assert x["transactions"] == [{
        "transactionId": "3000", "productId": "pro.monthly", "purchasedAtMs": str(NOW - 40 * DAY),
        "expiresAtMs": str(NOW - 10 * DAY), "revokedAtMs": "0", "upgraded": False,
        "source": "EVENT_SOURCE_RECEIPT", "decisive": True}]


def test_history_one_page_and_all_pages(ctl, seeded):
    page = ctl("history", "alice", "--page-size", "2", "--json", server=seeded)
    assert page.returncode == 0, page.stderr
    first = json.loads(page.stdout)
    assert [ev["transactionId"] for ev in first["events"]] == ["2002", "2001"]
    assert first["nextPageToken"]

    table = ctl("history", "alice", "--page-size", "2", server=seeded)
    assert table.returncode == 0 and "--page-token" in table.stderr
    assert sum(1 for line in table.stdout.splitlines() if "pro.monthly" in line) == 2

    everything = ctl("history", "alice", "--page-size", "2", "--all", "--json", server=seeded)
    assert everything.returncode == 0, everything.stderr
    answer = json.loads(everything.stdout)
    assert [ev["transactionId"] for ev in answer["events"]] == ["2002", "2001", "2000"]
    assert answer["events"][-1]["type"] == "EVENT_TYPE_PURCHASE"
    assert answer["events"][0]["source"] == "EVENT_SOURCE_RECEIPT"
    assert answer["nextPageToken"] == ""

    human = ctl("history", "alice", "--all", "--page-size", "1", server=seeded)
    assert human.returncode == 0 and human.stderr == ""
    lines = human.stdout.splitlines()
    assert lines[0].split()[:3] == ["OCCURRED", "TYPE", "PRODUCT"] and len(lines) == 4
    assert "purchase" in lines[3] and "renewal" in lines[1]


def test_history_shows_the_apple_notification_type(pb, ctl, server):
    """Support staff see which of Apple's notifications reported or confirmed each event: a
    column in the table (`-` when only a receipt told us), the proto field in --json."""
    s = server("--apple-shared-secret", "ctl-v1-secret")
    seed(pb, s.channel(), "vera", [tx("4000", "4000", "pro.monthly", NOW - 40 * DAY, NOW - 10 * DAY),
                                   tx("4001", "4000", "pro.monthly", NOW - 10 * DAY, NOW + 20 * DAY)])
    did_renew = {"notification_type": "DID_RENEW", "password": "ctl-v1-secret", "environment": "PROD",
                 "original_transaction_id": "4000", "auto_renew_status": "true",
                 "unified_receipt": {"status": 0, "environment": "Production", "latest_receipt_info": [
                     {"transaction_id": "4001", "original_transaction_id": "4000", "product_id": "pro.monthly",
                      "purchase_date_ms": str(NOW - 10 * DAY), "expires_date_ms": str(NOW + 20 * DAY)}]}}
    conn = http.client.HTTPConnection(s.host, s.port, timeout=30)
    conn.request("POST", "/apple/notifications", body=json.dumps(did_renew).encode(),
                 headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    assert response.status == 200, response.read()
    conn.close()

    table = ctl("history", "vera", server=s)
    assert table.returncode == 0, table.stderr
    header, *rows = table.stdout.splitlines()
    assert header.split()[-2:] == ["APPLE", "TYPE"], header
    by_transaction = {row.split()[3]: row.split() for row in rows}
    assert by_transaction["4001"][1] == "renewal" and by_transaction["4001"][-1] == "DID_RENEW"
    assert by_transaction["4000"][1] == "purchase" and by_transaction["4000"][-1] == "-"
    answer = json.loads(ctl("history", "vera", "--json", server=s).stdout)
    assert [e["appleNotificationType"] for e in answer["events"]] == ["DID_RENEW", ""]


def test_history_across_many_pages(pb, ctl, default_server):
    seed(pb, default_server.channel(), "gina",
         [tx(str(7000 + i), "7000", "pro.monthly", NOW - (130 - i) * DAY, NOW - (129 - i) * DAY) for i in range(120)])
    one = json.loads(ctl("history", "gina", "--json", server=default_server).stdout)
    assert len(one["events"]) == 50 and one["nextPageToken"]
    every = json.loads(ctl("history", "gina", "--all", "--json", server=default_server).stdout)
    ids = [ev["eventId"] for ev in every["events"]]
    assert len(ids) == 120 and len(set(ids)) == 120


def test_health(ctl, default_server):
    result = ctl("health", server=default_server)
    assert result.returncode == 0 and result.stdout.strip() == "SERVING"
    assert json.loads(ctl("health", "--json", server=default_server).stdout) == {"status": "SERVING"}
    unknown = ctl("health", "--service", "no.such.Service", server=default_server)
    assert unknown.returncode == 3 and unknown.stderr.startswith("NOT_FOUND")


def test_tokens_from_flag_and_environment(ctl, server, tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text(f"{TOKEN}\n")
    tokens.chmod(0o600)
    s = server("--auth-tokens-file", tokens)
    bad = ctl("check", "alice", "--token", "wrong", server=s)
    assert bad.returncode == 3
    assert bad.stderr.startswith("UNAUTHENTICATED: ") and "bearer token" in bad.stderr
    missing = ctl("check", "alice", server=s)
    assert missing.returncode == 3 and missing.stderr.startswith("UNAUTHENTICATED")
    assert ctl("check", "alice", "--token", TOKEN, server=s).returncode == 1
    assert ctl("check", "alice", server=s, env={"ENTITLEMENTCTL_TOKEN": TOKEN}).returncode == 1
    assert ctl("health", server=s).returncode == 0, "health needs no token"


def test_server_from_environment_and_server_down(ctl, default_server):
    via_env = ctl("health", env={"ENTITLEMENTCTL_SERVER": default_server.address})
    assert via_env.returncode == 0, via_env.stderr
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    down = ctl("check", "alice", "--server", f"127.0.0.1:{port}")
    assert down.returncode == 3
    assert down.stderr.startswith(f"UNAVAILABLE: cannot connect to 127.0.0.1:{port}")
    assert down.stdout == ""


@pytest.mark.parametrize("args", [
    [], ["check"], ["check", "a", "b"], ["frobnicate"], ["check", "alice", "--at", "yesterday"],
    ["check", "alice", "--bogus"], ["history", "alice", "--page-size", "0"], ["health", "--server", "nohost"],
    ["submit", "alice"], ["submit", "alice", "/nonexistent/receipt"], ["check", "alice", "--all"],
    ["explain"], ["explain", "alice", "--at", "soon"], ["explain", "alice", "--page-size", "3"],
])
def test_usage_errors_exit_2(ctl, args):
    result = ctl(*args, "--server", "127.0.0.1:9") if "--server" not in args else ctl(*args)
    assert result.returncode == 2, (args, result.stdout, result.stderr)
    assert result.stderr.startswith("entitlementctl: ") and result.stdout == ""


def test_help_for_every_command(ctl):
    top = ctl("--help")
    assert top.returncode == 0 and all(c in top.stdout for c in ["check", "explain", "submit", "history", "health"])
    for command, flag in [("check", "--at"), ("explain", "--entitlement"), ("submit", "RECEIPT_FILE"),
                          ("history", "--all"), ("health", "--service")]:
        page = ctl(command, "--help")
        assert page.returncode == 0 and flag in page.stdout and "exit codes" in page.stdout


def test_submit_receipt_file_and_stdin(pb, ctl, server, tmp_path):
    apple = FakeApple()
    try:
        s = server(*apple.flags())
        data = apple.receipt("production")
        receipt = tmp_path / "receipt.b64"
        # Wrapped at 76 columns, as base64(1) writes it.
        receipt.write_text("\n".join(data[i:i + 76] for i in range(0, len(data), 76)) + "\n")
        first = ctl("submit", "u1", receipt, "--json", server=s)
        assert first.returncode == 0, first.stderr
        answer = json.loads(first.stdout)
        assert answer["newTransactions"] == 2 and answer["environment"] == "ENVIRONMENT_PRODUCTION"
        again = ctl("submit", "u1", "-", server=s, stdin=data)
        assert again.returncode == 0 and again.stdout.startswith("recorded 0 new transactions")
        assert apple.calls_for(data) == ["production"] * 2
    finally:
        apple.close()


def test_submit_sends_a_jws_as_signed_transaction(ctl, default_server, tmp_path):
    jws = tmp_path / "tx.jws"
    jws.write_text("eyJhbGciOiJFUzI1NiJ9.eyJ0cmFuc2FjdGlvbklkIjoiMSJ9.c2lnbmF0dXJl\n")
    result = ctl("submit", "u1", jws, server=default_server)
    assert result.returncode == 3
    # The server judged it as a StoreKit 2 transaction, not as receipt data for Apple.
    assert result.stderr.startswith("INVALID_ARGUMENT: ") and "signed_transaction" in result.stderr, result.stderr
