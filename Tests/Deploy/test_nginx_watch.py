"""A WatchEntitlementChanges stream through the shipped nginx config outlives nginx's
grpc_read_timeout while idle, because entitlementd PINGs connections with open streams
(--stream-keepalive): nginx's upstream read timer restarts on every read, PINGs included.
The control run (keepalive longer than the timeout) shows nginx does cut a silent stream, so
the first result is the keepalive's doing. The timeout is shortened from the shipped 60s to 2s
to keep the check quick; the shipped values are checked against each other separately."""
import re
import signal
import subprocess
import threading
import time

import grpc
import pytest

import nginx_harness
from deploy_support import DEPLOY, LISTEN_PREFIX, SERVER_NAME, free_port, need_tool

SHIPPED_TIMEOUT = "grpc_read_timeout 60s;"


def test_shipped_read_timeout_leaves_room_for_two_keepalives(help_text):
    shipped = (DEPLOY / "nginx.conf").read_text()
    assert SHIPPED_TIMEOUT in shipped, "update this check with Deploy/nginx.conf's grpc_read_timeout"
    keepalive = re.search(r"--stream-keepalive DURATION.*\(default (\d+)s\)", help_text)
    assert keepalive, "entitlementd --help no longer shows --stream-keepalive's default"
    assert 2 * int(keepalive.group(1)) < 60


def start_backend(entitlementd, work, keepalive):
    work.mkdir()
    out = work / "stdout.log"
    proc = subprocess.Popen([str(entitlementd), "--listen", "127.0.0.1:0", "--database", str(work / "db.sqlite"),
                             "--stream-keepalive", keepalive], stdout=open(out, "wb"),
                            stderr=open(work / "stderr.log", "wb"), stdin=subprocess.DEVNULL, cwd=work)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        text = out.read_text(errors="replace")
        if "\n" in text:
            return proc, int(text.split("\n", 1)[0][len(LISTEN_PREFIX):].strip().rsplit(":", 1)[1])
        assert proc.poll() is None, (work / "stderr.log").read_text()
        time.sleep(0.02)
    proc.kill()
    pytest.fail("entitlementd did not start")


def idle_watch_outcome(pb, port, cert, seconds):
    """Watches through nginx for `seconds` with nothing to deliver: None if the stream is still
    open then, else the status that ended it."""
    credentials = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
    options = [("grpc.ssl_target_name_override", SERVER_NAME), ("grpc.enable_http_proxy", 0)]
    with grpc.secure_channel(f"127.0.0.1:{port}", credentials, options=options) as channel:
        call = pb.ent_grpc.EntitlementServiceStub(channel).WatchEntitlementChanges(
            pb.ent.WatchEntitlementChangesRequest())
        ended = []
        thread = threading.Thread(target=lambda: ended.append(_drain(call)), daemon=True)
        thread.start()
        thread.join(seconds)
        call.cancel()
        thread.join(5)
        return ended[0] if ended and ended[0] != grpc.StatusCode.CANCELLED else None


def _drain(call):
    try:
        for _ in call:
            pass
        return grpc.StatusCode.OK
    except grpc.RpcError as error:
        return error.code()


@pytest.mark.parametrize("keepalive,survives", [("1s", True), ("30s", False)])
def test_idle_watch_through_nginx(pb, entitlementd, certificate, tmp_path, keepalive, survives):
    nginx = need_tool("nginx")
    backend, backend_port = start_backend(entitlementd, tmp_path / "backend", keepalive)
    prefix = tmp_path / "nginx"
    prefix.mkdir()
    port = free_port()
    shipped = (DEPLOY / "nginx.conf").read_text()
    assert SHIPPED_TIMEOUT in shipped
    main = nginx_harness.render(shipped.replace(SHIPPED_TIMEOUT, "grpc_read_timeout 2s;"), prefix, port,
                                backend_port, *certificate)
    proxy = nginx_harness.start(nginx, prefix, main, port)
    try:
        outcome = idle_watch_outcome(pb, port, certificate[0], seconds=6)
    finally:
        nginx_harness.stop(proxy.proc)
        backend.send_signal(signal.SIGTERM)
        assert backend.wait(timeout=15) == 0
    if survives:
        assert outcome is None, f"nginx ended the idle stream ({outcome}) despite PINGs every {keepalive}"
    else:
        assert outcome is not None, "without PINGs within grpc_read_timeout nginx should have cut the stream"
