"""Paths the router does not know answer UNIMPLEMENTED (gRPC spec), not a transport error."""
import grpc
import pytest


@pytest.mark.parametrize("path", [
    "/entitlement.v1.EntitlementService/Nope",
    "/no.such.v1.Service/Check",
    "/grpc.health.v1.Health/List",
])
def test_unknown_path_is_unimplemented(pb, default_server, path):
    ch = default_server.channel()
    call = ch.unary_unary(path, request_serializer=lambda b: b, response_deserializer=lambda b: b)
    with pytest.raises(grpc.RpcError) as err:
        call(b"", timeout=5)
    assert err.value.code() == grpc.StatusCode.UNIMPLEMENTED, err.value.details()
    # The channel is still usable afterwards.
    reply = pb.health_grpc.HealthStub(ch).Check(pb.health.HealthCheckRequest(), timeout=5)
    assert reply.status == pb.health.HealthCheckResponse.SERVING
