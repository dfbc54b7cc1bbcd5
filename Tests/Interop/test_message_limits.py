"""Request messages over --max-message-size are refused with RESOURCE_EXHAUSTED, and the
connection survives: the refusal is a stream error, not a connection error."""
import grpc
import pytest

from conftest import health_check


def _check_code(pb, channel, user_id: str):
    """The status of a CheckEntitlement call whose request carries `user_id`."""
    stub = pb.ent_grpc.EntitlementServiceStub(channel)
    try:
        stub.CheckEntitlement(pb.ent.CheckEntitlementRequest(user_id=user_id), timeout=10)
        return grpc.StatusCode.OK, ""
    except grpc.RpcError as e:
        return e.code(), e.details()


def test_oversized_message_is_resource_exhausted_and_channel_survives(pb, default_server):
    ch = default_server.channel(max_send_message_length=-1)
    assert _check_code(pb, ch, "x" * (5 << 20))[0] == grpc.StatusCode.RESOURCE_EXHAUSTED
    # The SAME channel still works, for a small call of the same method and for health.
    assert _check_code(pb, ch, "u1") == (grpc.StatusCode.OK, "")
    assert health_check(pb, ch).status == pb.health.HealthCheckResponse.SERVING


def test_message_just_under_default_limit_passes_the_limit(pb, default_server):
    ch = default_server.channel(max_send_message_length=-1)
    # Reaches the handler rather than the size check (which may still refuse the user_id).
    assert _check_code(pb, ch, "x" * ((4 << 20) - 64))[0] != grpc.StatusCode.RESOURCE_EXHAUSTED


def test_configured_limit_is_enforced(pb, server):
    s = server("--max-message-size", "65536")
    ch = s.channel(max_send_message_length=-1)
    assert _check_code(pb, ch, "x" * 70_000)[0] == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert _check_code(pb, ch, "x" * 60_000)[0] != grpc.StatusCode.RESOURCE_EXHAUSTED
    assert _check_code(pb, ch, "u1") == (grpc.StatusCode.OK, "")
    assert health_check(pb, ch).status == pb.health.HealthCheckResponse.SERVING
