"""Command-line errors exit 2 with a message on stderr; --help exits 0."""
import os
import subprocess

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
