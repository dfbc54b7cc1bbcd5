"""Deploy/nginx.conf, run by nginx with TLS in front of a running entitlementd: grpcio and
HTTPS clients get through it exactly what they get from the backend directly."""
import http.client
import json
import ssl
import struct
import subprocess
import time

import grpc
import pytest

import nginx_harness
from deploy_support import DEPLOY, SERVER_NAME, TOKEN, free_port, need_tool

AUTH = [("authorization", f"Bearer {TOKEN}")]
MiB = 1 << 20


@pytest.fixture(scope="module")
def nginx():
    return need_tool("nginx")


@pytest.fixture(scope="module")
def rendered(nginx, backend, certificate, tmp_path_factory):
    prefix = tmp_path_factory.mktemp("nginx")
    port = free_port()
    main = nginx_harness.render((DEPLOY / "nginx.conf").read_text(), prefix, port, backend.port, *certificate)
    return prefix, main, port


@pytest.fixture(scope="module")
def proxy(nginx, rendered):
    prefix, main, port = rendered
    running = nginx_harness.start(nginx, prefix, main, port)
    yield running
    nginx_harness.stop(running.proc)


@pytest.fixture(scope="module")
def tls_channel(proxy, certificate):
    credentials = grpc.ssl_channel_credentials(root_certificates=certificate[0].read_bytes())
    options = [("grpc.ssl_target_name_override", SERVER_NAME), ("grpc.enable_http_proxy", 0)]
    with grpc.secure_channel(f"127.0.0.1:{proxy.port}", credentials, options=options) as channel:
        yield channel


@pytest.fixture(scope="module")
def direct_channel(backend):
    with grpc.insecure_channel(backend.address, options=[("grpc.enable_http_proxy", 0)]) as channel:
        yield channel


def outcome(call, request, **kwargs):
    """(code, details) of a unary call; OK with the reply's bytes when it succeeds."""
    try:
        reply = call(request, **kwargs)
        return grpc.StatusCode.OK, reply.SerializeToString()
    except grpc.RpcError as error:
        return error.code(), error.details()


class ServerNameHTTPS(http.client.HTTPConnection):
    """HTTPS to 127.0.0.1 that sends SERVER_NAME as SNI and checks the certificate against it."""

    def __init__(self, port, context):
        super().__init__("127.0.0.1", port, timeout=30)
        self.context = context

    def connect(self):
        super().connect()
        self.sock = self.context.wrap_socket(self.sock, server_hostname=SERVER_NAME)


def https(proxy, certificate, method, path, body=None, headers=None):
    conn = ServerNameHTTPS(proxy.port, ssl.create_default_context(cafile=str(certificate[0])))
    try:
        conn.request(method, path, body=body, headers={"Host": SERVER_NAME, **(headers or {})})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_nginx_t_accepts_the_shipped_config(nginx, rendered):
    prefix, main, _ = rendered
    r = subprocess.run([*nginx_harness.arguments(nginx, prefix, main), "-t"], capture_output=True, text=True, timeout=30)
    print(r.stderr)
    assert r.returncode == 0, r.stderr
    assert "syntax is ok" in r.stderr and "test is successful" in r.stderr, r.stderr
    unexpected = [line for line in r.stderr.splitlines()
                  if ("[warn]" in line or "[emerg]" in line or "[alert]" in line) and "deprecated" not in line]
    assert not unexpected, "nginx -t complained:\n" + "\n".join(unexpected)


def test_health_through_nginx(pb, proxy, tls_channel):
    stub = pb.health_grpc.HealthStub(tls_channel)
    assert stub.Check(pb.health.HealthCheckRequest(), timeout=10).status == pb.health.HealthCheckResponse.SERVING


