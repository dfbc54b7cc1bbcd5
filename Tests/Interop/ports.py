"""Ports the interop tests pick for servers they start, restart or point others at.

A port picked by binding port 0 comes from the kernel's ephemeral range, the same range every
outgoing connection takes its source port from. A test that stops a server and starts it again
on its port (a webhook receiver going down, a cluster replica restarted behind haproxy) could
then find the port taken by some connection in between, under load, and fail with "Address
already in use" (seen once in a gate, test_webhooks.py). So ports come from below that range,
where the kernel never picks a source port; each is checked free by binding it."""
import random
import socket

FIRST_PORT = 10_000


def ephemeral_range() -> tuple:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low, high = (int(part) for part in f.read().split())
            return low, high
    except (OSError, ValueError):
        return 32_768, 60_999  # Linux's default


def free_port() -> int:
    """A port free on 127.0.0.1 now, outside the ephemeral range: below it when there is room,
    else above it."""
    low, high = ephemeral_range()
    bottom, top = (FIRST_PORT, low - 1) if low - 1 - FIRST_PORT >= 1_000 else (high + 1, 65_535)
    for _ in range(200):
        port = random.randint(bottom, top)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {bottom}-{top} on 127.0.0.1")
