"""--admin-listen: /metrics and the admin operations on a separate, private port, behind the
bearer tokens when a tokens file is configured; the service port's /metrics then answers 404.
Without it /metrics stays on the service port and the admin operations are off (the startup log
and entitlementctl say so)."""
import os
import socket
import subprocess
import urllib.error
import urllib.request

import grpc
import pytest
from prometheus_client.parser import text_string_to_metric_families

from conftest import ADMIN_PREFIX, admin_address, health_check

TOKEN = "admin-listener-token-9f3e"


def get(address, path, token=None):
    """(status, headers, body) of GET http://address/path."""
    request = urllib.request.Request(f"http://{address}{path}")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode()


def tokens(tmp_path):
    path = tmp_path / "tokens"
    path.write_text(f"# admin and RPC callers\n{TOKEN}\n")
    os.chmod(path, 0o600)
    return path


@pytest.mark.single_process("counts in one process's /metrics; in the cluster the calls spread over the replicas")
def test_metrics_move_to_the_admin_port(pb, server):
    s = server("--admin-listen", "127.0.0.1:0")
    admin = admin_address(s)
    assert admin != s.address
    health_check(pb, s.channel())

    status, _, _ = get(s.address, "/metrics")
    assert status == 404, "the service port must not serve /metrics when an admin listener is configured"
    assert get(s.address, "/healthz")[0] == 200, "health stays on the service port"

    status, headers, body = get(admin, "/metrics")
    assert status == 200
    assert headers["content-type"].startswith("text/plain")
    families = {f.name: f for f in text_string_to_metric_families(body)}
    checks = [x for x in families["entitlementd_rpc_requests"].samples
              if x.labels.get("method") == "/grpc.health.v1.Health/Check" and x.labels.get("code") == "OK"]
    assert checks and checks[0].value >= 1, "the admin port serves the service's own registry"
    assert get(admin, "/healthz")[0] == 404, "the admin port serves only admin routes"
    assert "admin listener" in s.stderr()


def test_without_admin_listener_metrics_stay_on_the_service_port_and_the_log_says_so(default_server):
    assert get(default_server.address, "/metrics")[0] == 200
    lines = default_server.stdout_path.read_text().splitlines()
    assert not any(line.startswith(ADMIN_PREFIX) for line in lines)
    assert "no --admin-listen" in default_server.stderr()


def test_admin_operations_are_served_on_the_admin_port_only(server, binary, tmp_path):
    """Without --admin-listen they are off, and entitlementctl says how to turn them on; with it,
    the service port still answers 404 (saying where they are) and the admin port serves them."""
    ctl = binary.parent / "entitlementctl"
    plain = server()
    status, _, body = get(plain.address, "/admin/webhooks")
    assert status == 404 and "--admin-listen" in body, body
    out = subprocess.run([str(ctl), "--server", plain.address, "webhooks", "status"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 2 and "--admin HOST:PORT" in out.stderr and "--admin-listen" in out.stderr, out.stderr
    out = subprocess.run([str(ctl), "--admin", plain.address, "webhooks", "status"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode != 0 and "--admin-listen" in out.stderr, out.stderr

    s = server("--admin-listen", "127.0.0.1:0", "--auth-tokens-file", tokens(tmp_path))
    assert get(s.address, "/admin/webhooks", TOKEN)[0] == 404, "a token does not open them on the service port"
    assert get(admin_address(s), "/admin/webhooks", TOKEN)[0] == 200


def test_admin_port_requires_the_bearer_token_when_tokens_are_configured(pb, server, tmp_path):
    s = server("--admin-listen", "127.0.0.1:0", "--auth-tokens-file", tokens(tmp_path))
    admin = admin_address(s)
    for token in (None, "", "wrong-token", TOKEN + "x"):
        status, headers, body = get(admin, "/metrics", token)
        assert status == 401, (token, status)
        assert headers["www-authenticate"] == "Bearer"
        assert "entitlementd_" not in body
    status, _, body = get(admin, "/metrics", TOKEN)
    assert status == 200 and "entitlementd_open_connections" in body
    # The service port hides /metrics from everyone, token or not.
    assert get(s.address, "/metrics", TOKEN)[0] == 404


def test_admin_port_without_tokens_file_is_open(server):
    s = server("--admin-listen", "127.0.0.1:0")
    assert get(admin_address(s), "/metrics")[0] == 200


def test_bad_admin_address_exits_2(binary, tmp_path):
    r = subprocess.run([str(binary), "--listen", "127.0.0.1:0", "--database", str(tmp_path / "db.sqlite"),
                        "--admin-listen", "no-port"], capture_output=True, text=True, timeout=15, cwd=tmp_path)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "--admin-listen must be HOST:PORT" in r.stderr


def test_admin_port_in_use_fails_startup(binary, tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = subprocess.run([str(binary), "--listen", "127.0.0.1:0", "--database", str(tmp_path / "db.sqlite"),
                            "--admin-listen", f"127.0.0.1:{port}"], capture_output=True, text=True, timeout=30,
                           cwd=tmp_path)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "admin-listen" in r.stderr
    assert "listening on" not in r.stdout, "nothing may claim to be serving when the admin port failed"
