"""What test_systemd.py and test_systemd_replicas.py both do to a unit file: `systemd-analyze
verify` on a copy whose ExecStart is the binary just built (verify checks that the binary
exists, and /usr/local/bin/entitlementd is not installed on a test machine), and `systemd-analyze
security --offline=yes`'s exposure rating."""
import re
import subprocess

from deploy_support import cannot_run, need_tool

SHIPPED_EXEC_START = "ExecStart=/usr/local/bin/entitlementd\n"
MAX_EXPOSURE = 2.0


def directives(text):
    found = {}
    for line in text.splitlines():
        if "=" in line and not line.lstrip().startswith(("#", ";", "[")):
            key, value = line.split("=", 1)
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def verify(unit_text: str, file_name: str, load_as: str, entitlementd, tmp_path) -> None:
    """Writes `unit_text` as tmp_path/file_name with ExecStart rewritten to `entitlementd`, runs
    `systemd-analyze verify` on tmp_path/load_as (the same file, or an instance of a template
    beside it) and fails on any complaint naming the unit."""
    analyze = need_tool("systemd-analyze")
    assert unit_text.count(SHIPPED_EXEC_START) == 1, f"ExecStart of {file_name} changed: update systemd_units.py"
    (tmp_path / file_name).write_text(unit_text.replace(SHIPPED_EXEC_START, f"ExecStart={entitlementd}\n"))
    r = subprocess.run([analyze, "verify", "--man=no", str(tmp_path / load_as)],
                       capture_output=True, text=True, timeout=60)
    output = (r.stdout + r.stderr).strip()
    print(output)
    # How verify names the unit in its complaints: "entitlementd.service", "entitlementd@2.service".
    unit_name = file_name.split("@")[0] + "@" if "@" in file_name else file_name
    if r.returncode != 0 and "Failed to " in output and unit_name not in output:
        cannot_run(f"systemd-analyze verify cannot run here: {output[:300]}")
    assert r.returncode == 0, output
    # Warnings about the unit itself (unknown keys, bad values) do not fail verify: catch them.
    about_unit = [line for line in output.splitlines() if unit_name in line]
    assert not about_unit, "\n".join(about_unit)


def exposure(unit_path) -> float:
    """`systemd-analyze security --offline=yes` on `unit_path`: asserts it is at most
    MAX_EXPOSURE and returns it (printing the settings it counts against the unit)."""
    analyze = need_tool("systemd-analyze")
    r = subprocess.run([analyze, "security", "--offline=yes", f"--threshold={int(MAX_EXPOSURE * 10)}",
                        str(unit_path)], capture_output=True, text=True, timeout=60)
    output = r.stdout + r.stderr
    if "--offline" in output and ("unrecognized" in output or "Unknown option" in output):
        cannot_run(f"this systemd-analyze has no --offline (systemd < 250): {output.strip()[:200]}")
    m = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", output)
    assert m, output
    rating = float(m.group(1))
    print(f"\nsystemd-analyze security --offline=yes: {rating}\n" +
          "\n".join(line for line in output.splitlines() if "✗" in line))
    assert rating <= MAX_EXPOSURE, output
    assert r.returncode == 0, output
    return rating
