"""grpc.health.v1.Health/Check: the names the server serves, and the one it does not."""
import grpc
import pytest

from conftest import health_check


@pytest.mark.parametrize("service", ["", "entitlement.v1.EntitlementService"])
def test_served_names_are_serving(pb, default_server, service):
    reply = health_check(pb, default_server.channel(), service)
    assert reply.status == pb.health.HealthCheckResponse.SERVING


def test_unknown_service_name_is_not_found(pb, default_server):
    with pytest.raises(grpc.RpcError) as err:
        health_check(pb, default_server.channel(), "no.such.Service")
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
