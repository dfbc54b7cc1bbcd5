"""Apple's refund questions end to end, appstore-sim as Apple: CONSUMPTION_REQUEST is recorded
(history with Apple's reason, a durable request), RecordConsumption checks its input and
ownership, and the answer (PUT /inApps/v2/transactions/consumption/{id}) goes to Apple once,
only with consent, only within the 12 hours, after a crash too; Apple's 5xx is retried, its 400
is not; REFUND_DECLINED is recorded; outcomes are counted. SQLite and PostgreSQL."""
import time

import grpc
import pytest

from test_apple_operations import (BACKEND, SUPPORT, Stack, database, fresh_database,  # noqa: F401 (fixtures)
                                   history, rpc_error)


@pytest.fixture
def stack(binary, server, tmp_path, database):  # noqa: F811 (the imported fixture)
    made = Stack(binary, server, tmp_path, database)
    yield made
    made.sim.stop()


def buy_coins(pb, stack, user):
    tx = stack.sim.control("purchase", {"product_id": "coins.100", "user_token": user})
    stack.stub().call(pb, "SubmitReceipt",
                      pb.ent.SubmitReceiptRequest(user_id=user, transaction_id=tx["transaction_id"]),
                      token=BACKEND, timeout=60)
    return tx["transaction_id"]


def record(pb, stack, user, transaction_id, consented=True, percentage=25_000, status="DELIVERED", sample=False,
           token=BACKEND):
    return stack.stub().call(pb, "RecordConsumption", pb.ent.RecordConsumptionRequest(
        user_id=user, transaction_id=transaction_id, customer_consented=consented,
        consumption_percentage=percentage, delivery_status=status, sample_content_provided=sample), token=token)


def answers(stack, transaction_id):
    return stack.sim.get("/control/consumption-answers")["answers"].get(transaction_id, [])


def wait_for_answers(stack, transaction_id, count=1):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        got = answers(stack, transaction_id)
        if len(got) >= count:
            return got
        time.sleep(0.1)
    pytest.fail(f"Apple got {answers(stack, transaction_id)} for {transaction_id}, wanted {count} answer(s)")


def settle(stack):
    """Until the sim's webhook deliveries are done and the answerer has had two looks."""
    stack.wait_delivered()
    time.sleep(1.5)


def outcome_count(stack, outcome):
    wanted = f'entitlementd_consumption_answers_total{{outcome="{outcome}"}}'
    for line in stack.metrics().splitlines():
        if line.startswith(wanted):
            return float(line.rsplit(" ", 1)[1])
    return 0


def test_data_recorded_before_the_request_is_sent_once_when_apple_asks(pb, stack):
    stack.start("--admin-listen", "127.0.0.1:0", "--refund-preference", "grant-prorated")
    tx = buy_coins(pb, stack, "early")
    record(pb, stack, "early", tx, percentage=40_000, sample=True)
    settle(stack)
    assert answers(stack, tx) == [], "no request yet: nothing is sent"
    stack.sim.control("refund-request", {"transaction_id": tx, "reason": "UNSATISFIED_WITH_PURCHASE"})
    assert wait_for_answers(stack, tx) == [{
        "customerConsented": True, "consumptionPercentage": 40_000, "deliveryStatus": "DELIVERED",
        "sampleContentProvided": True, "refundPreference": "GRANT_PRORATED"}]
    events = [e for e in history(pb, stack, "early") if e.type == pb.ent.EVENT_TYPE_CONSUMPTION_REQUEST]
    assert [(e.reason, e.apple_notification_type, e.transaction_id) for e in events] == [
        ("UNSATISFIED_WITH_PURCHASE", "CONSUMPTION_REQUEST", tx)]
    # Recording again, and Apple asking again (a redelivery), send nothing more.
    record(pb, stack, "early", tx, percentage=50_000)
    settle(stack)
    assert len(answers(stack, tx)) == 1
    assert outcome_count(stack, "sent") == 1


def test_a_request_waits_for_data_and_none_is_sent_without_consent(pb, stack):
    stack.start()
    later = buy_coins(pb, stack, "later")
    refused = buy_coins(pb, stack, "refuser")
    for tx in (later, refused):
        stack.sim.control("refund-request", {"transaction_id": tx})
    settle(stack)
    record(pb, stack, "refuser", refused, consented=False)
    settle(stack)
    assert answers(stack, refused) == [], "never without consent"
    record(pb, stack, "later", later, status="UNDELIVERED_SERVER_OUTAGE", percentage=0)
    got = wait_for_answers(stack, later)
    assert got == [{"customerConsented": True, "consumptionPercentage": 0,
                    "deliveryStatus": "UNDELIVERED_SERVER_OUTAGE", "sampleContentProvided": False}], \
        "--refund-preference none leaves refundPreference out"
    settle(stack)
    assert answers(stack, refused) == [] and len(answers(stack, later)) == 1


def test_nothing_is_sent_after_the_12_hours(pb, stack):
    stack.start("--admin-listen", "127.0.0.1:0")
    tx = buy_coins(pb, stack, "too-late")
    stack.sim.control("refund-request", {"transaction_id": tx, "ago": "13h"})
    settle(stack)
    record(pb, stack, "too-late", tx)
    settle(stack)
    assert answers(stack, tx) == []
    assert outcome_count(stack, "expired") == 1
    assert not any(key.startswith("PUT v2/transactions/consumption") for key in stack.api_requests())


