"""Runs the shipped Deploy/nginx.conf as the current user: rendered into a temp prefix with a
throwaway certificate and free ports, wrapped in a minimal main config (pid, logs and temp
paths inside the prefix), checked with `nginx -t`, then served in the foreground."""
import os
import pwd
import signal
import socket
import subprocess
import time
import types
from pathlib import Path

# Every operator-specific value in the shipped file, and what the check puts there. Each must
# occur in the file (else the file changed and the check would silently test something else).
SHIPPED_PORT = "listen 443 ssl http2;"
SHIPPED_BACKEND = "server 127.0.0.1:50051;"
SHIPPED_CERT = "/etc/ssl/certs/entitlements.example.com.pem"
SHIPPED_KEY = "/etc/ssl/private/entitlements.example.com.key"

MAIN_CONFIG = """\
{user}worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log info;
events {{ worker_connections 512; }}
http {{
    access_log {prefix}/access.log;
    client_body_temp_path {prefix}/client_body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    include {prefix}/entitlementd.conf;
}}
"""


def render(shipped: str, prefix: Path, port: int, backend_port: int, cert: Path, key: Path) -> Path:
    for needle in (SHIPPED_PORT, SHIPPED_BACKEND, SHIPPED_CERT, SHIPPED_KEY):
        assert needle in shipped, f"Deploy/nginx.conf no longer contains {needle!r}: update nginx_harness.py"
    site = (shipped.replace(SHIPPED_PORT, f"listen 127.0.0.1:{port} ssl http2;")
            .replace(SHIPPED_BACKEND, f"server 127.0.0.1:{backend_port};")
            .replace(SHIPPED_CERT, str(cert)).replace(SHIPPED_KEY, str(key)))
    assert "50051" not in site and "/etc/ssl" not in site
    (prefix / "entitlementd.conf").write_text(site)
    # As root, nginx's workers would switch to `nobody`, which cannot enter pytest's 0700 temp
    # directories; run them as the current user, as the check does everything else.
    user = f"user {pwd.getpwuid(os.geteuid()).pw_name};\n" if os.geteuid() == 0 else ""
    main = prefix / "nginx.conf"
    main.write_text(MAIN_CONFIG.format(user=user, prefix=prefix))
    return main


def arguments(nginx: str, prefix: Path, main: Path):
    # -e: the error log used before the config is read (else /var/log/nginx, not ours).
    return [nginx, "-p", f"{prefix}/", "-c", str(main), "-e", str(prefix / "early-error.log")]


def start(nginx: str, prefix: Path, main: Path, port: int):
    proc = subprocess.Popen([*arguments(nginx, prefix, main), "-g", "daemon off;"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"nginx exited {proc.returncode}: {proc.stdout.read().decode(errors='replace')}"
                                 f"{(prefix / 'error.log').read_text(errors='replace') if (prefix / 'error.log').exists() else ''}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return types.SimpleNamespace(proc=proc, port=port, prefix=prefix)
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise AssertionError("nginx did not accept connections within 15 s")


def stop(proc) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGQUIT)  # graceful
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
