"""The restore drill, on both engines: back a store up while it takes writes, restore the copy,
serve from it, and check that every write acknowledged before the backup began is there and
answers as it did on the original. Also `entitlementd verify-store` finding damage, and
`entitlementd backup` refusing to overwrite.

SQLite is copied with `entitlementd backup`; PostgreSQL with pg_dump/pg_restore, the recipe
docs/operations.md gives. Run with `-s` to see the drill's output."""
import json
import sqlite3
import subprocess
import threading
import time
from pathlib import Path

import pytest

from test_migrate_store import postgres  # noqa: F401 (a fixture)

DAY = 86_400_000
NOW = int(time.time() * 1000)
REPO = Path(__file__).resolve().parents[2]
SEEDED = 150


def seed(pb, channel, user, index):
    chain = str(10_000_000 + index)
    facts = {"transactions": [
        {"transaction_id": chain, "original_transaction_id": chain, "product_id": "pro.monthly",
         "purchase_date_ms": NOW - 10 * DAY, "expires_date_ms": NOW + 20 * DAY},
        {"transaction_id": str(20_000_000 + index), "original_transaction_id": chain, "product_id": "pro.monthly",
         "purchase_date_ms": NOW - 40 * DAY, "expires_date_ms": NOW - 10 * DAY, "is_trial_period": "true"}],
        "renewal_infos": [{"original_transaction_id": chain, "auto_renew_status": index % 2 == 0,
                           "signed_date_ms": NOW}]}
    pb.testing_grpc.TestingStub(channel).Seed(pb.testing.SeedRequest(user_id=user, facts_json=json.dumps(facts)),
                                              timeout=30)


def grant(pb, channel, user):
    pb.ent_grpc.EntitlementServiceStub(channel).GrantEntitlement(pb.ent.GrantEntitlementRequest(
        user_id=user, entitlement_id="extra", starts_at_ms=NOW - DAY, expires_at_ms=NOW + 6 * DAY,
        reason="restore drill", idempotency_key=user), timeout=30)


def answers(pb, channel, users):
    """Each user's entitlements at a fixed instant and their full history, as bytes."""
    stub = pb.ent_grpc.EntitlementServiceStub(channel)
    out = {}
    for user in users:
        check = stub.CheckEntitlement(pb.ent.CheckEntitlementRequest(user_id=user, at_ms=NOW), timeout=30)
        history = stub.ListHistory(pb.ent.ListHistoryRequest(user_id=user, page_size=100), timeout=30)
        out[user] = (check.SerializeToString(deterministic=True), history.SerializeToString(deterministic=True))
    return out


class Writers:
    """Two threads writing new users until stopped; `acknowledged` lists the users whose write
    was answered OK, in order."""

    def __init__(self, pb, channel):
        self.pb, self.channel = pb, channel
        self.acknowledged = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self._run, args=(n,)) for n in range(2)]
        for thread in self.threads:
            thread.start()

    def _run(self, n):
        index = 0
        while not self.stopping.is_set():
            user = f"live-{n}-{index}"
            seed(self.pb, self.channel, user, 1_000_000 * (n + 1) + index)
            with self.lock:
                self.acknowledged.append(user)
            index += 1

    def snapshot(self):
        with self.lock:
            return list(self.acknowledged)

    def stop(self):
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=60)


def drill(pb, server, binary, store_flags, copy):
    """Seeds, backs up (with `copy`) under concurrent writes, serves the restored copy and
    compares. `copy()` returns the restored store's --database value."""
    original = server(*store_flags)
    channel = original.channel()
    users = [f"seeded-{i}" for i in range(SEEDED)]
    for index, user in enumerate(users):
        seed(pb, channel, user, index)
        if index % 10 == 0:
            grant(pb, channel, user)
    writers = Writers(pb, channel)
    try:
        while len(writers.snapshot()) < 20:
            time.sleep(0.05)
        acknowledged_before = writers.snapshot()
        started = time.monotonic()
        restored_database = copy()
        took = time.monotonic() - started
        while len(writers.snapshot()) < len(acknowledged_before) + 20:
            time.sleep(0.05)
    finally:
        writers.stop()
    written_during = len(writers.acknowledged) - len(acknowledged_before)
    checked = users + acknowledged_before
    expected = answers(pb, channel, checked)

    verify = subprocess.run([str(binary), "verify-store", "--database", restored_database],
                            capture_output=True, text=True, timeout=300)
    print(verify.stdout)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "result: sound" in verify.stdout
    restored = server("--database", restored_database)
    got = answers(pb, restored.channel(), checked)
    missing = [user for user in checked if got[user] != expected[user]]
    assert not missing, f"{len(missing)} users differ after the restore, e.g. {missing[:3]}"
    print(f"restore drill: {len(users)} seeded users and {len(acknowledged_before)} acknowledged before the "
          f"backup began, all restored with identical answers; {written_during} writes acknowledged while "
          f"the copy took {took:.2f} s")
    original.stop()
    restored.stop()