def test_a_request_that_arrived_before_a_crash_is_answered_after_it(pb, stack):
    daemon = stack.start()
    tx = buy_coins(pb, stack, "crash")
    stack.sim.control("refund-request", {"transaction_id": tx})
    stack.wait_delivered()
    daemon.kill()
    daemon.check_exit_code = False
    stack.start()
    record(pb, stack, "crash", tx)
    assert len(wait_for_answers(stack, tx)) == 1


def test_apple_5xx_is_retried_and_its_400_is_not(pb, stack):
    stack.start("--admin-listen", "127.0.0.1:0")
    flaky = buy_coins(pb, stack, "flaky")
    record(pb, stack, "flaky", flaky)
    stack.sim.control("api-fault", {"status": "503", "count": "2"})
    stack.sim.control("refund-request", {"transaction_id": flaky})
    assert len(wait_for_answers(stack, flaky)) == 1
    requests = stack.api_requests()
    assert requests.get("PUT v2/transactions/consumption Production 503") == 2
    assert requests.get("PUT v2/transactions/consumption Production 202") == 1
    metrics = stack.metrics()
    for status, count in (("503", 2), ("202", 1)):
        assert (f'entitlementd_app_store_api_requests_total{{endpoint="consumption",status="{status}",'
                f'environment="production"}} {count}') in metrics, metrics
    refused = buy_coins(pb, stack, "refused")
    record(pb, stack, "refused", refused)
    stack.sim.control("api-fault", {"status": "400", "count": "1"})
    stack.sim.control("refund-request", {"transaction_id": refused})
    deadline = time.monotonic() + 60
    while outcome_count(stack, "rejected") < 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert outcome_count(stack, "rejected") == 1
    record(pb, stack, "refused", refused, percentage=1)
    settle(stack)
    assert answers(stack, refused) == [], "a rejected answer is never sent again"
    assert stack.api_requests().get("PUT v2/transactions/consumption Production 400") == 1
    assert "Apple rejected the consumption information" in stack.daemon.stderr()


@pytest.mark.parametrize("fields,words", [
    ({"percentage": 100_001}, "consumption_percentage"), ({"percentage": -1}, "consumption_percentage"),
    ({"status": "delivered"}, "delivery_status"), ({"status": ""}, "delivery_status"),
    ({"user": ""}, "user_id"), ({"transaction_id": ""}, "transaction_id"),
])
def test_bad_input_is_invalid_argument(pb, stack, fields, words):
    stack.start()
    tx = buy_coins(pb, stack, "input")
    args = {"user": "input", "transaction_id": tx, **fields}
    error = rpc_error(lambda: record(pb, stack, args.pop("user"), args.pop("transaction_id"), **args))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert words in error.details()


def test_another_users_transaction_is_not_found_and_roles(pb, stack):
    stack.start()
    tx = buy_coins(pb, stack, "owner")
    error = rpc_error(lambda: record(pb, stack, "intruder", tx))
    assert error.code() == grpc.StatusCode.NOT_FOUND
    assert rpc_error(lambda: record(pb, stack, "owner", tx, token=SUPPORT)).code() == \
        grpc.StatusCode.PERMISSION_DENIED


def test_refund_declined_is_recorded(pb, stack):
    stack.start()
    tx = buy_coins(pb, stack, "declined")
    stack.sim.control("refund-request", {"transaction_id": tx})
    stack.sim.control("decline-refund", {"transaction_id": tx})
    stack.wait_delivered()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        types = [e.type for e in history(pb, stack, "declined")]
        if pb.ent.EVENT_TYPE_REFUND_DECLINED in types:
            break
        time.sleep(0.1)
    assert pb.ent.EVENT_TYPE_REFUND_DECLINED in types and pb.ent.EVENT_TYPE_CONSUMPTION_REQUEST in types


def test_record_consumption_without_the_key_is_failed_precondition(pb, stack):
    stack.start(key=False)
    error = rpc_error(lambda: record(pb, stack, "u", "1"))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "--app-store-key" in error.details()


def test_a_v1_consumption_request_is_recorded_and_answered(pb, binary, server, tmp_path):
    stack = Stack(binary, server, tmp_path, tmp_path / "v1.sqlite", version="v1")
    try:
        stack.start()
        tx = stack.sim.control("purchase", {"product_id": "pro.monthly", "user_token": "v1-user", "period": "30d"})
        stack.stub().call(pb, "SubmitReceipt", pb.ent.SubmitReceiptRequest(
            user_id="v1-user", transaction_id=tx["transaction_id"]), token=BACKEND, timeout=60)
        record(pb, stack, "v1-user", tx["transaction_id"])
        stack.sim.control("refund-request", {"transaction_id": tx["transaction_id"]})
        assert len(wait_for_answers(stack, tx["transaction_id"])) == 1
        events = [e for e in history(pb, stack, "v1-user") if e.type == pb.ent.EVENT_TYPE_CONSUMPTION_REQUEST]
        assert [(e.source, e.apple_notification_type) for e in events] == [
            (pb.ent.EVENT_SOURCE_NOTIFICATION_V1, "CONSUMPTION_REQUEST")]
    finally:
        stack.sim.stop()
