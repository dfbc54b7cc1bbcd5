"""entitlementd migrate-store: a SQLite store moved to PostgreSQL answers exactly as before.

Seeds users through the testing service on SQLite, stops, migrates into a fresh PostgreSQL
database, starts on PostgreSQL and compares every answer; a second migrate into the same
database is refused (exit 3) and changes nothing. Needs a PostgreSQL server (see
postgres_server.py); skipped without one."""
import http.client
import json
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from apple_pki import PKI, Signer, notification, transaction
from postgres_server import PostgresServer

DAY = 86_400_000
NOW = int(time.time() * 1000)
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def postgres():
    try:
        server = PostgresServer.for_session(REPO)
    except RuntimeError as error:
        pytest.skip(f"no PostgreSQL server: {error}")
    yield server
    server.close()


@pytest.fixture(scope="module")
def signer(tmp_path_factory):
    if not shutil.which("openssl"):
        pytest.skip("the openssl CLI is needed to generate the test PKI")
    return Signer(PKI(tmp_path_factory.mktemp("pki"), "Test"))


def post_v2(server, signer, payload):
    body = json.dumps({"signedPayload": signer.sign(payload)}).encode()
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    try:
        conn.request("POST", "/apple/notifications", body=body, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


@pytest.fixture
def database(postgres):
    name = postgres.create_database()
    yield name
    postgres.drop_database(name)


def seed(pb, channel, user, transactions, renewal_infos=()):
    facts = {"transactions": list(transactions), "renewal_infos": list(renewal_infos)}
    return pb.testing_grpc.TestingStub(channel).Seed(
        pb.testing.SeedRequest(user_id=user, facts_json=json.dumps(facts)), timeout=10)


def tx(tid, chain, product, purchase, expires=None, **extra):
    t = {"transaction_id": tid, "original_transaction_id": chain, "product_id": product,
         "purchase_date_ms": purchase}
    if expires is not None:
        t["expires_date_ms"] = expires
    t.update(extra)
    return t


def answers(pb, channel, users):
    """Every user's entitlements (at a fixed instant, so both runs compare equal) and full history."""
    stub = pb.ent_grpc.EntitlementServiceStub(channel)
    out = {}
    for user in users:
        check = stub.CheckEntitlement(pb.ent.CheckEntitlementRequest(user_id=user, at_ms=NOW), timeout=10)
        pages, token = [], ""
        while True:
            page = stub.ListHistory(pb.ent.ListHistoryRequest(user_id=user, page_size=2, page_token=token),
                                    timeout=10)
            pages.append(page.SerializeToString(deterministic=True))
            token = page.next_page_token
            if not token:
                break
        out[user] = (check.SerializeToString(deterministic=True), pages)
    return out


def sqlite_counts(path):
    """Rows per table of the SQLite store (entitlementd's bookkeeping table aside)."""
    db = sqlite3.connect(path)
    try:
        names = [r[0] for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "AND name <> 'schema_migrations'")]
        return {name: db.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0] for name in names}
    finally:
        db.close()


