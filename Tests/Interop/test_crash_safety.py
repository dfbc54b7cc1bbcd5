"""SIGKILL in the middle of a write load: every acknowledged write survives, and the database
passes PRAGMA integrity_check. Acknowledgement means durable (WAL, synchronous=FULL)."""
import sqlite3

import pytest

from write_load import seed_until_killed


@pytest.mark.single_process(
    "SIGKILLs the server and checks its SQLite file (test_cluster.py kills replicas under load)")
def test_acknowledged_writes_survive_sigkill(pb, server, tmp_path):
    db = tmp_path / "crash.sqlite"
    victim = server("--database", db)
    victim.check_exit_code = False
    acknowledged = seed_until_killed(pb, victim, tid_base=10_000_000)

    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    survivor = server("--database", db)
    stub = pb.ent_grpc.EntitlementServiceStub(survivor.channel())
    missing = []
    for user, tid in acknowledged:
        reply = stub.CheckEntitlement(pb.ent.CheckEntitlementRequest(user_id=user), timeout=10)
        if not (reply.active and reply.entitlements[0].latest_transaction_id == tid):
            missing.append((user, tid))
    assert not missing, f"{len(missing)} of {len(acknowledged)} acknowledged writes lost, e.g. {missing[:5]}"
