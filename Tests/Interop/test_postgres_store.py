"""--database with a PostgreSQL URL: the PostgreSQL store, shared by several processes (replicas),
and the password never in a log line or an error. Cases needing a server use
ENTITLEMENTD_TEST_POSTGRES_URL (Scripts/test starts one) and are skipped without it."""
import os
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

import grpc
import pytest

from test_entitlements import check, seed, tx

SERVER_URL = os.environ.get("ENTITLEMENTD_TEST_POSTGRES_URL", "")
needs_server = pytest.mark.skipif(not SERVER_URL, reason="ENTITLEMENTD_TEST_POSTGRES_URL is not set")
NOW = int(time.time() * 1000)
DAY = 86_400_000


@pytest.fixture
def fresh_database():
    """A new empty database on the test server, dropped after the test; its URL."""
    name = "interop_" + uuid.uuid4().hex
    subprocess.run(["psql", SERVER_URL, "-qc", f"CREATE DATABASE {name}"], check=True, capture_output=True)
    yield SERVER_URL.rsplit("/", 1)[0] + "/" + name
    subprocess.run(["psql", SERVER_URL, "-qc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"],
                   capture_output=True)


def password_of(url: str) -> str:
    return urllib.parse.unquote(urllib.parse.urlsplit(url).password or "")


def run_failing(binary, tmp_path, url):
    return subprocess.run([str(binary), "--listen", "127.0.0.1:0", "--database", url],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)


def test_an_unreachable_database_stops_startup_without_showing_the_password(binary, tmp_path):
    secret = "pw-" + uuid.uuid4().hex
    r = run_failing(binary, tmp_path, f"postgresql://entitlementd:{secret}@127.0.0.1:1/nowhere?connect_timeout=3")
    assert r.returncode == 1, r.stderr
    assert "cannot open the database" in r.stderr
    assert "postgresql://entitlementd:***@127.0.0.1:1/nowhere" in r.stderr, r.stderr
    assert secret not in r.stderr + r.stdout


@needs_server
def test_a_wrong_password_is_refused_without_repeating_it(binary, tmp_path):
    parts = urllib.parse.urlsplit(SERVER_URL)
    secret = "wrong-" + uuid.uuid4().hex
    url = parts._replace(netloc=f"{parts.username}:{secret}@{parts.hostname}:{parts.port}").geturl()
    r = run_failing(binary, tmp_path, url)
    assert r.returncode == 1, r.stderr
    assert "cannot open the database" in r.stderr
    assert secret not in r.stderr + r.stdout


@needs_server
@pytest.mark.single_process("starts its own two processes on one database it creates")
def test_two_processes_on_one_database_see_each_others_writes(pb, fresh_database, server):
    url = fresh_database
    a = server("--database", url)
    b = server("--database", url)
    with a.channel() as on_a, b.channel() as on_b:
        assert not check(pb, on_b, "alice", product="pro.monthly").active, "read on b first: cached there"
        seed(pb, on_a, "alice", [tx("1", "1", "pro.monthly", NOW - DAY, NOW + 30 * DAY)])
        deadline = time.monotonic() + 5
        while not check(pb, on_b, "alice", product="pro.monthly").active:
            assert time.monotonic() < deadline, "b never saw a's write: its cache was not invalidated"
            time.sleep(0.02)
    for s in (a, b):
        assert s.stop() == 0
        log = s.stderr()
        assert "store: PostgreSQL" in log and ":***@" in log, log
        assert password_of(url) not in log


def test_help_names_the_postgresql_url_and_the_pool_size(binary, tmp_path):
    r = subprocess.run([str(binary), "--help"], cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert r.returncode == 0
    assert "postgresql://" in r.stdout + r.stderr
    assert "--database-pool-size" in r.stdout + r.stderr


def readyz(s):
    """(status, body) of GET /readyz on `s`."""
    try:
        with urllib.request.urlopen(f"http://{s.address}/readyz", timeout=10) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def wait_for_readyz(s, wanted_status, seconds=20):
    deadline = time.monotonic() + seconds
    while (answer := readyz(s))[0] != wanted_status:
        assert time.monotonic() < deadline, f"/readyz still answers {answer} after {seconds}s"
        time.sleep(0.05)
    return answer


@needs_server
@pytest.mark.single_process("starts its own process on a database it makes unreachable")
def test_readyz_fails_while_the_database_is_unreachable_and_recovers(pb, fresh_database, server):
    """haproxy takes a replica out by its /readyz: 503 `store_unavailable` while the replica cannot
    reach PostgreSQL (its sessions ended, the database refusing new ones; why goes to the log),
    200 again once it can."""
    url = fresh_database
    name = url.rsplit("/", 1)[1]
    s = server("--database", url)
    assert readyz(s) == (200, "ok")

    def psql(sql):
        subprocess.run(["psql", SERVER_URL, "-qc", sql], check=True, capture_output=True)

    psql(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
    psql(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")
    status, body = wait_for_readyz(s, 503)
    assert body == "store_unavailable\n", body
    with s.channel() as channel:
        with pytest.raises(grpc.RpcError) as err:
            check(pb, channel, "bob", product="pro.monthly")
        assert err.value.code() == grpc.StatusCode.UNAVAILABLE, err.value.details()
    time.sleep(1)  # several reconnect attempts later: still out, and why
    assert readyz(s) == (503, "store_unavailable\n")
    assert "not currently accepting connections" in s.stderr(), "the reason is in the log"

    psql(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
    assert wait_for_readyz(s, 200) == (200, "ok")
    with s.channel() as channel:
        seed(pb, channel, "alice", [tx("1", "1", "pro.monthly", NOW - DAY, NOW + 30 * DAY)])
        assert check(pb, channel, "alice", product="pro.monthly").active
    log = s.stderr()
    assert "PostgreSQL LISTEN connection dropped" in log and "PostgreSQL LISTEN connection restored" in log, log


@needs_server
@pytest.mark.single_process("starts its own server on a database it creates")
def test_verify_store_fails_on_a_row_naming_a_missing_user(pb, fresh_database, server, binary):
    """The written tables' references are not checked as rows arrive (storage.md, "Foreign
    keys"): verify-store anti-joins each one and calls a row naming a missing parent damage."""
    url = fresh_database
    s = server("--database", url)
    with s.channel() as channel:
        seed(pb, channel, "alice", [tx("1", "1", "pro.monthly", NOW - DAY, NOW + 30 * DAY)])
    assert s.stop() == 0

    def verify():
        return subprocess.run([str(binary), "verify-store", "--database", url],
                              capture_output=True, text=True, timeout=120)

    sound = verify()
    assert sound.returncode == 0 and "result: sound" in sound.stdout, sound.stdout + sound.stderr
    subprocess.run(["psql", "-X", "-q", url, "-c", """
        INSERT INTO history_events (event_id, user_rowid, kind, occurred_at_ms, expires_at_ms,
            environment, source, apple_notification_type)
        SELECT 'v1:orphan', max(id) + 1000, 1, 1, 2, 1, 1, '' FROM users"""], check=True, capture_output=True)
    damaged = verify()
    assert damaged.returncode == 1, damaged.stdout + damaged.stderr
    assert "DAMAGE: history_events.user_rowid names a missing row of users in 1 row " in damaged.stdout, \
        damaged.stdout
    assert "result: DAMAGED" in damaged.stdout
