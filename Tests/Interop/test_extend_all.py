"""`entitlementctl extend-all`: Apple's mass renewal-date extension after an outage, appstore-sim
as Apple. It starts one, `--status` follows it, and Apple's RENEWAL_EXTENDED notifications move
each subscriber's expiry here; bad input is refused before Apple is asked."""
import re
import subprocess
import time

import pytest

from conftest import admin_address
from test_apple_operations import ADMIN, DAY_MS, Stack, check, subscribe


@pytest.fixture
def stack(binary, server, tmp_path):
    made = Stack(binary, server, tmp_path, tmp_path / "apple.sqlite")
    yield made
    made.sim.stop()


def ctl(binary, stack, *args):
    return subprocess.run([str(binary.parent / "entitlementctl"), "--server", stack.daemon.address, "--admin",
                           admin_address(stack.daemon), "--token", ADMIN, *args],
                          capture_output=True, text=True, timeout=120)


def test_extend_all_moves_every_active_subscribers_expiry_and_status_follows_it(pb, binary, stack):
    stack.start("--admin-listen", "127.0.0.1:0")
    first = subscribe(pb, stack, "outage-1")
    second = subscribe(pb, stack, "outage-2")
    started = ctl(binary, stack, "extend-all", "--product", "pro.monthly", "--days", "3", "--storefronts", "usa,CAN")
    assert started.returncode == 0, started.stderr
    request_id = re.search(r"mass extension (\S+) started", started.stdout).group(1)
    status = ctl(binary, stack, "extend-all", "--product", "pro.monthly", "--status", request_id)
    assert status.returncode == 0, status.stderr
    assert f"{request_id}: complete" in status.stdout and "2 extended, 0 failed" in status.stdout
    stack.wait_delivered()
    for user, tx in (("outage-1", first), ("outage-2", second)):
        deadline = time.monotonic() + 10
        while check(pb, stack, user).entitlements[0].expires_at_ms != tx["expires_date_ms"] + 3 * DAY_MS:
            assert time.monotonic() < deadline, f"{user}'s expiry never moved"
            time.sleep(0.1)
    # The same request id again starts nothing new at Apple (the sim extends once per id).
    assert ctl(binary, stack, "extend-all", "--product", "pro.monthly", "--status", "not-a-request").returncode == 3


@pytest.mark.parametrize("args,words", [
    (["--days", "91"], "--days"), (["--days", "0"], "--days"), (["--days", "3", "--reason-code", "4"], "--reason-code"),
    (["--days", "3", "--storefronts", "US"], "alpha-3"),
])
def test_bad_input_is_refused_before_apple_is_asked(binary, stack, args, words):
    stack.start("--admin-listen", "127.0.0.1:0")
    result = ctl(binary, stack, "extend-all", "--product", "pro.monthly", *args)
    assert result.returncode in (2, 3) and words in result.stderr, result.stderr
    assert not any(key.startswith("POST v1/subscriptions/extend/mass") for key in stack.api_requests())


def test_without_the_key_extend_all_says_what_to_configure(binary, stack):
    stack.start("--admin-listen", "127.0.0.1:0", key=False)
    result = ctl(binary, stack, "extend-all", "--product", "pro.monthly", "--days", "3")
    assert result.returncode == 3 and "--app-store-key" in result.stderr
