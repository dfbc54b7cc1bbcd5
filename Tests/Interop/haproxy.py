"""haproxy in front of the cluster stage's replicas: the config it is given, and its process.

One frontend on one port takes both protocols, as entitlementd's own port does: haproxy
recognises the HTTP/2 preface on a clear-text connection (h2c, gRPC) and speaks HTTP/1.1
otherwise (Apple's webhook, /healthz, /readyz, /metrics, /admin/*). HTTP/2 requests go to the backends
over HTTP/2 (`proto h2`), HTTP/1.1 requests over HTTP/1.1, each backend to every replica.

A test's connections all go to one replica (`balance first`: replica 0 while it is up, the
next one when it is down), so a write through one connection (a webhook post) and a read
through another (the test's gRPC channel) meet the same replica. Cross-replica visibility is
eventual by design (NOTIFY), which the suite's other tests do not assert; test_cluster.py
tests it on purpose, addressing replicas directly or spreading its connections
(`spread=True`: `balance hash src_port`, every request of one connection on one replica, the
connections over all replicas).
/metrics and /admin/* go to replica 0 alone, the replica the fixture's stderr and signals belong
to (an on-demand reconciliation then shows in the metrics of the replica that ran it).

Health checks ask each replica's /readyz over HTTP/1.1 every 500 ms, also for the HTTP/2
backend (`check-proto h1`), as Deploy/haproxy.cfg does; haproxy 2.6's HTTP/2 check, which sends
neither :authority nor host, is served as well (test_readiness.py runs it). A replica is also marked
down at its first refused connection (`observe layer4`, `on-error mark-down`): one that is
draining after SIGTERM refuses new connections at once, and the balancer would otherwise send its
clients' retries back to it until two checks failed (their requests got haproxy's 503). A
request is retried on another replica only when its connection to the first one failed
(`retry-on conn-failure`, `option redispatch`); a request already sent is never replayed.

Limits are set wide so that entitlementd, not haproxy, answers what the suite probes: 64 KiB
buffers let metadata past its own 16 KiB limit reach it, and the timeouts outlast any test.
"""
import signal
import socket
import subprocess
import time
from pathlib import Path
from ports import free_port

START_TIMEOUT = 10.0


def config(listen: str, replicas, check_interval_ms: int = 500, spread: bool = False,
           check_proto: str = "h1") -> str:
    """The haproxy.cfg text for `replicas` (HOST:PORT each, replica 0 first); `spread` balances
    connections over the replicas instead of pinning them to the first one up; `check_proto` is
    the protocol of the /readyz checks."""
    balance = "hash src_port" if spread else "first"

    def servers(extra: str) -> str:
        return "\n".join(f"    server replica{i} {address} {extra}".rstrip() for i, address in enumerate(replicas))

    check = (f"check check-proto {check_proto} inter {check_interval_ms} fall 2 rise 1 "
             "observe layer4 error-limit 1 on-error mark-down")
    return f"""global
    nbthread 1
    maxconn 4000
    tune.bufsize 65536
    log stderr format short local0 warning

defaults
    mode http
    log global
    timeout connect 2s
    timeout client 10m
    timeout server 10m
    timeout http-request 10m
    timeout tunnel 10m
    retries 3
    retry-on conn-failure
    option redispatch 1
    option httpchk GET /readyz
    http-check expect status 200

frontend entitlementd
    bind {listen}
    use_backend replica0 if {{ path /metrics }} || {{ path_beg /admin/ }}
    use_backend grpc if {{ req.ver 2.0 }}
    default_backend http1

backend grpc
    balance {balance}
{servers("proto h2 " + check)}

backend http1
    balance {balance}
{servers(check)}

backend replica0
    server replica0 {replicas[0]} {check}
"""


class Haproxy:
    """haproxy in the foreground (-db) on `listen`, its log in workdir/haproxy.log."""

    def __init__(self, workdir: Path, listen: str, replicas, spread: bool = False, check_proto: str = "h1"):
        self.workdir = workdir
        self.listen = listen
        self.config_path = workdir / "haproxy.cfg"
        self.config_path.write_text(config(listen, replicas, spread=spread, check_proto=check_proto))
        self.log_path = workdir / "haproxy.log"
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(["haproxy", "-db", "-f", str(self.config_path)],
                                         stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=workdir)
        self._wait_until_listening()

    def _wait_until_listening(self) -> None:
        host, port = self.listen.rsplit(":", 1)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"haproxy exited {self.proc.returncode}:\n{self.log()}")
            try:
                socket.create_connection((host, int(port)), timeout=1).close()
                return
            except OSError:
                time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"haproxy did not listen on {self.listen} within {START_TIMEOUT}s:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> int:
        """Hard stop (SIGTERM): the test is over, nothing is left to drain. Returns the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None
