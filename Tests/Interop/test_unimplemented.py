"""Entitlement RPCs that have no implementation yet answer UNIMPLEMENTED.

Temporary: when an RPC here lands, replace its case with real tests (CheckEntitlement and
ListHistory have theirs in test_entitlements.py).
"""
import grpc
import pytest


def _call(pb, channel, method):
    stub = pb.ent_grpc.EntitlementServiceStub(channel)
    requests = {
        "SubmitReceipt": pb.ent.SubmitReceiptRequest(user_id="u1", receipt_data="AAAA"),
    }
    return getattr(stub, method)(requests[method], timeout=5)


@pytest.mark.parametrize("method", ["SubmitReceipt"])
def test_entitlement_rpc_is_unimplemented_for_now(pb, default_server, method):
    with pytest.raises(grpc.RpcError) as err:
        _call(pb, default_server.channel(), method)
    assert err.value.code() == grpc.StatusCode.UNIMPLEMENTED, err.value.details()
