"""Roles in the tokens file (`TOKEN name=alice roles=viewer,...`): what each role may call over
gRPC and on the admin listener, and that a line without roles= keeps every right. Grants and the
actor they record: test_grants.py."""
import os
import subprocess

import grpc
import pytest

from conftest import admin_address
from test_admin_listener import get

LEGACY = "legacy-token-4a1f"
VIEWER = "viewer-token-77c2"
SUPPORT = "support-token-19be"
RPC = "rpc-token-d30a"
ADMIN = "admin-token-e5b8"


def write_tokens(tmp_path, text):
    path = tmp_path / "tokens"
    path.write_text(text)
    os.chmod(path, 0o600)
    return path


@pytest.fixture
def roles_server(server, tmp_path):
    path = write_tokens(tmp_path, f"""# every kind of line
{LEGACY}
{VIEWER} name=vera roles=viewer
{SUPPORT} name=sam roles=support
{RPC} name=backend roles=rpc
{ADMIN} name=root roles=admin
""")
    return server("--auth-tokens-file", path, "--admin-listen", "127.0.0.1:0")


def check_code(pb, channel, token):
    stub = pb.ent_grpc.EntitlementServiceStub(channel)
    try:
        stub.CheckEntitlement(pb.ent.CheckEntitlementRequest(user_id="u"), timeout=5,
                              metadata=[("authorization", f"Bearer {token}")])
        return grpc.StatusCode.OK, ""
    except grpc.RpcError as e:
        return e.code(), e.details()


def test_service_rpcs_need_rpc_or_admin(pb, roles_server):
    ch = roles_server.channel()
    for token in (LEGACY, RPC, ADMIN):
        assert check_code(pb, ch, token)[0] == grpc.StatusCode.OK, token
    code, details = check_code(pb, ch, VIEWER)
    assert code == grpc.StatusCode.PERMISSION_DENIED
    assert details == ("token 'vera' has roles viewer; this needs admin or rpc: "
                       "add the role to its roles= in the tokens file")
    assert VIEWER not in details
    assert check_code(pb, ch, SUPPORT)[0] == grpc.StatusCode.PERMISSION_DENIED
    assert check_code(pb, ch, "nobody")[0] == grpc.StatusCode.UNAUTHENTICATED


def test_admin_listener_needs_admin(roles_server):
    address = admin_address(roles_server)
    assert get(address, "/metrics", LEGACY)[0] == 200
    assert get(address, "/metrics", ADMIN)[0] == 200
    for token in (VIEWER, SUPPORT, RPC):
        status, _, body = get(address, "/metrics", token)
        assert status == 403, token
        assert "needs admin" in body and token not in body
    assert get(address, "/metrics", "nobody")[0] == 401


@pytest.mark.parametrize("line, message", [
    ("tok roles=viewer,root", "unknown role 'root'"),
    ("tok role=admin", "unknown field 'role='"),
])
def test_an_unreadable_line_stops_startup_naming_the_line_not_the_token(binary, tmp_path, line, message):
    path = write_tokens(tmp_path, f"# header\n{line}\n")
    r = subprocess.run([str(binary), "--listen", "127.0.0.1:0", "--database", str(tmp_path / "db.sqlite"),
                        "--auth-tokens-file", str(path)], capture_output=True, text=True, timeout=15, cwd=tmp_path)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert f"tokens file line 2: {message}" in r.stderr, r.stderr
    assert "tok " not in r.stderr
