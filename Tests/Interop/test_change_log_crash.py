"""SIGKILL in the middle of a write load: the change log holds exactly one change for every fact
that caused one and none for a fact that was not stored, because each change commits in the
same transaction as its fact (issue 12: a crash never loses or invents a change)."""
import sqlite3

import pytest

from write_load import seed_until_killed


@pytest.mark.single_process("SIGKILLs the server and reads the change log in its SQLite file")
def test_a_crash_neither_loses_nor_invents_a_change(pb, server, tmp_path):
    db = tmp_path / "crash.sqlite"
    victim = server("--database", db)
    victim.check_exit_code = False
    acknowledged = [user for user, _ in seed_until_killed(pb, victim, tid_base=20_000_000)]

    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        changes = conn.execute("""
            SELECT c.sequence, u.user_id, c.state, c.previous_state, c.original_transaction_id
            FROM entitlement_changes c JOIN users u ON u.id = c.user_rowid ORDER BY c.sequence""").fetchall()
        # chains keep a decimal id as an INTEGER (migration chains_decimal_ids): its text is the id.
        stored = {user: chain for user, chain in conn.execute("""
            SELECT u.user_id, CAST(c.original_transaction_id AS TEXT)
            FROM chains c JOIN users u ON u.id = c.user_rowid""")}

    sequences = [row[0] for row in changes]
    assert sequences == list(range(1, len(changes) + 1)), "one unbroken sequence"
    by_user = {}
    for _, user, state, previous, chain in changes:
        assert (state, previous) == ("active", None), (user, state, previous)
        by_user.setdefault(user, []).append(chain)
    lost = [user for user in acknowledged if by_user.get(user) != [stored.get(user)]]
    assert not lost, f"{len(lost)} of {len(acknowledged)} acknowledged purchases have no single change, e.g. {lost[:5]}"
    invented = [user for user in by_user if stored.get(user) is None]
    assert not invented, f"changes for facts that were never stored: {invented[:5]}"
    assert set(by_user) == set(stored), "every stored purchase has its change, and only those"
