"""`entitlementctl apple test-notification`: Apple (appstore-sim) sends TEST to the webhook; the
command reports Apple's send attempts and exits 0 only when the TEST reached this entitlementd."""
import json
import subprocess

import pytest

from conftest import admin_address
from test_apple_operations import ADMIN, Stack


@pytest.fixture
def stack(binary, server, tmp_path):
    made = Stack(binary, server, tmp_path, tmp_path / "apple.sqlite")
    yield made
    made.sim.stop()


def ctl(binary, stack, *args):
    return subprocess.run([str(binary.parent / "entitlementctl"), "--server", stack.daemon.address, "--admin",
                           admin_address(stack.daemon), "--token", ADMIN, *args],
                          capture_output=True, text=True, timeout=120)


def test_a_test_notification_that_arrives_exits_0_with_apples_attempts(binary, stack):
    stack.start("--admin-listen", "127.0.0.1:0")
    for environment in ("production", "sandbox"):
        result = ctl(binary, stack, "apple", "test-notification", "--environment", environment)
        assert result.returncode == 0, result.stderr + result.stdout
        assert f"({environment}): arrived at the webhook" in result.stdout
        assert "SUCCESS" in result.stdout
    report = json.loads(ctl(binary, stack, "--json", "apple", "test-notification").stdout)
    assert report["arrived"] is True and report["environment"] == "production"
    assert [a["result"] for a in report["send_attempts"]] == ["SUCCESS"]
    assert stack.api_requests().get("POST v1/notifications/test Production 200") == 2


def test_a_test_notification_that_never_arrives_exits_3(binary, stack):
    stack.start("--admin-listen", "127.0.0.1:0")
    stack.sim.control("drop-webhooks", {"drop": "all"})
    result = ctl(binary, stack, "apple", "test-notification", "--wait", "2s")
    assert result.returncode == 3, result.stderr + result.stdout
    assert "did NOT arrive" in result.stdout


def test_without_the_key_the_admin_call_says_what_to_configure(binary, stack):
    stack.start("--admin-listen", "127.0.0.1:0", key=False)
    result = ctl(binary, stack, "apple", "test-notification")
    assert result.returncode == 3
    assert "--app-store-key" in result.stderr