def test_submit_and_check_entitlement_through_nginx(pb, proxy, apple, tls_channel, direct_channel):
    stub = pb.ent_grpc.EntitlementServiceStub(tls_channel)
    submitted = stub.SubmitReceipt(pb.ent.SubmitReceiptRequest(user_id="via-nginx", receipt_data=apple.receipt()),
                                   timeout=30, metadata=AUTH)
    assert submitted.apple_status == 0 and submitted.new_transactions == 2
    # A fixed evaluation instant, so both answers can be compared byte for byte.
    request = pb.ent.CheckEntitlementRequest(user_id="via-nginx", at_ms=int(time.time() * 1000))
    proxied = outcome(stub.CheckEntitlement, request, timeout=10, metadata=AUTH)
    direct = outcome(pb.ent_grpc.EntitlementServiceStub(direct_channel).CheckEntitlement, request, timeout=10, metadata=AUTH)
    assert proxied[0] == grpc.StatusCode.OK
    assert proxied == direct
    assert len(pb.ent.CheckEntitlementResponse.FromString(proxied[1]).entitlements) == 1


@pytest.mark.parametrize("case", ["no token", "empty user_id", "unknown method"])
def test_error_statuses_pass_through_unchanged(pb, proxy, tls_channel, direct_channel, case):
    def call(channel):
        stub = pb.ent_grpc.EntitlementServiceStub(channel)
        if case == "no token":
            return outcome(stub.CheckEntitlement, pb.ent.CheckEntitlementRequest(user_id="u"), timeout=10)
        if case == "empty user_id":
            return outcome(stub.CheckEntitlement, pb.ent.CheckEntitlementRequest(user_id=""), timeout=10, metadata=AUTH)
        unknown = channel.unary_unary("/entitlement.v1.EntitlementService/NoSuchMethod",
                                      request_serializer=lambda b: b, response_deserializer=lambda b: b)
        try:
            unknown(b"", timeout=10, metadata=AUTH)
            return grpc.StatusCode.OK, None
        except grpc.RpcError as error:
            return error.code(), error.details()

    expected = {"no token": grpc.StatusCode.UNAUTHENTICATED, "empty user_id": grpc.StatusCode.INVALID_ARGUMENT,
                "unknown method": grpc.StatusCode.UNIMPLEMENTED}[case]
    direct = call(direct_channel)
    assert direct[0] == expected, direct
    assert call(tls_channel) == direct


@pytest.mark.parametrize("size", [4 * MiB, 5 * MiB])
def test_message_limit_is_the_servers(pb, proxy, tls_channel, direct_channel, size):
    """nginx sets no body limit on gRPC, so the server's --max-message-size (4 MiB) decides:
    a message of exactly 4 MiB is the server's to answer, 5 MiB gets its RESOURCE_EXHAUSTED
    (nginx's own 413 reached callers as UNKNOWN)."""
    overhead = len(pb.ent.CheckEntitlementRequest(user_id="x" * size, at_ms=1).SerializeToString()) - size
    request = pb.ent.CheckEntitlementRequest(user_id="x" * (size - overhead), at_ms=1)
    assert len(request.SerializeToString()) == size

    def call(channel):
        return outcome(pb.ent_grpc.EntitlementServiceStub(channel).CheckEntitlement, request, timeout=30, metadata=AUTH)

    proxied, direct = call(tls_channel), call(direct_channel)
    if size > 4 * MiB:
        assert proxied[0] == grpc.StatusCode.RESOURCE_EXHAUSTED, proxied
    else:
        assert proxied[0] not in (grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.UNKNOWN), proxied
    assert proxied == direct