def migrate(binary, source, url):
    return subprocess.run([str(binary), "migrate-store", "--from", str(source), "--to", url],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.single_process("starts its own SQLite server, then its own PostgreSQL one")
def test_a_migrated_store_answers_identically_and_a_second_migrate_is_refused(
        pb, server, binary, tmp_path, postgres, database, signer):
    source = tmp_path / "single.sqlite"
    # An unreachable webhook endpoint: the outbox and the endpoint's failures are data to copy too.
    trust = ("--apple-root-ca", signer.pki.root_pem_path)
    first = server("--database", source, "--webhook-url", "http://127.0.0.1:9/hook", "--webhook-secret", "s3cret",
                   *trust)
    ch = first.channel()
    seed(pb, ch, "alice", [tx("1001", "1000", "pro.monthly", NOW - 40 * DAY, NOW - 10 * DAY),
                           tx("1000", "1000", "pro.monthly", NOW - 70 * DAY, NOW - 40 * DAY, is_trial_period="true"),
                           tx("1002", "1000", "pro.monthly", NOW - 10 * DAY, NOW + 20 * DAY)],
         [{"original_transaction_id": "1000", "auto_renew_status": True, "signed_date_ms": NOW}])
    seed(pb, ch, "bob", [tx("2000", "2000", "pro.yearly", NOW - 5 * DAY, NOW + 360 * DAY,
                            cancellation_date_ms=NOW - DAY)])
    seed(pb, ch, "carol", [tx("3000", "3000", "lifetime", NOW - 3 * DAY)])
    # The same chain submitted by another user moves it (ownership transfer history on both).
    seed(pb, ch, "dave", [tx("1002", "1000", "pro.monthly", NOW - 10 * DAY, NOW + 20 * DAY)])
    # A notification: its id is an idempotency key the move must carry (posting it again after
    # the move is a duplicate, not a second renewal).
    renewal_tx = signer.sign(transaction("1003", "1000", purchase=NOW - DAY, expires=NOW + 29 * DAY, signed=NOW))
    renewed = notification("DID_RENEW", signed=NOW, signed_transaction=renewal_tx,
                           notification_uuid="5e3b7c3a-0000-4000-8000-000000000001")
    assert post_v2(first, signer, renewed) == 200
    # A grant, revoked, and another standing: grants and history's actor and reason move too.
    stub = pb.ent_grpc.EntitlementServiceStub(ch)
    for reason in ("migrated goodwill", "revoked before the move"):
        granted = stub.GrantEntitlement(pb.ent.GrantEntitlementRequest(
            user_id="gwen", entitlement_id="pro", starts_at_ms=NOW - DAY, expires_at_ms=NOW + 6 * DAY,
            reason=reason, idempotency_key=reason), timeout=10)
    stub.RevokeGrant(pb.ent.RevokeGrantRequest(user_id="gwen", grant_id=granted.grant_id, reason="moved"), timeout=10)
    users = ["alice", "bob", "carol", "dave", "gwen", "nobody"]
    before = answers(pb, ch, users)
    assert first.stop() == 0
    sqlite_tables = sqlite_counts(source)
    assert sqlite_tables["webhook_outbox"] > 0 and sqlite_tables["processed_sources"] > 0

    url = postgres.database_url(database)
    run = migrate(binary, source, url)
    assert run.returncode == 0, run.stderr
    password = url.split("//", 1)[1].split("@", 1)[0].partition(":")[2]
    assert not password or password not in run.stdout + run.stderr
    lines = run.stdout.splitlines()
    counted = {line.split()[0]: int(line.split()[1]) for line in lines if line.startswith("  ")}
    assert counted == sqlite_tables, "every table copied, with its row count"
    assert counted["users"] == 5 and counted["chains"] == 3 and counted["grants"] == 2 and counted["transactions"] == 6
    assert counted["history_events"] > 0 and counted["entitlement_changes"] > 0
    for table in ("users", "entitlement_changes", "webhook_outbox"):
        assert postgres.scalar(f"SELECT count(*) FROM {table}", database) == sqlite_tables[table]
    log_id = sqlite3.connect(source).execute("SELECT log_id FROM change_log_identity").fetchone()[0]
    assert postgres.psql("SELECT log_id FROM change_log_identity", database) == log_id, "change ids keep their log id"
    last_change = postgres.scalar("SELECT max(sequence) FROM entitlement_changes", database)
    assert postgres.scalar("SELECT count(*) FROM users", database) == 5
    # Sequences continue after the copied ids: a new user gets the next id, not a duplicate.
    assert postgres.scalar("SELECT nextval(pg_get_serial_sequence('users', 'id'))", database) == 6

    second = server("--database", url, *trust)
    assert answers(pb, second.channel(), users) == before
    assert post_v2(second, signer, renewed) == 200
    assert answers(pb, second.channel(), users) == before, "the notification was already applied before the move"
    again_granted = pb.ent_grpc.EntitlementServiceStub(second.channel()).GrantEntitlement(
        pb.ent.GrantEntitlementRequest(user_id="gwen", entitlement_id="pro", expires_at_ms=NOW + DAY, reason="x",
                                       idempotency_key="revoked before the move"), timeout=10)
    assert again_granted.grant_id == granted.grant_id, "idempotency keys moved with their grants"
    seed(pb, second.channel(), "erin", [tx("5000", "5000", "pro.monthly", NOW - DAY, NOW + 29 * DAY)])
    assert second.stop() == 0
    assert postgres.scalar("SELECT min(c.sequence) FROM entitlement_changes c JOIN users u ON u.id = c.user_rowid "
                           "WHERE u.user_id = 'erin'", database) > last_change, "new changes continue the sequence"

    again = migrate(binary, source, url)
    assert again.returncode == 3, again.stdout + again.stderr
    assert "already holds entitlementd data" in again.stderr and "Nothing was changed" in again.stderr
    assert postgres.scalar("SELECT count(*) FROM users", database) == 6


@pytest.mark.single_process("runs the command, no server")
def test_arguments_are_checked(binary, tmp_path):
    run = subprocess.run([str(binary), "migrate-store", "--from", str(tmp_path / "x.sqlite")],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "--to" in run.stderr
    run = subprocess.run([str(binary), "migrate-store", "--from", str(tmp_path / "missing.sqlite"),
                          "--to", "postgresql://u@127.0.0.1:1/db"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "no SQLite store" in run.stderr


@pytest.mark.single_process("migrates a SQLite file")
def test_a_database_of_something_else_is_refused_untouched(server, binary, postgres, database):
    postgres.psql("CREATE TABLE invoices (id BIGINT PRIMARY KEY)", database)
    source = server().workdir / "test.sqlite"
    run = migrate(binary, source, postgres.database_url(database))
    assert run.returncode == 3, run.stdout + run.stderr
    assert "not entitlementd's" in run.stderr and "invoices" in run.stderr
    assert postgres.psql("SELECT string_agg(table_name::text, ',') FROM information_schema.tables "
                         "WHERE table_schema = 'public'", database) == "invoices"
