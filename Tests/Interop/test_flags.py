"""Command-line errors exit 2 with a message on stderr; --help and --version exit 0; what the
flags leave off or misspell is said at startup, as JSON too with --log-format json."""
import json
import os
import signal
import subprocess
import time

import pytest


def _run(binary, *args, tmp_path):
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=15, cwd=tmp_path)


@pytest.mark.parametrize("args", [
    ["--threads", "abc"],
    ["--nope"],
    ["--threads", "0"],
    ["--listen", "no-port-here"],
    ["--max-message-size", "12"],
    ["--idle-timeout", "soon"],
    ["--threads"],
])
def test_bad_flag_exits_2_with_message(binary, tmp_path, args):
    r = _run(binary, *args, tmp_path=tmp_path)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert r.stderr.strip(), "no message on stderr"
    assert "listening" not in r.stdout


def test_help_exits_0_and_lists_flags(binary, tmp_path):
    r = _run(binary, "--help", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    for flag in ("--listen", "--auth-tokens-file", "--max-message-size", "--header-read-timeout"):
        assert flag in r.stdout


def test_unreadable_tokens_file_exits_2(binary, tmp_path):
    r = _run(binary, "--listen", "127.0.0.1:0", "--database", str(tmp_path / "db.sqlite"),
             "--auth-tokens-file", str(tmp_path / "missing"), tmp_path=tmp_path)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "auth-tokens-file" in r.stderr


def _run_env(binary, tmp_path, env, *args):
    return subprocess.run([str(binary), "--listen", "127.0.0.1:0", "--database", str(tmp_path / "db.sqlite"), *args],
                          capture_output=True, text=True, timeout=15, cwd=tmp_path, env={**os.environ, **env})


# Issue 16: an env file line left empty (`ENTITLEMENTD_APPLE_SHARED_SECRET=`) was read as the
# secret "", and a V1 notification without a password then authenticated. Every empty value is
# refused at startup, naming the variable, so the unfilled line cannot go unnoticed.
@pytest.mark.parametrize("variable", [
    "ENTITLEMENTD_APPLE_SHARED_SECRET",
    "ENTITLEMENTD_AUTH_TOKENS_FILE",
    "ENTITLEMENTD_BUNDLE_ID",
    "ENTITLEMENTD_CATALOG",
])
def test_empty_environment_value_exits_2_naming_the_variable(binary, tmp_path, variable):
    r = _run_env(binary, tmp_path, {variable: ""})
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert f"{variable} is set but empty" in r.stderr, r.stderr
    assert "listening" not in r.stdout


@pytest.mark.parametrize("args", [["--apple-shared-secret="], ["--apple-shared-secret", ""]])
def test_empty_shared_secret_flag_exits_2(binary, tmp_path, args):
    r = _run_env(binary, tmp_path, {}, *args)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "--apple-shared-secret" in r.stderr and "empty" in r.stderr, r.stderr


@pytest.mark.parametrize("contents", ["", "\n\n   \n", "# tokens go here, one per line\n\n"])
def test_tokens_file_without_tokens_exits_2(binary, tmp_path, contents):
    tokens = tmp_path / "tokens"
    tokens.write_text(contents)
    tokens.chmod(0o600)
    r = _run_env(binary, tmp_path, {}, "--auth-tokens-file", str(tokens))
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "--auth-tokens-file" in r.stderr and "no tokens" in r.stderr, r.stderr


@pytest.mark.parametrize("args,env", [
    (["--apple-shared-secret", "   "], {}),
    (["--apple-shared-secret=\t "], {}),
    ([], {"ENTITLEMENTD_APPLE_SHARED_SECRET": "  "}),
])
def test_whitespace_only_secret_exits_2_like_an_empty_one(binary, tmp_path, args, env):
    r = _run_env(binary, tmp_path, env, *args)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "only whitespace" in r.stderr and "apple-shared-secret" in r.stderr.lower().replace("_", "-"), r.stderr


def test_version_prints_and_exits_0(binary, tmp_path):
    r = _run(binary, "--version", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("entitlementd ") and r.stdout.split()[1][0].isdigit(), r.stdout


def test_help_lists_the_subcommands_and_version(binary, tmp_path):
    r = _run(binary, "--help", tmp_path=tmp_path)
    assert "migrate-store" in r.stdout and "--version" in r.stdout, r.stdout


def _started_and_stopped(binary, tmp_path, env, *args):
    """Starts entitlementd, waits for its listen line, stops it (SIGTERM); (exit code, stderr)."""
    stdout, stderr = tmp_path / "out.log", tmp_path / "err.log"
    with open(stdout, "wb") as out, open(stderr, "wb") as err:
        proc = subprocess.Popen([str(binary), "--listen", "127.0.0.1:0", "--database", str(tmp_path / "db.sqlite"),
                                 *args], stdout=out, stderr=err, cwd=tmp_path, env={**os.environ, **env})
    try:
        deadline = time.monotonic() + 20
        while "listening on" not in stdout.read_text() and time.monotonic() < deadline:
            assert proc.poll() is None, stderr.read_text()
            time.sleep(0.02)
        assert "listening on" in stdout.read_text(), stderr.read_text()
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=15)
    return code, stderr.read_text()


def test_unknown_environment_variable_warns_with_the_nearest_flag_and_starts(binary, tmp_path):
    env = {"ENTITLEMENTD_APPLE_SHARED_SECRT": "s3cret-value-9d1", "ENTITLEMENTD_LISTN": "x",
           # The tests' own variables share the prefix and are not flags: no warning for them.
           "ENTITLEMENTD_TEST_POSTGRES_URL": "postgresql://u@h/d", "ENTITLEMENTD_BIN": str(binary)}
    code, log = _started_and_stopped(binary, tmp_path, env, "--log-format", "json")
    assert code == 0, log
    warnings = [json.loads(line) for line in log.splitlines() if "unknown environment variable" in line]
    assert sorted((w["variable"], w["did_you_mean"]) for w in warnings) == [
        ("ENTITLEMENTD_APPLE_SHARED_SECRT", "ENTITLEMENTD_APPLE_SHARED_SECRET"),
        ("ENTITLEMENTD_LISTN", "ENTITLEMENTD_LISTEN")], log
    assert all(w["level"] == "warning" for w in warnings)
    assert "s3cret-value-9d1" not in log, "the value is never logged (it may be a secret)"


def test_startup_warns_once_per_missing_capability(binary, tmp_path):
    code, log = _started_and_stopped(binary, tmp_path, {})
    assert code == 0, log
    secret = [line for line in log.splitlines() if "no --apple-shared-secret" in line]
    key = [line for line in log.splitlines() if "no App Store Server API key" in line]
    assert len(secret) == 1 and "V1 notifications will be refused with 401" in secret[0], log
    assert len(key) == 1 and "no reconciliation" in key[0] and "RefreshEntitlements" in key[0], log
    code, log = _started_and_stopped(binary, tmp_path, {"ENTITLEMENTD_APPLE_SHARED_SECRET": "s3cret"})
    assert "no --apple-shared-secret" not in log


def test_json_logging_covers_every_line_from_startup_to_exit(binary, tmp_path):
    code, log = _started_and_stopped(binary, tmp_path, {"ENTITLEMENTD_TYPO": "1"}, "--log-format", "json")
    assert code == 0, log
    lines = log.splitlines()
    assert len(lines) >= 5, log
    for line in lines:
        record = json.loads(line)
        assert {"time", "level", "message"} <= record.keys(), line


def test_json_logging_covers_a_refused_start_too(binary, tmp_path):
    r = _run_env(binary, tmp_path, {"ENTITLEMENTD_LOG_FORMAT": "json"}, "--threads", "0")
    assert r.returncode == 2
    records = [json.loads(line) for line in r.stderr.splitlines()]
    assert records and records[-1]["level"] == "error" and "--threads" in records[-1]["message"], r.stderr
