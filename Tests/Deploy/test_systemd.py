"""Deploy/entitlementd.service: `systemd-analyze verify` passes and `systemd-analyze security
--offline=yes` rates it 2.0 or better.

verify checks that ExecStart's binary exists, and /usr/local/bin/entitlementd is not installed
on a test machine: it runs on a copy whose ExecStart is rewritten to the binary just built,
the only change. The unit is not started: that needs systemd as PID 1, which a build machine
or container usually lacks."""
import re

from deploy_support import DEPLOY, env_file_assignments
from systemd_units import directives, exposure, verify

UNIT = DEPLOY / "entitlementd.service"


def seconds(text):
    m = re.fullmatch(r"(\d+)(ms|s|min|m)?", text.strip())
    assert m, f"cannot read duration {text!r}"
    value = int(m.group(1))
    return {"ms": value / 1000, "min": value * 60, "m": value * 60}.get(m.group(2), value)


def test_verify(entitlementd, tmp_path):
    verify(UNIT.read_text(), "entitlementd.service", "entitlementd.service", entitlementd, tmp_path)


def test_security_exposure():
    exposure(UNIT)


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