@pytest.mark.single_process("starts its own servers on one SQLite file and its copy")
def test_a_sqlite_backup_taken_under_writes_restores_every_acknowledged_write(pb, server, binary, tmp_path):
    source = tmp_path / "live.sqlite"
    copy = tmp_path / "backups" / "copy.sqlite"
    copy.parent.mkdir()

    def backup():
        run = subprocess.run([str(binary), "backup", "--database", str(source), "--to", str(copy)],
                             capture_output=True, text=True, timeout=300)
        print(run.stdout + run.stderr)
        assert run.returncode == 0, run.stderr
        assert not list(copy.parent.glob("*.partial-*")), "no temporary file left behind"
        return str(copy)

    drill(pb, server, binary, ("--database", str(source)), backup)


@pytest.mark.single_process("starts its own servers on two PostgreSQL databases")
def test_a_postgresql_dump_taken_under_writes_restores_every_acknowledged_write(pb, server, binary, tmp_path,
                                                                              postgres):
    source = postgres.create_database()
    target = postgres.create_database()
    dump = tmp_path / "store.dump"
    try:
        def backup():
            # The recipe in docs/operations.md: a custom-format dump (one consistent snapshot),
            # restored into an empty database.
            run = subprocess.run(["pg_dump", "--format=custom", "--no-owner", "--file", str(dump),
                                  postgres.database_url(source)], capture_output=True, text=True, timeout=300)
            assert run.returncode == 0, run.stderr
            run = subprocess.run(["pg_restore", "--no-owner", "--exit-on-error", "--dbname",
                                  postgres.database_url(target), str(dump)], capture_output=True, text=True,
                                 timeout=300)
            assert run.returncode == 0, run.stderr
            return postgres.database_url(target)

        drill(pb, server, binary, ("--database", postgres.database_url(source)), backup)
    finally:
        postgres.drop_database(source)
        postgres.drop_database(target)


@pytest.mark.single_process("runs the commands on a store it made")
def test_verify_store_finds_a_damaged_record_and_backup_refuses_to_overwrite(pb, server, binary, tmp_path):
    source = tmp_path / "store.sqlite"
    first = server("--database", str(source))
    for index in range(3):
        seed(pb, first.channel(), f"user-{index}", index)
    assert first.stop() == 0
    binary = str(binary)
    copy = tmp_path / "copy.sqlite"
    assert subprocess.run([binary, "backup", "--database", str(source), "--to", str(copy)],
                          capture_output=True, timeout=120).returncode == 0
    again = subprocess.run([binary, "backup", "--database", str(source), "--to", str(copy)],
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 3 and "--force" in again.stderr
    forced = subprocess.run([binary, "backup", "--database", str(source), "--to", str(copy), "--force"],
                            capture_output=True, text=True, timeout=120)
    assert forced.returncode == 0, forced.stderr
    sound = subprocess.run([binary, "verify-store", "--database", str(copy)], capture_output=True, text=True,
                           timeout=120)
    assert sound.returncode == 0 and "records: 3 checked, 0 damaged" in sound.stdout, sound.stdout

    # One user's record now says another thing than their tables: the kind of damage only the
    # record check sees (the file itself is intact).
    db = sqlite3.connect(copy)
    other = db.execute("SELECT facts FROM user_facts WHERE user_id = 'user-2'").fetchone()[0]
    db.execute("UPDATE user_facts SET facts = ? WHERE user_id = 'user-1'", (other,))
    db.execute("UPDATE user_facts SET facts = x'ff00' WHERE user_id = 'user-0'")
    db.commit()
    db.close()
    damaged = subprocess.run([binary, "verify-store", "--database", str(copy)], capture_output=True, text=True,
                             timeout=120)
    assert damaged.returncode == 1, damaged.stdout + damaged.stderr
    assert "user user-1 differs" in damaged.stdout and "user-0" in damaged.stdout
    assert "result: DAMAGED" in damaged.stdout

    missing = subprocess.run([binary, "verify-store", "--database", str(tmp_path / "nothing.sqlite")],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2
    postgres_url = subprocess.run([binary, "backup", "--database", "postgresql://u@127.0.0.1:1/db", "--to",
                                   str(tmp_path / "x")], capture_output=True, text=True, timeout=60)
    assert postgres_url.returncode == 2 and "pg_dump" in postgres_url.stderr
