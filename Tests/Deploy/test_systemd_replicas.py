"""Deploy/entitlementd@.service, the template for replicas behind haproxy: `systemd-analyze
verify` passes on an instance, `systemd-analyze security --offline=yes` rates it 2.0 or better,
and it keeps every setting of entitlementd.service except the few a replica must change (so
a hardening change to one unit cannot silently miss the other)."""
import re
import subprocess

from deploy_support import DEPLOY, cannot_run, need_tool
from test_systemd import MAX_EXPOSURE, SHIPPED_EXEC_START, directives

TEMPLATE = DEPLOY / "entitlementd@.service"
# What a replica sets differently: its own env file and description, and no local state.
DIFFERENT = {"Description", "EnvironmentFile", "StateDirectory", "StateDirectoryMode", "WorkingDirectory"}


def test_verify_an_instance(entitlementd, tmp_path):
    analyze = need_tool("systemd-analyze")
    shipped = TEMPLATE.read_text()
    assert shipped.count(SHIPPED_EXEC_START) == 1, "ExecStart changed: update test_systemd_replicas.py"
    (tmp_path / "entitlementd@.service").write_text(shipped.replace(SHIPPED_EXEC_START, f"ExecStart={entitlementd}\n"))
    # An instance name whose template sits beside it: what `systemctl start entitlementd@2` loads.
    r = subprocess.run([analyze, "verify", "--man=no", str(tmp_path / "entitlementd@2.service")],
                       capture_output=True, text=True, timeout=60)
    output = (r.stdout + r.stderr).strip()
    print(output)
    if r.returncode != 0 and "Failed to " in output and "entitlementd@" not in output:
        cannot_run(f"systemd-analyze verify cannot run here: {output[:300]}")
    assert r.returncode == 0, output
    about_unit = [line for line in output.splitlines() if "entitlementd@" in line]
    assert not about_unit, "\n".join(about_unit)


def test_security_exposure(tmp_path):
    analyze = need_tool("systemd-analyze")
    instance = tmp_path / "entitlementd@2.service"
    instance.write_text(TEMPLATE.read_text())
    r = subprocess.run([analyze, "security", "--offline=yes", f"--threshold={int(MAX_EXPOSURE * 10)}", str(instance)],
                       capture_output=True, text=True, timeout=60)
    output = r.stdout + r.stderr
    if "--offline" in output and ("unrecognized" in output or "Unknown option" in output):
        cannot_run(f"this systemd-analyze has no --offline (systemd < 250): {output.strip()[:200]}")
    m = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", output)
    assert m, output
    print(f"\nsystemd-analyze security --offline=yes: {m.group(1)}")
    assert float(m.group(1)) <= MAX_EXPOSURE, output
    assert r.returncode == 0, output


def test_same_settings_as_the_single_unit_but_the_replicas_own():
    single = directives((DEPLOY / "entitlementd.service").read_text())
    template = directives(TEMPLATE.read_text())
    for key in sorted((set(single) | set(template)) - DIFFERENT):
        assert template.get(key) == single.get(key), \
            f"{key}: entitlementd@.service has {template.get(key)}, entitlementd.service {single.get(key)}"
    # Shared settings first, then the replica's own ports: a later EnvironmentFile wins.
    assert template["EnvironmentFile"] == single["EnvironmentFile"] + ["/etc/entitlementd/replica-%i.env"]
    assert "StateDirectory" not in template, "replicas keep no local state: the data is in PostgreSQL"
