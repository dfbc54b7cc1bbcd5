"""Deploy/entitlementd.service: `systemd-analyze verify` passes and `systemd-analyze security
--offline=yes` rates it 2.0 or better.

verify checks that ExecStart's binary exists, and /usr/local/bin/entitlementd is not installed
on a test machine: it runs on a copy whose ExecStart is rewritten to the binary just built,
the only change. The unit is not started: that needs systemd as PID 1, which a build machine
or container usually lacks."""
import re
import subprocess

from deploy_support import DEPLOY, cannot_run, env_file_assignments, need_tool

UNIT = DEPLOY / "entitlementd.service"
SHIPPED_EXEC_START = "ExecStart=/usr/local/bin/entitlementd\n"
MAX_EXPOSURE = 2.0


def seconds(text):
    m = re.fullmatch(r"(\d+)(ms|s|min|m)?", text.strip())
    assert m, f"cannot read duration {text!r}"
    value = int(m.group(1))
    return {"ms": value / 1000, "min": value * 60, "m": value * 60}.get(m.group(2), value)


def directives(text):
    found = {}
    for line in text.splitlines():
        if "=" in line and not line.lstrip().startswith(("#", ";", "[")):
            key, value = line.split("=", 1)
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def test_verify(entitlementd, tmp_path):
    analyze = need_tool("systemd-analyze")
    shipped = UNIT.read_text()
    assert shipped.count(SHIPPED_EXEC_START) == 1, "ExecStart changed: update test_systemd.py"
    copy = tmp_path / "entitlementd.service"
    copy.write_text(shipped.replace(SHIPPED_EXEC_START, f"ExecStart={entitlementd}\n"))
    r = subprocess.run([analyze, "verify", "--man=no", str(copy)], capture_output=True, text=True, timeout=60)
    output = (r.stdout + r.stderr).strip()
    print(output)
    if r.returncode != 0 and "Failed to " in output and "entitlementd.service" not in output:
        cannot_run(f"systemd-analyze verify cannot run here: {output[:300]}")
    assert r.returncode == 0, output
    # Warnings about the unit itself (unknown keys, bad values) do not fail verify: catch them.
    about_unit = [line for line in output.splitlines() if "entitlementd.service" in line]
    assert not about_unit, "\n".join(about_unit)


def test_security_exposure(tmp_path):
    analyze = need_tool("systemd-analyze")
    r = subprocess.run([analyze, "security", "--offline=yes", f"--threshold={int(MAX_EXPOSURE * 10)}", str(UNIT)],
                       capture_output=True, text=True, timeout=60)
    output = r.stdout + r.stderr
    if "--offline" in output and ("unrecognized" in output or "Unknown option" in output):
        cannot_run(f"this systemd-analyze has no --offline (systemd < 250): {output.strip()[:200]}")
    m = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", output)
    assert m, output
    exposure = float(m.group(1))
    print(f"\nsystemd-analyze security --offline=yes: {exposure}\n" +
          "\n".join(line for line in output.splitlines() if "✗" in line))
    assert exposure <= MAX_EXPOSURE, output
    assert r.returncode == 0, output


def test_restart_and_stop_settings(help_text):
    unit = directives(UNIT.read_text())
    assert unit.get("RestartPreventExitStatus") == ["2"], "a bad flag (exit 2) must not restart in a loop"
    grace = re.search(r"--shutdown-grace-period DURATION\s+.*\(default (\d+\w*)\)", help_text).group(1)
    for name, value, commented in env_file_assignments((DEPLOY / "entitlementd.env").read_text()):
        if name == "ENTITLEMENTD_SHUTDOWN_GRACE_PERIOD" and not commented:
            grace = value
    assert seconds(unit["TimeoutStopSec"][0]) > seconds(grace), \
        f"TimeoutStopSec={unit['TimeoutStopSec'][0]} must exceed the shutdown grace period {grace}"
    assert unit.get("User") == ["entitlementd"] and unit.get("NoNewPrivileges") == ["yes"]
    assert unit.get("CapabilityBoundingSet") == [""], "no capabilities at all"
