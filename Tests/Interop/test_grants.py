"""Grants (GrantEntitlement / RevokeGrant) over gRPC, every rule on SQLite and on PostgreSQL:
what CheckEntitlement finds, the row's shape, history with actor and reason, revocation that is
not retroactive, the change stream, Explain, errors, idempotency; and the roles that may grant."""
import json
import os
import threading
import time

import grpc
import pytest

from test_entitlementctl import ctl  # noqa: F401 (a fixture)
from test_entitlements import tx
from test_postgres_store import SERVER_URL, fresh_database  # noqa: F401 (a fixture)

DAY = 86_400_000
SUPPORT = "support-token-5c1e"
VIEWER = "viewer-token-a9d0"
RPC = "rpc-token-33f7"
LEGACY = "legacy-token-e2b4"


def now_ms():
    return int(time.time() * 1000)


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, tmp_path):
    """The --database of the test's server: a SQLite file, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return tmp_path / "grants.sqlite"
    if not SERVER_URL:
        pytest.skip("ENTITLEMENTD_TEST_POSTGRES_URL is not set")
    return request.getfixturevalue("fresh_database")


@pytest.fixture
def tokens(tmp_path):
    path = tmp_path / "tokens"
    path.write_text(f"{SUPPORT} name=alice roles=support\n{VIEWER} name=vera roles=viewer\n"
                    f"{RPC} name=backend roles=rpc\n{LEGACY}\n")
    os.chmod(path, 0o600)
    return path


@pytest.fixture
def catalog(tmp_path):
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps({"products": [
        {"product_id": "pro.monthly", "type": "auto_renewable", "entitlement_id": "pro"},
        {"product_id": "pro.yearly", "type": "auto_renewable", "entitlement_id": "pro"},
    ]}))
    return path


@pytest.fixture
def s(server, database, tokens, catalog):
    return server("--database", database, "--auth-tokens-file", tokens, "--catalog", catalog)


def md(token):
    return [("authorization", f"Bearer {token}")]


def stub(pb, server):
    return pb.ent_grpc.EntitlementServiceStub(server.channel())


def grant(pb, server, user, entitlement="pro", days=7, reason="goodwill after outage", token=SUPPORT, **extra):
    request = pb.ent.GrantEntitlementRequest(user_id=user, entitlement_id=entitlement, reason=reason, **extra)
    if "expires_at_ms" not in extra:
        request.expires_at_ms = (extra.get("starts_at_ms") or now_ms()) + days * DAY
    return stub(pb, server).GrantEntitlement(request, timeout=10, metadata=md(token))


def revoke(pb, server, user, grant_id, reason="granted by mistake", token=SUPPORT):
    return stub(pb, server).RevokeGrant(pb.ent.RevokeGrantRequest(user_id=user, grant_id=grant_id, reason=reason),
                                        timeout=10, metadata=md(token))


def check(pb, server, user, product="", entitlement="", at_ms=0):
    return stub(pb, server).CheckEntitlement(pb.ent.CheckEntitlementRequest(
        user_id=user, product_id=product, entitlement_id=entitlement, at_ms=at_ms), timeout=10, metadata=md(RPC))


def code_of(call):
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value.code(), info.value.details()


def test_a_grant_is_found_by_entitlement_by_mapped_product_and_unfiltered(pb, s):
    reply = grant(pb, s, "u1", days=7)
    e = reply.entitlement
    assert reply.grant_id.startswith("g") and e.grant_id == reply.grant_id
    assert e.product_type == pb.ent.PRODUCT_TYPE_PROMOTIONAL and e.entitlement_id == "pro"
    assert e.product_id == "" and e.original_transaction_id == ""
    assert e.state == pb.ent.ENTITLEMENT_STATE_ACTIVE and e.active
    assert abs(e.expires_at_ms - e.purchased_at_ms - 7 * DAY) < 60_000, "starts now (the server's clock)"
    for filters in ({}, {"entitlement": "pro"}, {"product": "pro.monthly"}, {"product": "pro.yearly"}):
        answer = check(pb, s, "u1", **filters)
        assert answer.active, filters
        assert [x.grant_id for x in answer.entitlements] == [reply.grant_id], filters
    assert not check(pb, s, "u1", entitlement="other").active
    assert not check(pb, s, "u1", product="other.product").active
    assert not check(pb, s, "someone-else").active


def test_without_a_catalog_the_product_id_equal_to_the_entitlement_matches(pb, server, database, tokens):
    bare = server("--database", database, "--auth-tokens-file", tokens)
    grant(pb, bare, "u2", entitlement="premium")
    assert check(pb, bare, "u2", product="premium").active
    assert not check(pb, bare, "u2", product="pro.monthly").active


def test_grant_and_subscription_are_active_if_either_is(pb, s):
    now = now_ms()
    facts = {"transactions": [tx("7001", "7001", "pro.monthly", now - 40 * DAY, now - 10 * DAY)]}
    pb.testing_grpc.TestingStub(s.channel()).Seed(
        pb.testing.SeedRequest(user_id="u3", facts_json=json.dumps(facts)), timeout=10, metadata=md(RPC))
    assert not check(pb, s, "u3", entitlement="pro").active
    reply = grant(pb, s, "u3", days=3)
    answer = check(pb, s, "u3", entitlement="pro")
    assert answer.active
    assert {x.state for x in answer.entitlements} == {pb.ent.ENTITLEMENT_STATE_ACTIVE,
                                                      pb.ent.ENTITLEMENT_STATE_EXPIRED}
    assert answer.entitlements[0].grant_id == reply.grant_id
    revoke(pb, s, "u3", reply.grant_id)
    assert not check(pb, s, "u3", entitlement="pro").active


def test_expired_and_future_grants(pb, s):
    now = now_ms()
    past = grant(pb, s, "u4", starts_at_ms=now - 10 * DAY, expires_at_ms=now - DAY)
    assert past.entitlement.state == pb.ent.ENTITLEMENT_STATE_EXPIRED and not past.entitlement.active
    answer = check(pb, s, "u4")
    assert not answer.active and answer.entitlements[0].state == pb.ent.ENTITLEMENT_STATE_EXPIRED
    assert check(pb, s, "u4", at_ms=now - 5 * DAY).active, "it covered that instant"
    future = grant(pb, s, "u5", starts_at_ms=now + 5 * DAY, expires_at_ms=now + 9 * DAY)
    assert future.entitlement.state == pb.ent.ENTITLEMENT_STATE_ACTIVE, "as it will be at its start"
    assert not check(pb, s, "u5").active and len(check(pb, s, "u5").entitlements) == 0
    assert check(pb, s, "u5", at_ms=now + 6 * DAY).active


def test_revocation_is_recorded_with_actor_and_reason_and_is_not_retroactive(pb, s):
    before = now_ms() - 1
    reply = grant(pb, s, "u6", reason="refund dispute goodwill")
    time.sleep(0.01)
    revoked = revoke(pb, s, "u6", reply.grant_id, reason="abuse")
    assert revoked.entitlement.state == pb.ent.ENTITLEMENT_STATE_REVOKED and not revoked.entitlement.active
    assert revoked.entitlement.grant_id == reply.grant_id
    answer = check(pb, s, "u6", entitlement="pro")
    assert not answer.active and answer.entitlements[0].state == pb.ent.ENTITLEMENT_STATE_REVOKED
    # Before the revocation the grant still held.
    assert check(pb, s, "u6", entitlement="pro", at_ms=reply.entitlement.purchased_at_ms + 1).active
    assert before < revoked.entitlement.purchased_at_ms + 1
    # Revoking again changes nothing: the first revocation stands.
    again = revoke(pb, s, "u6", reply.grant_id, reason="twice")
    assert again.entitlement == revoked.entitlement
    events = stub(pb, s).ListHistory(pb.ent.ListHistoryRequest(user_id="u6"), timeout=10, metadata=md(RPC)).events
    assert [e.type for e in events] == [pb.ent.EVENT_TYPE_GRANT_REVOKED, pb.ent.EVENT_TYPE_GRANT]
    for e, reason in zip(events, ["abuse", "refund dispute goodwill"]):
        assert e.source == pb.ent.EVENT_SOURCE_OPERATOR and e.actor == "alice" and e.reason == reason
        assert e.product_id == "pro" and e.transaction_id == reply.grant_id and e.original_transaction_id == ""
    log = s.stderr()
    granted = [line for line in log.splitlines() if "entitlement granted" in line]
    assert len(granted) == 1 and "alice" in granted[0] and reply.grant_id in granted[0], log
    revoked_lines = [line for line in log.splitlines() if "grant revoked" in line]
    assert len(revoked_lines) == 1 and "abuse" in revoked_lines[0], "the repeated revocation changed nothing"
    for token in (SUPPORT, VIEWER, RPC, LEGACY):
        assert token not in log


def test_explain_names_the_grant_its_actor_and_reason(pb, s):
    reply = grant(pb, s, "u7", reason="beta tester")
    explained = stub(pb, s).ExplainEntitlement(pb.ent.ExplainEntitlementRequest(user_id="u7", entitlement_id="pro"),
                                               timeout=10, metadata=md(RPC))
    assert len(explained.explanations) == 1
    reason = explained.explanations[0].reason
    assert f"active because of grant {reply.grant_id} by alice: beta tester" in reason, reason


def test_the_change_stream_carries_grants(pb, s):
    changes = []
    call = stub(pb, s).WatchEntitlementChanges(pb.ent.WatchEntitlementChangesRequest(user_id="u8"), timeout=20,
                                               metadata=md(RPC))

    def read():
        try:
            for change in call:
                changes.append(change)
                if len(changes) == 2:
                    return
        except grpc.RpcError:
            pass

    reader = threading.Thread(target=read)
    reader.start()
    time.sleep(0.5)
    reply = grant(pb, s, "u8")
    revoke(pb, s, "u8", reply.grant_id)
    reader.join(15)
    call.cancel()
    assert [c.entitlement.state for c in changes] == [pb.ent.ENTITLEMENT_STATE_ACTIVE,
                                                      pb.ent.ENTITLEMENT_STATE_REVOKED]
    for c in changes:
        assert c.entitlement.grant_id == reply.grant_id and c.entitlement.original_transaction_id == ""
        assert c.entitlement.product_type == pb.ent.PRODUCT_TYPE_PROMOTIONAL
    assert changes[0].cause_event_id == f"grant:{reply.grant_id}"
    assert changes[1].cause_event_id == f"grant_revoked:{reply.grant_id}"


def test_the_same_idempotency_key_returns_the_same_grant(pb, s):
    first = grant(pb, s, "u9", idempotency_key="ticket-1234")
    again = grant(pb, s, "u9", idempotency_key="ticket-1234", days=30, reason="retry")
    assert again.grant_id == first.grant_id and again.entitlement == first.entitlement
    other_user = grant(pb, s, "u10", idempotency_key="ticket-1234")
    assert other_user.grant_id != first.grant_id, "keys are per user"
    other_key = grant(pb, s, "u9", idempotency_key="ticket-5678")
    assert other_key.grant_id != first.grant_id
    assert len(check(pb, s, "u9").entitlements) == 2


def test_errors(pb, s):
    now = now_ms()
    invalid = grpc.StatusCode.INVALID_ARGUMENT
    assert code_of(lambda: grant(pb, s, "e", entitlement=""))[0] == invalid
    assert code_of(lambda: grant(pb, s, "e", reason=""))[0] == invalid
    assert code_of(lambda: grant(pb, s, "e", reason="   "))[0] == invalid
    assert code_of(lambda: grant(pb, s, "", reason="x"))[0] == invalid
    code, details = code_of(lambda: grant(pb, s, "e", starts_at_ms=now, expires_at_ms=now))
    assert code == invalid and "must be after the start" in details
    assert code_of(lambda: grant(pb, s, "e", expires_at_ms=0))[0] == invalid
    code, details = code_of(lambda: grant(pb, s, "e", starts_at_ms=now, expires_at_ms=now + 3654 * DAY))
    assert code == invalid and "10 years" in details
    assert grant(pb, s, "e", starts_at_ms=now, expires_at_ms=now + 3650 * DAY).entitlement.active
    code, details = code_of(lambda: revoke(pb, s, "e", "gnope"))
    assert code == grpc.StatusCode.NOT_FOUND and "gnope" in details
    real = grant(pb, s, "e2")
    assert code_of(lambda: revoke(pb, s, "someone-else", real.grant_id))[0] == grpc.StatusCode.NOT_FOUND
    assert code_of(lambda: revoke(pb, s, "e2", real.grant_id, reason=""))[0] == invalid


def test_only_support_and_admin_may_grant_and_the_name_is_the_actor(pb, s):
    for token in (VIEWER, RPC):
        code, details = code_of(lambda: grant(pb, s, "r1", token=token))
        assert code == grpc.StatusCode.PERMISSION_DENIED and "needs support or admin" in details
        assert token not in details
    assert code_of(lambda: grant(pb, s, "r1", token="wrong"))[0] == grpc.StatusCode.UNAUTHENTICATED
    reply = grant(pb, s, "r1", token=SUPPORT)
    assert code_of(lambda: revoke(pb, s, "r1", reply.grant_id, token=RPC))[0] == grpc.StatusCode.PERMISSION_DENIED
    # A line without roles= keeps every right; without name= it is recorded as "unnamed".
    legacy = grant(pb, s, "r2", token=LEGACY)
    events = stub(pb, s).ListHistory(pb.ent.ListHistoryRequest(user_id="r2"), timeout=10, metadata=md(RPC)).events
    assert events[0].actor == "unnamed" and legacy.grant_id
    events = stub(pb, s).ListHistory(pb.ent.ListHistoryRequest(user_id="r1"), timeout=10, metadata=md(RPC)).events
    assert events[0].actor == "alice"


def test_grants_survive_a_restart(pb, server, database, tokens):
    first = server("--database", database, "--auth-tokens-file", tokens)
    reply = grant(pb, first, "p1", days=2)
    assert first.stop() == 0
    again = server("--database", database, "--auth-tokens-file", tokens)
    answer = check(pb, again, "p1", entitlement="pro")
    assert answer.active and answer.entitlements[0].grant_id == reply.grant_id


def test_entitlementctl_grants_and_revokes(pb, s, ctl):
    env = {"ENTITLEMENTCTL_TOKEN": SUPPORT}
    r = ctl("grant", "c1", "pro", "--for", "7d", "--reason", "ticket 42", "--json", server=s, env=env)
    assert r.returncode == 0, r.stderr
    granted = json.loads(r.stdout)
    grant_id = granted["grantId"]
    e = granted["entitlement"]
    assert e["grantId"] == grant_id and e["state"] == "ENTITLEMENT_STATE_ACTIVE" and e["entitlementId"] == "pro"
    assert int(e["expiresAtMs"]) - int(e["purchasedAtMs"]) == 7 * DAY, "exactly --for"
    table = ctl("check", "c1", "--entitlement", "pro", server=s, env={"ENTITLEMENTCTL_TOKEN": RPC})
    assert table.returncode == 0, table.stderr
    row = table.stdout.splitlines()[3].split()
    assert row[0] == "-" and row[1] == "active" and row[-2:] == ["pro", grant_id], table.stdout
    r = ctl("revoke-grant", "c1", grant_id, "--reason", "ticket 43", server=s, env=env)
    assert r.returncode == 0 and f"revoked grant {grant_id} of c1" in r.stdout, r
    assert r.stdout.splitlines()[2].split()[1] == "revoked", r.stdout
    assert ctl("check", "c1", server=s, env={"ENTITLEMENTCTL_TOKEN": RPC}).returncode == 1
    # What the server refuses, the caller hears with the status name.
    r = ctl("grant", "c1", "pro", "--for", "7d", server=s, env=env)
    assert r.returncode == 3 and r.stderr.startswith("INVALID_ARGUMENT: reason is required"), r.stderr
    r = ctl("grant", "c1", "pro", "--for", "7d", "--reason", "x", server=s, env={"ENTITLEMENTCTL_TOKEN": VIEWER})
    assert r.returncode == 3 and r.stderr.startswith("PERMISSION_DENIED: "), r.stderr
    r = ctl("grant", "c1", "pro", "--reason", "x", server=s, env=env)
    assert r.returncode == 2 and "--for" in r.stderr, r.stderr
    r = ctl("revoke-grant", "c1", "gnope", "--reason", "x", server=s, env=env)
    assert r.returncode == 3 and r.stderr.startswith("NOT_FOUND: "), r.stderr


def test_webhooks_carry_grants_as_proto3_json(pb, server, database, tokens, monkeypatch):
    from google.protobuf import json_format
    from test_webhooks import FAST_RETRY, SECRET
    from webhook_receiver import Receiver
    monkeypatch.setenv("ENTITLEMENTD_TESTING_WEBHOOK_RETRY", FAST_RETRY)
    receiver = Receiver(SECRET.encode())
    hooked = server("--database", database, "--auth-tokens-file", tokens, "--webhook-url", receiver.url,
                    "--webhook-secret", SECRET)
    reply = grant(pb, hooked, "w1")
    revoke(pb, hooked, "w1", reply.grant_id)
    deadline = time.monotonic() + 60  # the suite's webhook wait: deliveries start after the first poll
    while len(receiver.accepted()) < 2:
        assert time.monotonic() < deadline, "both changes delivered"
        time.sleep(0.05)
    bodies = [a.body for a in receiver.accepted()]
    assert [b["entitlement"]["state"] for b in bodies] == ["ENTITLEMENT_STATE_ACTIVE", "ENTITLEMENT_STATE_REVOKED"]
    for body in bodies:
        assert body["userId"] == "w1" and body["entitlement"]["grantId"] == reply.grant_id
        assert "originalTransactionId" not in body["entitlement"] and "productId" not in body["entitlement"]
        # What a receiver's protobuf library reads back.
        parsed = json_format.ParseDict(body, pb.ent.EntitlementChange())
        assert parsed.entitlement.product_type == pb.ent.PRODUCT_TYPE_PROMOTIONAL
    receiver.stop()


@pytest.mark.skipif(not SERVER_URL, reason="ENTITLEMENTD_TEST_POSTGRES_URL is not set")
@pytest.mark.single_process("starts its own two processes on one database it creates")
def test_a_grant_on_one_replica_is_seen_by_the_other(pb, server, fresh_database, tokens):  # noqa: F811
    a = server("--database", fresh_database, "--auth-tokens-file", tokens)
    b = server("--database", fresh_database, "--auth-tokens-file", tokens)
    assert not check(pb, b, "rep", entitlement="pro").active, "read on b first: cached there"
    reply = grant(pb, a, "rep")
    deadline = time.monotonic() + 10
    while not check(pb, b, "rep", entitlement="pro").active:
        assert time.monotonic() < deadline, "b never saw a's grant: its cache was not invalidated"
        time.sleep(0.02)
    revoke(pb, b, "rep", reply.grant_id)
    deadline = time.monotonic() + 10
    while check(pb, a, "rep", entitlement="pro").active:
        assert time.monotonic() < deadline, "a never saw b's revocation"
        time.sleep(0.02)
