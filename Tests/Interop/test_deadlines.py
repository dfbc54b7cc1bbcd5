"""Client deadlines reach the server (grpc-timeout) and end calls with DEADLINE_EXCEEDED;
the server keeps serving afterwards."""
import time

import grpc
import pytest

from conftest import assert_serving


def _sleep(pb, channel, ms: int, timeout: float):
    return pb.testing_grpc.TestingStub(channel).Sleep(pb.testing.SleepRequest(milliseconds=ms), timeout=timeout)


@pytest.mark.parametrize("sleep_ms,timeout", [(1000, 0.001), (300, 0.1)])
def test_deadline_exceeded(pb, default_server, sleep_ms, timeout):
    ch = default_server.channel()
    started = time.monotonic()
    with pytest.raises(grpc.RpcError) as err:
        _sleep(pb, ch, sleep_ms, timeout)
    elapsed = time.monotonic() - started
    assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED, err.value.details()
    assert elapsed < sleep_ms / 1000.0, f"the call took {elapsed:.3f}s: the deadline did not end it"
    # Same channel and a new one both still work.
    _sleep(pb, ch, 1, timeout=5)
    assert_serving(pb, default_server)


def test_sleep_within_deadline_succeeds(pb, default_server):
    started = time.monotonic()
    _sleep(pb, default_server.channel(), 200, timeout=5)
    assert time.monotonic() - started >= 0.19
