"""The tokens file must not be readable by other users: entitlementd refuses to start with one
(exit 2, saying how to fix it), and a SIGHUP that finds one keeps the previous tokens and logs
why. Group read is allowed."""
import signal
import subprocess
import time

import grpc
import pytest

from cluster import metrics_text

OLD_TOKEN = "old-token-5b1d0c"
NEW_TOKEN = "new-token-77e2aa"


def _sleep_code(pb, channel, token):
    try:
        pb.testing_grpc.TestingStub(channel).Sleep(
            pb.testing.SleepRequest(milliseconds=1), timeout=5, metadata=[("authorization", f"Bearer {token}")])
        return grpc.StatusCode.OK
    except grpc.RpcError as e:
        return e.code()


def _reload_metrics(server):
    """(entitlementd_auth_tokens_last_reload_successful, entitlementd_auth_tokens_reload_failures_total)."""
    values = dict(line.split() for line in metrics_text(server).splitlines()
                  if line.startswith("entitlementd_auth_tokens_"))
    return (float(values["entitlementd_auth_tokens_last_reload_successful"]),
            float(values["entitlementd_auth_tokens_reload_failures_total"]))


def _wait_for(predicate, what, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"{what} within {timeout} s"
        time.sleep(0.05)


@pytest.mark.parametrize("mode", [0o644, 0o604, 0o666, 0o444])
def test_world_readable_tokens_file_stops_startup(binary, tmp_path, mode):
    tokens = tmp_path / "tokens"
    tokens.write_text(f"{OLD_TOKEN}\n")
    tokens.chmod(mode)
    r = subprocess.run([str(binary), "--listen", "127.0.0.1:0", "--database", str(tmp_path / "db.sqlite"),
                        "--auth-tokens-file", str(tokens)], capture_output=True, text=True, timeout=15, cwd=tmp_path)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "listening" not in r.stdout
    assert f"chmod 600 {tokens}" in r.stderr, r.stderr
    assert "readable by every user" in r.stderr and oct(mode)[2:] in r.stderr, r.stderr
    assert OLD_TOKEN not in r.stderr, "the error must not quote the secrets"


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o400])
def test_private_or_group_readable_tokens_file_is_accepted(pb, server, tmp_path, mode):
    tokens = tmp_path / "tokens"
    tokens.write_text(f"{OLD_TOKEN}\n")
    tokens.chmod(mode)
    s = server("--auth-tokens-file", tokens)
    assert _sleep_code(pb, s.channel(), OLD_TOKEN) == grpc.StatusCode.OK


def test_sighup_finding_a_world_readable_file_keeps_the_old_tokens_and_says_why(pb, server, tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text(f"{OLD_TOKEN}\n")
    tokens.chmod(0o600)
    s = server("--auth-tokens-file", tokens)
    ch = s.channel()
    assert _sleep_code(pb, ch, OLD_TOKEN) == grpc.StatusCode.OK

    tokens.write_text(f"{NEW_TOKEN}\n")
    tokens.chmod(0o644)
    s.signal(signal.SIGHUP)
    _wait_for(lambda: "keeping the previous tokens" in s.stderr(), "the refused reload was logged")
    assert f"chmod 600 {tokens}" in s.stderr()
    assert NEW_TOKEN not in s.stderr() and OLD_TOKEN not in s.stderr()
    assert _sleep_code(pb, ch, OLD_TOKEN) == grpc.StatusCode.OK
    assert _sleep_code(pb, ch, NEW_TOKEN) == grpc.StatusCode.UNAUTHENTICATED
    assert s.proc.poll() is None
    # The metrics the EntitlementdAuthTokensReloadFailed alert reads.
    assert _reload_metrics(s) == (0, 1)

    # Fixed as the message says, the next reload applies.
    tokens.chmod(0o600)
    s.signal(signal.SIGHUP)
    _wait_for(lambda: _sleep_code(pb, ch, NEW_TOKEN) == grpc.StatusCode.OK, "the new token accepted after chmod 600")
    assert _sleep_code(pb, ch, OLD_TOKEN) == grpc.StatusCode.UNAUTHENTICATED
    assert _reload_metrics(s) == (1, 1), "the last reload took; the failure stays counted"
