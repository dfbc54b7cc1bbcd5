"""Deploy/entitlementd.env names only real flags, shows their real defaults, has no empty
value (issue 16: an empty shared secret authenticated V1 notifications), and starts the
production entitlementd as systemd would pass it."""
import json
import re

from deploy_support import DEPLOY, env_file_assignments


def flags_from_help(help_text):
    """{ENTITLEMENTD_NAME: default or None} from `entitlementd --help`."""
    flags = {}
    for line in help_text.splitlines():
        m = re.match(r"^\s+--([a-z0-9-]+)(?: [A-Z_:]+)?\s+(.*)$", line)
        if m and m.group(1) not in ("help", "version"):
            default = re.search(r"\(default ([^():]+)\)$", m.group(2))
            flags["ENTITLEMENTD_" + m.group(1).upper().replace("-", "_")] = default.group(1) if default else None
    assert len(flags) > 10, f"--help parsed to too few flags: {flags}"
    return flags


def test_every_variable_is_a_flag_of_entitlementd(help_text):
    flags = flags_from_help(help_text)
    assignments = env_file_assignments((DEPLOY / "entitlementd.env").read_text())
    assert assignments, "no ENTITLEMENTD_* lines found"
    unknown = sorted({name for name, _, _ in assignments} - set(flags))
    assert not unknown, f"not flags of entitlementd (see entitlementd --help): {unknown}"


def test_every_flag_of_entitlementd_is_in_the_env_file(help_text):
    """The env file is where an operator looks for a setting: every flag --help prints has its
    line there (commented out when it keeps its default)."""
    named = {name for name, _, _ in env_file_assignments((DEPLOY / "entitlementd.env").read_text())}
    missing = sorted(set(flags_from_help(help_text)) - named)
    assert not missing, f"flags of entitlementd --help with no line in Deploy/entitlementd.env: {missing}"


def test_no_line_is_set_empty():
    empty = [name for name, value, commented in env_file_assignments((DEPLOY / "entitlementd.env").read_text())
             if not commented and value.strip() == ""]
    assert not empty, f"set but empty (entitlementd refuses these; comment them out): {empty}"


def test_commented_values_are_the_built_in_defaults(help_text):
    flags = flags_from_help(help_text)
    wrong = [(name, value, flags[name]) for name, value, commented
             in env_file_assignments((DEPLOY / "entitlementd.env").read_text())
             if commented and value and flags.get(name) is not None and value != flags[name]]
    assert not wrong, f"commented lines must show the default they keep (name, shown, real): {wrong}"


def test_shipped_env_file_starts_entitlementd(backend):
    """The backend fixture ran the production binary with the file's uncommented values (paths,
    port and Apple's endpoints replaced); its JSON log lines parse."""
    assert backend.proc.poll() is None
    assert backend.shipped.get("ENTITLEMENTD_LOG_FORMAT") == "json"
    lines = [line for line in backend.stderr.read_text().splitlines() if line.strip()]
    for line in lines:
        json.loads(line)
