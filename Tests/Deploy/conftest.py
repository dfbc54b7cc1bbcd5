"""Fixtures for the Deploy/ checks (Scripts/lib/test-deploy.sh runs them): the production
entitlementd started from the shipped env file, nginx running the shipped config in a temp
prefix with a throwaway certificate, and the tools' own checks.

A check whose tool cannot run on this machine is skipped with the reason, except in CI (CI set
to anything but "", 0 or false) or with DEPLOY_CHECKS=strict: there a skip is a failure, since
Scripts/test installs every tool these checks need.
"""
import os
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest

from deploy_support import (DEPLOY, LISTEN_PREFIX, PROTOS, REPO, SHARED_SECRET, SERVER_NAME, TOKEN,
                            env_file_assignments, need_tool)


@pytest.fixture(scope="session")
def entitlementd() -> Path:
    """The production binary: $ENTITLEMENTD_PRODUCTION_BIN, else beside $ENTITLEMENTD_BIN,
    else the debug build."""
    explicit = os.environ.get("ENTITLEMENTD_PRODUCTION_BIN")
    if explicit:
        path = Path(explicit)
    elif os.environ.get("ENTITLEMENTD_BIN"):
        path = Path(os.environ["ENTITLEMENTD_BIN"]).parent / "entitlementd"
    else:
        path = REPO / ".build" / "debug" / "entitlementd"
    if not os.access(path, os.X_OK):
        pytest.fail(f"entitlementd not found at {path}: build it (swift build) or set ENTITLEMENTD_PRODUCTION_BIN")
    return path.resolve()


@pytest.fixture(scope="session")
def help_text(entitlementd) -> str:
    r = subprocess.run([str(entitlementd), "--help"], capture_output=True, text=True, timeout=15)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.fixture(scope="session")
def pb(tmp_path_factory):
    from grpc_tools import protoc

    out = tmp_path_factory.mktemp("stubs")
    for include, name in [("grpc/health/v1", "health.proto"), ("entitlement/v1", "entitlement.proto")]:
        if protoc.main(["protoc", f"-I{PROTOS / include}", f"--python_out={out}", f"--grpc_python_out={out}", name]) != 0:
            pytest.fail(f"protoc failed for {include}/{name}")
    sys.path.insert(0, str(out))
    import entitlement_pb2, entitlement_pb2_grpc, health_pb2, health_pb2_grpc

    return types.SimpleNamespace(health=health_pb2, health_grpc=health_pb2_grpc,
                                 ent=entitlement_pb2, ent_grpc=entitlement_pb2_grpc)


@pytest.fixture(scope="module")
def apple():
    from fake_apple import FakeApple

    fake = FakeApple(password=SHARED_SECRET)
    yield fake
    fake.close()


@pytest.fixture(scope="module")
def backend(entitlementd, apple, tmp_path_factory):
    """entitlementd with the shipped env file's settings, as systemd's EnvironmentFile= would
    pass them, with only the paths, the port and Apple's endpoints replaced for this machine."""
    work = tmp_path_factory.mktemp("backend")
    tokens = work / "tokens"
    tokens.write_text(f"# deploy check\n{TOKEN}\n")
    tokens.chmod(0o600)
    shipped = {name: value for name, value, commented in env_file_assignments((DEPLOY / "entitlementd.env").read_text())
               if not commented}
    overrides = {
        "ENTITLEMENTD_LISTEN": "127.0.0.1:0",
        "ENTITLEMENTD_ADMIN_LISTEN": "127.0.0.1:0",
        "ENTITLEMENTD_DATABASE": str(work / "entitlements.sqlite"),
        "ENTITLEMENTD_AUTH_TOKENS_FILE": str(tokens),
        "ENTITLEMENTD_APPLE_PRODUCTION_URL": apple.production_url,
        "ENTITLEMENTD_APPLE_SANDBOX_URL": apple.sandbox_url,
        "ENTITLEMENTD_APPLE_SHARED_SECRET": SHARED_SECRET,
    }
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENTITLEMENTD_")}
    env.update(shipped)
    env.update(overrides)
    stdout, stderr = work / "stdout.log", work / "stderr.log"
    with open(stdout, "wb") as out, open(stderr, "wb") as err:
        proc = subprocess.Popen([str(entitlementd)], env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=work)
    deadline = time.monotonic() + 20
    address = None
    while time.monotonic() < deadline and address is None:
        text = stdout.read_text(errors="replace")
        if "\n" in text:
            line = text.split("\n", 1)[0]
            assert line.startswith(LISTEN_PREFIX), f"unexpected first line {line!r}; stderr: {stderr.read_text()}"
            address = line[len(LISTEN_PREFIX):].strip()
        elif proc.poll() is not None:
            pytest.fail(f"entitlementd exited {proc.returncode} with the shipped env file: {stderr.read_text()}")
        else:
            time.sleep(0.02)
    if address is None:
        proc.kill()
        pytest.fail(f"entitlementd did not start within 20 s: {stderr.read_text()}")
    yield types.SimpleNamespace(address=address, port=int(address.rsplit(":", 1)[1]), proc=proc,
                                stderr=stderr, shipped=shipped)
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = None
    assert code == 0, f"entitlementd exit {code} after SIGTERM; stderr tail: {stderr.read_text()[-2000:]}"


@pytest.fixture(scope="session")
def certificate(tmp_path_factory):
    """A throwaway self-signed certificate for SERVER_NAME: (cert path, key path)."""
    openssl = need_tool("openssl")
    work = tmp_path_factory.mktemp("tls")
    cert, key = work / "cert.pem", work / "key.pem"
    r = subprocess.run([openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-days", "2", "-subj", f"/CN={SERVER_NAME}",
                        "-addext", f"subjectAltName=DNS:{SERVER_NAME}", "-keyout", str(key), "-out", str(cert)],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return cert, key
