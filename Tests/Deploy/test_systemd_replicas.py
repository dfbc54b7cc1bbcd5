"""Deploy/entitlementd@.service, the template for replicas behind haproxy: `systemd-analyze
verify` passes on an instance, `systemd-analyze security --offline=yes` rates it 2.0 or better,
and it keeps every setting of entitlementd.service except the few a replica must change (so
a hardening change to one unit cannot silently miss the other)."""
from deploy_support import DEPLOY
from systemd_units import directives, exposure, verify

TEMPLATE = DEPLOY / "entitlementd@.service"
# What a replica sets differently: its own env file and description, and no local state.
DIFFERENT = {"Description", "EnvironmentFile", "StateDirectory", "StateDirectoryMode", "WorkingDirectory"}


def test_verify_an_instance(entitlementd, tmp_path):
    # An instance name whose template sits beside it: what `systemctl start entitlementd@2` loads.
    verify(TEMPLATE.read_text(), "entitlementd@.service", "entitlementd@2.service", entitlementd, tmp_path)


def test_security_exposure(tmp_path):
    instance = tmp_path / "entitlementd@2.service"
    instance.write_text(TEMPLATE.read_text())
    exposure(instance)


def test_same_settings_as_the_single_unit_but_the_replicas_own():
    single = directives((DEPLOY / "entitlementd.service").read_text())
    template = directives(TEMPLATE.read_text())
    for key in sorted((set(single) | set(template)) - DIFFERENT):
        assert template.get(key) == single.get(key), \
            f"{key}: entitlementd@.service has {template.get(key)}, entitlementd.service {single.get(key)}"
    # Shared settings first, then the replica's own ports: a later EnvironmentFile wins.
    assert template["EnvironmentFile"] == single["EnvironmentFile"] + ["/etc/entitlementd/replica-%i.env"]
    assert "StateDirectory" not in template, "replicas keep no local state: the data is in PostgreSQL"
