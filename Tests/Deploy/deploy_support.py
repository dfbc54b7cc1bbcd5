"""Shared by the Deploy/ checks: paths, names, the skip policy and small helpers."""
import os
import re
import shutil
import random
import socket
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "Deploy"
PROTOS = REPO / "Protos"
sys.path.insert(0, str(REPO / "Tests" / "Interop"))  # fake_apple, apple_pki, ports
import ports  # noqa: E402
LISTEN_PREFIX = "entitlementd listening on "
SERVER_NAME = "entitlements.example.com"
TOKEN = "deploy-check-token-0123456789abcdef"
SHARED_SECRET = "deploy-check-shared-secret"


def strict() -> bool:
    ci = os.environ.get("CI", "").strip().lower()
    return os.environ.get("DEPLOY_CHECKS") == "strict" or ci not in ("", "0", "false", "no")


def cannot_run(reason: str):
    """Skips (or, in CI / strict mode, fails) a check whose tool cannot run here."""
    if strict():
        pytest.fail(f"{reason} (a skip is a failure in CI / DEPLOY_CHECKS=strict)")
    pytest.skip(reason)


def need_tool(name: str) -> str:
    path = shutil.which(name) or next((p for p in (f"/usr/sbin/{name}", f"/sbin/{name}") if os.access(p, os.X_OK)), None)
    if not path:
        cannot_run(f"{name} is not installed (Scripts/lib/test-deploy.sh installs it with apt-get)")
    return path


def free_port() -> int:
    """A free port below the kernel's ephemeral range (ports.py, shared with the interop suite):
    a port 0 picks was taken again by some outgoing connection of the tests running beside these
    before haproxy could bind it ("Address already in use")."""
    return ports.free_port()


def free_port_block(count: int) -> int:
    """The first of `count` consecutive free ports, below the kernel's ephemeral range.

    Two free_port() calls often return ports two apart, so blocks counted up from each of them
    overlapped (a replica's admin port was another replica's service port).
    """
    for _ in range(200):
        base = random.randrange(20000, 30000 - count)
        held = []
        try:
            for port in range(base, base + count):
                s = socket.socket()
                held.append(s)
                s.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
        finally:
            for s in held:
                s.close()
    raise RuntimeError(f"no {count} consecutive free ports between 20000 and 30000")


def env_file_assignments(text: str):
    """(name, value, commented) for every ENTITLEMENTD_* line of an EnvironmentFile."""
    found = []
    for line in text.splitlines():
        m = re.match(r"^\s*(#?)\s*(ENTITLEMENTD_[A-Z0-9_]+)=(.*)$", line)
        if m:
            found.append((m.group(2), m.group(3), m.group(1) == "#"))
    return found


