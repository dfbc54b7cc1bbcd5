"""Many concurrent calls on one channel (HTTP/2 streams) and across many channels."""
import grpc

from conftest import health_check

CALLS = 1000


def _start_calls(pb, channels, n):
    futures = []
    for i in range(n):
        ch = channels[i % len(channels)]
        stub = pb.health_grpc.HealthStub(ch)
        futures.append(stub.Check.future(pb.health.HealthCheckRequest(service=""), timeout=30))
    return futures


def _assert_all_serving(pb, futures):
    codes = {}
    for f in futures:
        try:
            ok = f.result().status == pb.health.HealthCheckResponse.SERVING
            codes["SERVING" if ok else "other status"] = codes.get("SERVING" if ok else "other status", 0) + 1
        except grpc.RpcError as e:
            codes[e.code().name] = codes.get(e.code().name, 0) + 1
    assert codes == {"SERVING": len(futures)}


def test_1000_concurrent_calls_on_one_channel(pb, default_server):
    ch = default_server.channel()
    _assert_all_serving(pb, _start_calls(pb, [ch], CALLS))


def test_1000_calls_over_50_channels(pb, default_server):
    channels = [default_server.channel() for _ in range(50)]
    _assert_all_serving(pb, _start_calls(pb, channels, CALLS))


def test_concurrent_sleeps_overlap(pb, default_server):
    """Slow handlers do not serialize: 200 concurrent 300 ms sleeps finish in well under 200 x 300 ms."""
    import time
    stub = pb.testing_grpc.TestingStub(default_server.channel())
    started = time.monotonic()
    futures = [stub.Sleep.future(pb.testing.SleepRequest(milliseconds=300), timeout=30) for _ in range(200)]
    for f in futures:
        f.result()
    assert time.monotonic() - started < 5
