"""Deploy/prometheus/ and Deploy/grafana/entitlementd.json with Prometheus's own promtool
(Debian's `prometheus` package; Scripts/lib/test-deploy.sh installs it): the rules pass
`promtool check rules`, their unit tests (alerts.test.yml) pass `promtool test rules`, the
example configuration passes `promtool check config`, and every dashboard query parses as PromQL. Tests/Interop/test_alerts_and_dashboard.py checks the
names they use against a real scrape."""
import json
import shutil
import subprocess

from deploy_support import DEPLOY, need_tool

RULES = DEPLOY / "prometheus" / "alerts.yml"
RULE_TESTS = DEPLOY / "prometheus" / "alerts.test.yml"
CONFIG = DEPLOY / "prometheus" / "prometheus.yml"
DASHBOARD = DEPLOY / "grafana" / "entitlementd.json"

# Grafana's variables, replaced by what Prometheus would get for "all jobs and instances".
GRAFANA_VARIABLES = {"$__rate_interval": "1m", "$job": ".*", "$instance": ".*"}


def promtool(*args, cwd=None):
    r = subprocess.run([need_tool("promtool"), *map(str, args)], capture_output=True, text=True, timeout=120,
                       cwd=cwd)
    return r.returncode, r.stdout + r.stderr


def test_rules_pass_promtool_check():
    code, out = promtool("check", "rules", RULES)
    assert code == 0, out
    assert "SUCCESS" in out, out


def test_rule_unit_tests_pass():
    """Every alert is shown firing and not firing (alerts.test.yml says which series each uses)."""
    code, out = promtool("test", "rules", RULE_TESTS.name, cwd=RULE_TESTS.parent)
    assert code == 0, out
    assert "SUCCESS" in out, out


def test_example_configuration_passes_promtool_check(tmp_path):
    """The shipped prometheus.yml with its rules beside it, the token file where it says (a
    missing credentials file fails the check, as it would fail Prometheus)."""
    token = tmp_path / "entitlementd.token"
    token.write_text("deploy-check-admin-token\n")
    token.chmod(0o600)
    text = CONFIG.read_text()
    assert "/etc/prometheus/entitlementd.token" in text and "job_name: entitlementd" in text
    (tmp_path / "prometheus.yml").write_text(text.replace("/etc/prometheus/entitlementd.token", str(token)))
    shutil.copy(RULES, tmp_path / "alerts.yml")
    code, out = promtool("check", "config", "prometheus.yml", cwd=tmp_path)
    assert code == 0, out
    assert "SUCCESS: 1 rule files found" in out, out


def test_every_alert_has_a_unit_test():
    alerts = {line.split(":", 1)[1].strip() for line in RULES.read_text().splitlines()
              if line.strip().startswith("- alert:")}
    assert len(alerts) >= 8, alerts
    tested = {line.split(":", 1)[1].strip() for line in RULE_TESTS.read_text().splitlines()
              if line.strip().startswith("alertname:")}
    assert alerts == tested, f"alerts without a test: {sorted(alerts - tested)}; tests of no alert: {tested - alerts}"


def test_dashboard_queries_parse_as_promql(tmp_path):
    """Each panel's expression, with Grafana's variables filled in, as a recording rule that
    `promtool check rules` parses."""
    dashboard = json.loads(DASHBOARD.read_text())
    exprs = [target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", [])]
    assert exprs
    lines = ["groups:", "  - name: dashboard", "    rules:"]
    for index, expr in enumerate(exprs):
        for variable, value in GRAFANA_VARIABLES.items():
            expr = expr.replace(variable, value)
        assert "$" not in expr, f"a Grafana variable this check does not know: {expr}"
        lines += [f"      - record: dashboard:query_{index}", f"        expr: {json.dumps(expr)}"]
    rules = tmp_path / "dashboard-queries.yml"
    rules.write_text("\n".join(lines) + "\n")
    code, out = promtool("check", "rules", rules)
    assert code == 0, out
