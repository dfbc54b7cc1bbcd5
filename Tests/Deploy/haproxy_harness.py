"""Runs the shipped Deploy/haproxy.cfg in the foreground: rendered with free ports, in front of
the replicas a check starts, logging to stderr instead of syslog. Everything else in the file
is what runs, so the checks test the shipped timeouts, health checks and routing."""
import re
import signal
import socket
import subprocess
import time
import types
import urllib.request
from pathlib import Path

# Every operator-specific value in the shipped file, and what the check puts there. Each must
# occur in the file (else the file changed and the check would silently test something else).
SHIPPED_LOG = "log /dev/log local0"
SHIPPED_BIND = "bind 127.0.0.1:8080\n"
SHIPPED_METRICS_BIND = "bind 127.0.0.1:8405\n"
# haproxy needs 2 descriptors per connection and refuses to start when it cannot raise its
# limit that far; test machines and containers often cap it below 40,000.
SHIPPED_MAXCONN = "    maxconn 20000\n"
SERVER_LINE = re.compile(r"^(\s*server replica(\d+) 127\.0\.0\.1:)(5005\d)(.*)$", re.M)


def render(shipped: str, work: Path, port: int, metrics_port: int, replica_ports: list[int],
           replace: dict[str, str] | None = None) -> Path:
    """The shipped config with free ports and replica i at replica_ports[i-1]; replicas beyond
    those given are left out. `replace` swaps more text (a check shortening a timeout)."""
    for needle in (SHIPPED_LOG, SHIPPED_BIND, SHIPPED_METRICS_BIND, SHIPPED_MAXCONN):
        assert needle in shipped, f"Deploy/haproxy.cfg no longer contains {needle!r}: update haproxy_harness.py"
    assert len(SERVER_LINE.findall(shipped)) >= 2 * len(replica_ports), "fewer replicas in Deploy/haproxy.cfg"

    def server(match):
        number = int(match.group(2))
        if number > len(replica_ports):
            return "    # (replica left out by the check)"
        return f"{match.group(1)}{replica_ports[number - 1]}{match.group(4)}"

    config = (shipped.replace(SHIPPED_LOG, "log stderr format short local0")
              .replace(SHIPPED_BIND, f"bind 127.0.0.1:{port}\n")
              .replace(SHIPPED_METRICS_BIND, f"bind 127.0.0.1:{metrics_port}\n")
              .replace(SHIPPED_MAXCONN, "    maxconn 2000\n"))
    config = SERVER_LINE.sub(server, config)
    for old, new in (replace or {}).items():
        assert old in config, f"Deploy/haproxy.cfg no longer contains {old!r}"
        config = config.replace(old, new)
    path = work / "haproxy.cfg"
    path.write_text(config)
    return path


def check(haproxy: str, config: Path) -> subprocess.CompletedProcess:
    return subprocess.run([haproxy, "-c", "-f", str(config)], capture_output=True, text=True, timeout=30)


def start(haproxy: str, config: Path, port: int, metrics_port: int):
    log = config.parent / "haproxy.log"
    # -db: foreground, no daemon; the check owns the process and stops it.
    proc = subprocess.Popen([haproxy, "-db", "-f", str(config)], stdin=subprocess.DEVNULL,
                            stdout=open(log, "wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"haproxy exited {proc.returncode}: {log.read_text(errors='replace')}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return types.SimpleNamespace(proc=proc, port=port, metrics_port=metrics_port, log=log)
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise AssertionError("haproxy did not accept connections within 15 s")


def stop(proc) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGUSR1)  # soft stop: finish what is in flight
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def server_states(metrics_port: int, backend: str = "entitlementd_grpc") -> dict[str, str]:
    """{server: state} from haproxy's Prometheus exporter (haproxy_server_status, one series
    per state with value 1 for the current one)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5) as response:
        text = response.read().decode()
    states = {}
    for m in re.finditer(r'^haproxy_server_status\{proxy="([^"]+)",server="([^"]+)",state="([^"]+)"\} 1$', text, re.M):
        if m.group(1) == backend:
            states[m.group(2)] = m.group(3)
    return states


def wait_for_state(metrics_port: int, server: str, state: str, seconds: float) -> float:
    """Seconds until `server` is in `state`; AssertionError after `seconds`."""
    started = time.monotonic()
    seen = None
    while time.monotonic() - started < seconds:
        seen = server_states(metrics_port).get(server)
        if seen == state:
            return time.monotonic() - started
        time.sleep(0.2)
    raise AssertionError(f"{server} still {seen} after {seconds}s, expected {state}")
