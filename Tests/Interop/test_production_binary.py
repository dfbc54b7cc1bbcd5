"""The production entitlementd has no test-only service: the interop suite runs against
entitlementd-testing, and these tests hold the production binary from the same build to what
it must not do (serve entitlementd.testing.v1 under any flag or environment variable)."""
import contextlib
import json
import subprocess

import grpc
import pytest

from conftest import Server, assert_serving


def _seed(pb, address):
    with grpc.insecure_channel(address) as ch:
        return pb.testing_grpc.TestingStub(ch).Seed(
            pb.testing.SeedRequest(user_id="u1", facts_json=json.dumps({"transactions": [
                {"transaction_id": "t1", "product_id": "pro.monthly", "purchase_date_ms": 1}]})),
            timeout=5)


def test_production_binary_rejects_the_old_testing_flag(production_binary, tmp_path):
    r = subprocess.run([str(production_binary), "--listen", "127.0.0.1:0", "--database", str(tmp_path / "db.sqlite"),
                        "--enable-testing-service"], capture_output=True, text=True, timeout=15, cwd=tmp_path)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "enable-testing-service" in r.stderr
    assert "listening" not in r.stdout


@contextlib.contextmanager
def _serving_production(pb, production_binary, tmp_path):
    """The production binary started on its own database, serving; stopped cleanly after."""
    workdir = tmp_path / "prod"
    workdir.mkdir()
    server = Server(production_binary, workdir, ["--database", str(workdir / "db.sqlite")])
    try:
        assert_serving(pb, server)
        yield server
    finally:
        assert server.stop() == 0, server.stderr()


def test_production_binary_answers_unimplemented_even_with_the_old_environment_variable(
        pb, production_binary, tmp_path, monkeypatch):
    monkeypatch.setenv("ENTITLEMENTD_ENABLE_TESTING_SERVICE", "1")
    with _serving_production(pb, production_binary, tmp_path) as server:
        with pytest.raises(grpc.RpcError) as err:
            _seed(pb, server.address)
        assert err.value.code() == grpc.StatusCode.UNIMPLEMENTED, err.value.details()
        # The variable is named once, as any ENTITLEMENTD_* that is no flag; nothing else says testing.
        lines = server.stderr().lower().splitlines()
        unknown = [line for line in lines if "unknown environment variable" in line]
        assert len(unknown) == 1 and "entitlementd_enable_testing_service" in unknown[0], lines
        assert not any("testing" in line for line in lines if line not in unknown), lines


def test_test_executable_serves_the_testing_service_and_says_so(pb, default_server):
    assert _seed(pb, default_server.address).new_transactions == 1
    assert "entitlementd.testing.v1" in default_server.stderr()


def test_production_binary_starts_when_glibc_hands_freed_blocks_out_at_once(pb, production_binary, tmp_path,
                                                                            monkeypatch):
    # With glibc's per-thread cache off, a freed block is reused by the next malloc: the built-in
    # Apple root was read through a BIO over an array the optimizer had already released, and the
    # release binary stopped at startup ("embedded Apple Root CA - G3 does not parse").
    monkeypatch.setenv("GLIBC_TUNABLES", "glibc.malloc.tcache_count=0")
    with _serving_production(pb, production_binary, tmp_path):
        pass
