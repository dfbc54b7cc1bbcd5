"""GET /metrics after traffic: the Prometheus text parses and the counters moved."""
import json
import time
import urllib.request

from pathlib import Path

import grpc
from prometheus_client.parser import text_string_to_metric_families

from cluster import metrics_text


def scrape(server):
    return {f.name: f for f in text_string_to_metric_families(metrics_text(server))}


def sample(families, family, name, **labels):
    if family not in families:
        return None
    for s in families[family].samples:
        if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
            return s.value
    return None


def test_metrics_move_with_traffic(pb, default_server):
    ch = default_server.channel()
    stub = pb.ent_grpc.EntitlementServiceStub(ch)
    before = scrape(default_server)
    now = int(time.time() * 1000)
    facts = {"transactions": [{"transaction_id": "m1", "original_transaction_id": "m1", "product_id": "pro",
                               "purchase_date_ms": now - 1000, "expires_date_ms": now + 86_400_000}]}
    pb.testing_grpc.TestingStub(ch).Seed(pb.testing.SeedRequest(user_id="metrics", facts_json=json.dumps(facts)))
    for _ in range(7):
        stub.CheckEntitlement(pb.ent.CheckEntitlementRequest(user_id="metrics"), timeout=5)
    try:
        stub.CheckEntitlement(pb.ent.CheckEntitlementRequest(user_id=""), timeout=5)
    except grpc.RpcError:
        pass
    after = scrape(default_server)

    check = "/entitlement.v1.EntitlementService/CheckEntitlement"
    ok_before = sample(before, "entitlementd_rpc_requests", "entitlementd_rpc_requests_total", method=check, code="OK") or 0
    assert sample(after, "entitlementd_rpc_requests", "entitlementd_rpc_requests_total", method=check, code="OK") == ok_before + 7
    assert sample(after, "entitlementd_rpc_requests", "entitlementd_rpc_requests_total",
                  method=check, code="INVALID_ARGUMENT") == 1
    count = sample(after, "entitlementd_rpc_duration_seconds", "entitlementd_rpc_duration_seconds_count", method=check)
    assert count == ok_before + 8
    inf = sample(after, "entitlementd_rpc_duration_seconds", "entitlementd_rpc_duration_seconds_bucket",
                 method=check, le="+Inf")
    assert inf == count, "the +Inf bucket counts every observation"
    assert sample(after, "entitlementd_store_commit_duration_seconds",
                  "entitlementd_store_commit_duration_seconds_count") >= 1
    assert sample(after, "entitlementd_store_batch_writes", "entitlementd_store_batch_writes_sum") >= 1
    assert sample(after, "entitlementd_open_connections", "entitlementd_open_connections") >= 1
    assert sample(after, "process_resident_memory_bytes", "process_resident_memory_bytes") > 1_000_000


def test_unknown_methods_do_not_add_label_values(pb, default_server):
    ch = default_server.channel()
    for i in range(20):
        call = ch.unary_unary(f"/made.up.Service/Method{i}")
        try:
            call(b"", timeout=5)
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.UNIMPLEMENTED
    families = scrape(default_server)
    methods = {s.labels.get("method") for s in families["entitlementd_rpc_requests"].samples}
    assert "unknown" in methods
    assert not any(m and m.startswith("/made.up") for m in methods)


def test_notifications_are_counted(pb, server):
    s = server("--apple-shared-secret", "S")
    sample_path = Path(__file__).resolve().parents[3] / "shared" / "samples" / "notification-v1-did-renew-sandbox.json"
    notification = json.loads(sample_path.read_text())
    notification["password"] = "wrong"
    body = json.dumps(notification).encode()
    request = urllib.request.Request(f"http://{s.address}/apple/notifications", data=body, method="POST")
    try:
        urllib.request.urlopen(request, timeout=5)
    except urllib.error.HTTPError as error:
        assert error.code == 401
    families = scrape(s)
    assert sample(families, "entitlementd_notifications", "entitlementd_notifications_total",
                  version="v1", type="unverified", outcome="rejected") == 1
