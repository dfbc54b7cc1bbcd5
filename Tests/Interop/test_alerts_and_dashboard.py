"""Deploy/prometheus/alerts.yml and Deploy/grafana/entitlementd.json read only series entitlementd
really exports: entitlementd wired to appstore-sim (Server API, verifyReceipt, V2 notifications),
a webhook receiver and a tokens file is driven until every labelled series exists, and each
metric name the rules and the dashboard use must be in its /metrics. The dashboard file is a
Grafana dashboard of the expected shape. (promtool checks the rules themselves:
Tests/Deploy/test_prometheus.py.)"""
import json
import re
import time
import urllib.request

import grpc
import pytest

from appstore_sim import BUNDLE_ID, ISSUER_ID, KEY_ID, Sim, free_port
from conftest import REPO
from webhook_receiver import Receiver

RULES = REPO / "Deploy" / "prometheus" / "alerts.yml"
DASHBOARD = REPO / "Deploy" / "grafana" / "entitlementd.json"
TOKEN = "alerts-check-token-1f0e9d8c"
WEBHOOK_SECRET = "whsec-alerts-check"

# Names the rules or the dashboard may use although this build does not export them, and why.
# Anything else missing from the scrape fails the test.
NOT_FROM_ENTITLEMENTD = {
    "up": "Prometheus's own per-target series",
}

# PromQL words that look like names; the modifiers' label lists are removed before this applies.
PROMQL_KEYWORDS = {"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring",
                   "group_left", "group_right", "inf", "nan"}


def rule_expressions(text: str):
    """Each `expr:` of a rules file, a block scalar (`|`, `>`) joined into one line."""
    lines, exprs, i = text.splitlines(), [], 0
    while i < len(lines):
        m = re.match(r"^(\s*)(?:- )?expr:\s*(.*)$", lines[i])
        i += 1
        if not m:
            continue
        indent, rest = len(m.group(1)), m.group(2).strip()
        if rest in ("|", "|-", ">", ">-"):
            block = []
            while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent):
                block.append(lines[i].strip())
                i += 1
            rest = " ".join(block)
        exprs.append(rest)
    return exprs


def dashboard_expressions(dashboard: dict):
    exprs = [target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", [])]
    for variable in dashboard["templating"]["list"]:
        query = variable.get("query")
        if isinstance(query, dict):
            query = query.get("query")
        if variable["type"] == "query" and query:
            exprs.append(re.sub(r"^label_values\((.*),\s*\w+\)$", r"\1", query))
    return exprs


def metric_names(expr: str):
    """The metric names a PromQL expression selects (strings, label matchers, ranges and the
    label lists of by/without/on/ignoring/group_* removed; function calls are not names)."""
    expr = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    expr = re.sub(r"\{[^}]*\}", " ", expr)
    expr = re.sub(r"\[[^\]]*\]", " ", expr)
    expr = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", expr)
    return {m.group(1) for m in re.finditer(r"(?<![\w.$])([A-Za-z_:][A-Za-z0-9_:]*)\b(?!\s*\()", expr)
            if m.group(1).lower() not in PROMQL_KEYWORDS}


def used_names():
    rules = set().union(*map(metric_names, rule_expressions(RULES.read_text())))
    dashboard = set().union(*map(metric_names, dashboard_expressions(json.loads(DASHBOARD.read_text()))))
    return rules, dashboard


def scraped_names(text: str):
    """Every sample name in a Prometheus text scrape (histograms as _bucket, _sum, _count)."""
    names = set()
    for line in text.splitlines():
        if line and not line.startswith("#"):
            names.add(re.split(r"[{\s]", line, maxsplit=1)[0])
    return names


def missing_from(scraped, used):
    return sorted(name for name in used
                  if name not in scraped and name + "_bucket" not in scraped and name not in NOT_FROM_ENTITLEMENTD)


def test_the_name_extraction_reads_promql_as_promql():
    expr = ('histogram_quantile(0.99, sum by (job, le) (rate(a_bucket{job=~"$job",le!="x y"}[$__rate_interval])))'
            ' > 0.25 and on (job) time() - max without (instance) (b_seconds offset 5m) > 3 * c or d == bool 1e3')
    assert metric_names(expr) == {"a_bucket", "b_seconds", "c", "d"}
    assert rule_expressions("      - alert: X\n        expr: |\n          a\n          > 1\n        for: 5m\n"
                            "      - alert: Y\n        expr: b == 0\n") == ["a > 1", "b == 0"]


def test_the_rules_and_the_dashboard_read_names_they_should():
    rules, dashboard = used_names()
    for name in ["entitlementd_ready", "entitlementd_reconciliation_last_success_timestamp_seconds",
                 "entitlementd_reconciliation_interval_seconds", "entitlementd_webhook_deliveries_total",
                 "entitlementd_apple_requests_total", "entitlementd_app_store_api_requests_total",
                 "entitlementd_consumption_answers_total", "entitlementd_store_commit_duration_seconds_bucket",
                 "entitlementd_auth_tokens_last_reload_successful", "up"]:
        assert name in rules, (name, sorted(rules))
    for name in ["entitlementd_rpc_requests_total", "entitlementd_rpc_duration_seconds_bucket", "entitlementd_ready",
                 "entitlementd_store_commit_duration_seconds_bucket", "entitlementd_webhook_pending",
                 "entitlementd_webhook_dead_letters", "entitlementd_reconciliation_last_success_timestamp_seconds",
                 "entitlementd_apple_requests_total", "entitlementd_app_store_api_requests_total",
                 "entitlementd_watchers_connected", "entitlementd_open_connections"]:
        assert name in dashboard, (name, sorted(dashboard))


def test_the_dashboard_is_a_grafana_dashboard():
    dashboard = json.loads(DASHBOARD.read_text())
    assert isinstance(dashboard, dict)
    assert dashboard["title"] and dashboard["uid"] == "entitlementd"
    assert isinstance(dashboard["schemaVersion"], int) and dashboard["schemaVersion"] >= 36
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource" and variables["datasource"]["query"] == "prometheus"
    assert {"job", "instance"} <= set(variables)
    panels = dashboard["panels"]
    assert len(panels) >= 10
    ids = [p["id"] for p in panels]
    assert len(ids) == len(set(ids)), "panel ids are unique"
    cells = {}
    for panel in panels:
        assert panel["type"] in {"row", "timeseries", "stat", "gauge", "table", "bargauge"}, panel["type"]
        assert panel["title"].strip()
        grid = panel["gridPos"]
        assert all(isinstance(grid[k], int) for k in "xywh") and grid["x"] + grid["w"] <= 24, panel["title"]
        for x in range(grid["x"], grid["x"] + grid["w"]):
            for y in range(grid["y"], grid["y"] + grid["h"]):
                assert (x, y) not in cells, f"{panel['title']!r} overlaps {cells[(x, y)]!r}"
                cells[(x, y)] = panel["title"]
        if panel["type"] == "row":
            continue
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}, panel["title"]
        targets = panel["targets"]
        assert targets, panel["title"]
        assert len({t["refId"] for t in targets}) == len(targets), panel["title"]
        for target in targets:
            assert target["expr"].strip() and target["datasource"] == panel["datasource"], panel["title"]
            assert metric_names(target["expr"]), f"{panel['title']}: {target['expr']} reads no series"