@pytest.mark.parametrize("kib,expected", [
    (12, grpc.StatusCode.OK),                   # nginx's default buffers (4 8k) dropped this
    (20, grpc.StatusCode.RESOURCE_EXHAUSTED),   # the server's answer, not a dropped connection
    (40, grpc.StatusCode.UNAVAILABLE),          # one field over nginx's 32k buffer: nginx's GOAWAY
])
def test_metadata_size(pb, proxy, tls_channel, direct_channel, kib, expected):
    metadata = AUTH + [("x-padding", "p" * (kib * 1024))]

    def call(channel):
        return outcome(pb.ent_grpc.EntitlementServiceStub(channel).CheckEntitlement,
                       pb.ent.CheckEntitlementRequest(user_id="u", at_ms=1), timeout=10, metadata=metadata)

    proxied = call(tls_channel)
    assert proxied[0] == expected, proxied
    if expected != grpc.StatusCode.UNAVAILABLE:
        assert proxied == call(direct_channel)
    else:
        # nginx's own limit (Deploy/nginx.conf explains it); the server would have answered.
        assert call(direct_channel)[0] == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_deadline_passes_through(pb, proxy, apple, certificate, tls_channel, backend, tmp_path):
    """grpc-timeout reaches the server through nginx, and the server's DEADLINE_EXCEEDED comes
    back: curl sends the header but enforces no deadline itself, so the status it reads after
    about 300 ms, long before slow Apple's answer, can only be the server's."""
    curl = need_tool("curl")
    apple.latency = 3.0
    try:
        # grpcio: the caller's own view.
        stub = pb.ent_grpc.EntitlementServiceStub(tls_channel)
        started = time.monotonic()
        with pytest.raises(grpc.RpcError) as error:
            stub.SubmitReceipt(pb.ent.SubmitReceiptRequest(user_id="deadline", receipt_data=apple.receipt()),
                               timeout=0.3, metadata=AUTH)
        assert error.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        assert time.monotonic() - started < 2.5

        message = pb.ent.SubmitReceiptRequest(user_id="deadline", receipt_data=apple.receipt()).SerializeToString()
        frame = tmp_path / "frame.bin"
        frame.write_bytes(b"\x00" + struct.pack(">I", len(message)) + message)
        headers = tmp_path / "headers.txt"
        started = time.monotonic()
        r = subprocess.run(
            [curl, "-sS", "--http2", "--noproxy", "*", "--max-time", "20", "--cacert", str(certificate[0]),
             "--resolve", f"{SERVER_NAME}:{proxy.port}:127.0.0.1", "-X", "POST",
             "-H", "content-type: application/grpc", "-H", "te: trailers", "-H", "grpc-timeout: 300m",
             "-H", f"authorization: Bearer {TOKEN}", "--data-binary", f"@{frame}", "-D", str(headers), "-o", "/dev/null",
             f"https://{SERVER_NAME}:{proxy.port}/entitlement.v1.EntitlementService/SubmitReceipt"],
            capture_output=True, text=True, timeout=30)
        elapsed = time.monotonic() - started
        assert r.returncode == 0, r.stderr
        text = headers.read_text()
        print(f"\ncurl after {elapsed:.2f}s:\n{text}")
        assert "grpc-status: 4" in text.lower(), text
        assert elapsed < 2.5, f"{elapsed:.2f}s: the server did not end the call at its deadline"
    finally:
        apple.latency = 0.0


def test_webhook_401_and_http_locations_through_nginx(proxy, certificate):
    v1 = {"notification_type": "DID_RENEW", "environment": "PROD", "password": "not-the-secret",
          "bid": "com.example.app", "unified_receipt": {"status": 0, "latest_receipt_info": []}}
    for body in (v1, {k: v for k, v in v1.items() if k != "password"}, dict(v1, password="")):
        status, _ = https(proxy, certificate, "POST", "/apple/notifications", json.dumps(body).encode(),
                          {"Content-Type": "application/json"})
        assert status == 401, body
    status, _ = https(proxy, certificate, "POST", "/apple/notifications", b"{not json", {"Content-Type": "application/json"})
    assert status == 400
    assert https(proxy, certificate, "GET", "/healthz") == (200, b"ok")
    status, _ = https(proxy, certificate, "GET", "/metrics")
    assert status == 404, "metrics live on the admin port, never behind the public proxy"


def test_grpc_and_http_never_share_an_upstream_connection(pb, proxy, certificate, tls_channel):
    """Interleaved HTTP/1.1 and gRPC calls on nginx's keepalive connections all succeed, and
    nginx logged no upstream protocol error (a shared upstream block would hand an h2c
    connection to proxy_pass)."""
    stub = pb.health_grpc.HealthStub(tls_channel)
    for _ in range(20):
        assert https(proxy, certificate, "GET", "/healthz") == (200, b"ok")
        assert stub.Check(pb.health.HealthCheckRequest(), timeout=10).status == pb.health.HealthCheckResponse.SERVING
    log = (proxy.prefix / "error.log").read_text(errors="replace")
    problems = [line for line in log.splitlines() if "upstream" in line and ("[error]" in line or "[crit]" in line)]
    assert not problems, "\n".join(problems)
