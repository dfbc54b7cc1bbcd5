"""Issue 16: retrying a receipt right after DEADLINE_EXCEEDED gets a real answer.

The first call's deadline ends it while Apple (a slow fake) is still answering; the server
then cancels the verification that call started. A retry of the same receipt arriving while
that cancellation winds down used to join it and get CANCELLED "call cancelled" within a
millisecond (7 of 30 tries); it must start live work instead.
"""
import grpc
import pytest

from fake_apple import FakeApple

TRIES = 30


@pytest.fixture
def slow_apple():
    fake = FakeApple()
    fake.latency = 0.2
    yield fake
    fake.close()


def test_retry_right_after_deadline_exceeded_gets_an_answer(pb, server, slow_apple):
    s = server(*slow_apple.flags())
    stub = pb.ent_grpc.EntitlementServiceStub(s.channel())
    outcomes = {}
    calls = []
    for i in range(TRIES):
        data = slow_apple.receipt()
        request = pb.ent.SubmitReceiptRequest(user_id=f"retry-{i}", receipt_data=data)
        with pytest.raises(grpc.RpcError) as first:
            stub.SubmitReceipt(request, timeout=0.05)
        assert first.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED, first.value.details()
        try:
            reply = stub.SubmitReceipt(request, timeout=30)
            outcome = "OK" if reply.apple_status == 0 else f"apple_status {reply.apple_status}"
        except grpc.RpcError as error:
            outcome = f"{error.code().name} {error.details()!r}"
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        calls.append(len(slow_apple.calls_for(data)))
    print(f"\nApple calls per try (first call + retry): {calls}")
    assert outcomes == {"OK": TRIES}, f"retries after DEADLINE_EXCEEDED: {outcomes}"
    # A try exercises the race only when its first call reached Apple before its deadline.
    assert 2 in calls, "no first call reached Apple before its deadline: the race was never exercised"