def auth():
    return [("authorization", f"Bearer {TOKEN}")]


def metrics(server) -> str:
    with urllib.request.urlopen(f"http://{server.address}/metrics", timeout=5) as response:
        return response.read().decode()


@pytest.fixture
def wired(binary, server, tmp_path):
    """entitlementd-testing with every optional part on: appstore-sim as Apple (Server API key,
    verifyReceipt, V2 notifications to the service port), periodic reconciliation, a webhook
    receiver, a tokens file."""
    sim_bin = binary.parent / "appstore-sim"
    if not sim_bin.exists():
        pytest.fail(f"{sim_bin} not built (swift build builds every product)")
    port = free_port()
    sim = Sim(sim_bin, tmp_path, "--notifications", "v2",
              "--webhook-url", f"http://127.0.0.1:{port}/apple/notifications")
    receiver = Receiver(WEBHOOK_SECRET.encode())
    tokens = tmp_path / "tokens"
    tokens.write_text(f"{TOKEN}\n")
    tokens.chmod(0o600)
    started = time.time()
    daemon = server(
        "--listen", f"127.0.0.1:{port}", "--bundle-id", BUNDLE_ID, "--apple-root-ca", sim.root_path,
        "--app-store-key", sim.key_path, "--app-store-key-id", KEY_ID, "--app-store-issuer-id", ISSUER_ID,
        "--app-store-api-url", sim.url, "--app-store-api-sandbox-url", sim.url + "/sandbox",
        "--apple-production-url", sim.url + "/production/verifyReceipt",
        "--apple-sandbox-url", sim.url + "/sandbox/verifyReceipt", "--receipt-mode", "verify-receipt",
        "--reconcile-interval", "1h", "--webhook-url", receiver.url, "--webhook-secret", WEBHOOK_SECRET,
        "--auth-tokens-file", tokens)
    yield sim, daemon, started
    receiver.stop()
    sim.stop()


def test_every_name_the_rules_and_the_dashboard_use_is_exported(pb, wired):
    sim, daemon, started = wired
    stub = pb.ent_grpc.EntitlementServiceStub(daemon.channel())
    # A purchase: Apple's SUBSCRIBED notification to the webhook, a change for the webhook
    # receiver; its transaction id through the Server API; its receipt through verifyReceipt.
    purchase = sim.control("purchase", {"product_id": "pro.monthly", "user_token": "alerts", "period": "30d"})
    stub.SubmitReceipt(pb.ent.SubmitReceiptRequest(user_id="alerts", transaction_id=purchase["transaction_id"]),
                       timeout=60, metadata=auth())
    try:
        stub.SubmitReceipt(pb.ent.SubmitReceiptRequest(user_id="alerts", receipt_data=purchase["receipt_data"]),
                           timeout=60, metadata=auth())
    except grpc.RpcError:
        pass  # whatever verifyReceipt answered, the call is counted
    stub.CheckEntitlement(pb.ent.CheckEntitlementRequest(user_id="alerts"), timeout=10, metadata=auth())

    rules, dashboard = used_names()
    deadline = time.monotonic() + 30
    while True:
        scraped = scraped_names(metrics(daemon))
        missing = missing_from(scraped, rules | dashboard)
        if not missing or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    # The gauges the rules compare, with their values.
    text = metrics(daemon)
    gauges = {line.split()[0]: float(line.split()[1]) for line in text.splitlines()
              if line and not line.startswith("#") and "{" not in line}
    assert gauges["entitlementd_ready"] == 1
    assert gauges["entitlementd_reconciliation_interval_seconds"] == 3600, "--reconcile-interval 1h"
    assert started - 1 <= gauges["process_start_time_seconds"] <= time.time()
    for used, where in [(rules, "alerts.yml"), (dashboard, "the dashboard")]:
        assert not missing_from(scraped, used), \
            f"{where} reads series /metrics does not have: {missing_from(scraped, used)}"
