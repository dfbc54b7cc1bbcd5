"""The App Store Server API flags (issue 11): all three key flags or none, --bundle-id with them,
the key read and checked at startup (and never logged), --receipt-mode and --app-store-api-rate
validated; the same through ENTITLEMENTD_* variables."""
import os
import subprocess

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from fake_server_api import FakeServerAPI


def run(binary, *args, tmp_path, env=None):
    environment = {k: v for k, v in os.environ.items() if not k.startswith("ENTITLEMENTD_")}
    environment.update(env or {})
    return subprocess.run([str(binary), "--listen", "127.0.0.1:0", "--database", str(tmp_path / "db.sqlite"), *args],
                          capture_output=True, text=True, timeout=15, cwd=tmp_path, env=environment)


def write_key(path, key):
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    return str(path)


@pytest.mark.parametrize("given,missing", [
    (["--app-store-key", "k.p8"], ["--app-store-key-id", "--app-store-issuer-id"]),
    (["--app-store-key-id", "K"], ["--app-store-key", "--app-store-issuer-id"]),
    (["--app-store-key", "k.p8", "--app-store-issuer-id", "I"], ["--app-store-key-id"]),
])
def test_key_flags_go_together_and_exit_2_names_what_is_missing(binary, tmp_path, given, missing):
    r = run(binary, *given, "--bundle-id", "com.example.app", tmp_path=tmp_path)
    assert r.returncode == 2, r.stderr
    for flag in missing:
        assert flag in r.stderr.split("missing")[1], r.stderr


def test_the_same_through_the_environment(binary, tmp_path):
    r = run(binary, tmp_path=tmp_path, env={"ENTITLEMENTD_APP_STORE_KEY_ID": "K", "ENTITLEMENTD_BUNDLE_ID": "b"})
    assert r.returncode == 2 and "missing --app-store-key, --app-store-issuer-id" in r.stderr, r.stderr


def test_bundle_id_is_required_with_a_key(binary, tmp_path):
    api = FakeServerAPI(tmp_path)
    try:
        flags = api.flags()
        i = flags.index("--bundle-id")
        r = run(binary, *(flags[:i] + flags[i + 2:]), tmp_path=tmp_path)
        assert r.returncode == 2 and "--bundle-id" in r.stderr, r.stderr
    finally:
        api.close()


@pytest.mark.parametrize("kind", ["missing", "garbage", "rsa", "p384"])
def test_an_unusable_key_stops_startup_with_a_message(binary, tmp_path, kind):
    path = tmp_path / "AuthKey.p8"
    if kind == "garbage":
        path.write_text("-----BEGIN PRIVATE KEY-----\nnot base64 at all\n-----END PRIVATE KEY-----\n")
    elif kind == "rsa":
        write_key(path, rsa.generate_private_key(public_exponent=65537, key_size=2048))
    elif kind == "p384":
        write_key(path, ec.generate_private_key(ec.SECP384R1()))
    r = run(binary, "--app-store-key", str(path), "--app-store-key-id", "K", "--app-store-issuer-id", "I",
            "--bundle-id", "com.example.app", tmp_path=tmp_path)
    assert r.returncode == 2, r.stderr
    expected = {"missing": "cannot be read", "garbage": "not a PEM private key", "rsa": "not an EC key",
                "p384": "secp384r1"}[kind]
    assert "--app-store-key" in r.stderr and expected in r.stderr, r.stderr
    if kind != "missing":
        assert path.read_text().splitlines()[1][:20] not in r.stderr  # no key material echoed


@pytest.mark.parametrize("args,fragment", [
    (["--receipt-mode", "sometimes"], "--receipt-mode must be"),
    (["--receipt-mode", "server-api"], "--receipt-mode server-api needs"),
    (["--app-store-api-rate", "0"], "--app-store-api-rate"),
    (["--app-store-api-rate", "fast"], "--app-store-api-rate"),
    (["--refund-preference", "grant"], "--refund-preference must be none, decline, grant-full or grant-prorated"),
])
def test_mode_and_rate_are_checked(binary, tmp_path, args, fragment):
    r = run(binary, *args, tmp_path=tmp_path)
    assert r.returncode == 2 and fragment in r.stderr, r.stderr


def test_the_key_is_never_logged(server, tmp_path):
    api = FakeServerAPI(tmp_path)
    try:
        s = server(*api.flags(), "--log-level", "debug")
        s.stop()
        secret_lines = [line for line in api.key_path.read_text().splitlines() if "PRIVATE KEY" not in line]
        logs = s.stderr() + (s.workdir / "stdout.log").read_text()
        assert "App Store Server API in use" in logs
        assert not any(line in logs for line in secret_lines)
    finally:
        api.close()


def test_help_lists_the_server_api_flags(binary, tmp_path):
    r = subprocess.run([str(binary), "--help"], capture_output=True, text=True, timeout=15, cwd=tmp_path)
    for flag in ("--app-store-key PATH", "--app-store-key-id", "--app-store-issuer-id", "--app-store-api-url",
                 "--app-store-api-sandbox-url", "--receipt-mode", "--app-store-api-rate", "--refund-preference"):
        assert flag in r.stdout
