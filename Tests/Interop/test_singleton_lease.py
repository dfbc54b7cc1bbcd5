"""The singleton lease gauge: on SQLite the one process holds the singleton duties from startup.

(On PostgreSQL each replica runs a lease; the handover between replicas is in test_cluster.py.)"""
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families


@pytest.mark.single_process("SQLite's lease-free mode; the cluster's lease is test_cluster.py's")
def test_sqlite_holds_the_singleton_duties_from_startup(default_server):
    with urllib.request.urlopen(f"http://{default_server.address}/metrics", timeout=5) as response:
        families = {f.name: f for f in text_string_to_metric_families(response.read().decode())}
    held = families["entitlementd_singleton_lease_held"].samples
    assert [s.value for s in held] == [1.0]
