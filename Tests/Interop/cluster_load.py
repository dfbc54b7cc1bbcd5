"""The load of test_cluster.py's restart test: clients through haproxy writing purchases (by
SubmitReceipt) and renewals (by SubmitReceipt or notification), with test_crash_loop's model of
what was sent and acknowledged, going on through replicas going away."""
import collections
import threading
import time
import urllib.error
import urllib.request

import grpc

from test_crash_loop import send_write

NOTIFICATIONS = "/apple/notifications"
# What a request cut off by a replica going away may end with: it was not acknowledged.
CUT_OFF_CODES = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL,
                 grpc.StatusCode.CANCELLED, grpc.StatusCode.DEADLINE_EXCEEDED}
CUT_OFF_STATUSES = {502, 503, 504}


class Outcomes:
    """What the clients saw: when each write was acknowledged, when and how (status) writes were
    cut off, and the refusals, which fail the test (a cut-off write is only "maybe")."""

    def __init__(self):
        self.lock = threading.Lock()
        self.acked_at = []
        self.cut_off_at = []  # (instant, status)
        self.failures = []

    def add(self, what, failure=None):
        with self.lock:
            self.cut_off_at.append((time.monotonic(), what))
            if failure:
                self.failures.append(failure)

    def per_phase(self, marks):
        """(acknowledged, cut-off statuses) between consecutive instants of `marks`."""
        bounds = list(zip([0.0] + marks, marks + [float("inf")]))
        return [(sum(1 for t in self.acked_at if lo <= t < hi),
                 dict(collections.Counter(what for t, what in self.cut_off_at if lo <= t < hi)))
                for lo, hi in bounds]


def drive(address, model, signer, rng, stop, outcomes):
    """One client through haproxy: purchases by SubmitReceipt, renewals by SubmitReceipt or
    notification; a write counts as acknowledged only when it answered OK / 200."""
    import entitlement_pb2 as ent
    import entitlement_pb2_grpc as ent_grpc
    channel = grpc.insecure_channel(address)
    stub = ent_grpc.EntitlementServiceStub(channel)
    try:
        while not stop.is_set():
            with model.lock:
                known = rng.choice(model.acked_users) if model.acked_users else None
            write = model.next_write(None if known is None or rng.random() < 0.4 else known)
            if write is None:
                continue
            user, index = write
            try:
                send_write(stub, ent, f"http://{address}{NOTIFICATIONS}", signer, model, user, index, rng,
                           receipt_share=0.3, timeout=10)
            except grpc.RpcError as error:
                refused = f"{user.name}/{index}: {error.code()} {error.details()}"
                outcomes.add(error.code().name, None if error.code() in CUT_OFF_CODES else refused)
                continue
            except urllib.error.HTTPError as error:
                refused = f"{user.name}/{index}: webhook {error.code}"
                outcomes.add(f"HTTP {error.code}", None if error.code in CUT_OFF_STATUSES else refused)
                continue
            except OSError as error:
                outcomes.add(type(error).__name__)
                continue
            model.acknowledge(user, index)
            with outcomes.lock:
                outcomes.acked_at.append(time.monotonic())
    finally:
        channel.close()


def requests_served(address) -> float:
    """RPCs and webhook posts this replica answered, from its /metrics."""
    text = urllib.request.urlopen(f"http://{address}/metrics", timeout=5).read().decode()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith(("entitlementd_rpc_requests_total{", "entitlementd_notifications_total{"))
               and "Health" not in line)
