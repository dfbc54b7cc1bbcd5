"""`entitlementctl refunds USER`: the user's refunds from Apple's refund history (appstore-sim's
GET /inApps/v2/refund/lookup), verified, only the user's own chains; nothing without the key."""
import json
import subprocess

import pytest

from conftest import admin_address
from test_apple_operations import ADMIN, BACKEND, Stack, subscribe


@pytest.fixture
def stack(binary, server, tmp_path):
    made = Stack(binary, server, tmp_path, tmp_path / "apple.sqlite")
    yield made
    made.sim.stop()


def ctl(binary, stack, *args):
    return subprocess.run([str(binary.parent / "entitlementctl"), "--server", stack.daemon.address, "--admin",
                           admin_address(stack.daemon), "--token", ADMIN, *args],
                          capture_output=True, text=True, timeout=120)


def test_refunds_lists_the_users_refunded_transactions(pb, binary, stack):
    stack.start("--admin-listen", "127.0.0.1:0")
    kept = subscribe(pb, stack, "refunded-user")
    coins = stack.sim.control("purchase", {"product_id": "coins.100", "user_token": "refunded-user"})
    stack.stub().call(pb, "SubmitReceipt", pb.ent.SubmitReceiptRequest(
        user_id="refunded-user", transaction_id=coins["transaction_id"]), token=BACKEND, timeout=60)
    refunded = stack.sim.control("refund", {"transaction_id": coins["transaction_id"]})
    result = ctl(binary, stack, "--json", "refunds", "refunded-user")
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert [(r["transaction_id"], r["product_id"], r["refund_date_ms"]) for r in answer["refunds"]] == [
        (coins["transaction_id"], "coins.100", refunded["cancellation_date_ms"])]
    table = ctl(binary, stack, "refunds", "refunded-user").stdout
    assert coins["transaction_id"] in table and kept["transaction_id"] not in table
    assert "no refunds" in ctl(binary, stack, "refunds", "nobody").stdout


def test_refunds_without_the_key_says_what_to_configure(binary, stack):
    stack.start("--admin-listen", "127.0.0.1:0", key=False)
    result = ctl(binary, stack, "refunds", "u")
    assert result.returncode == 3 and "--app-store-key" in result.stderr
