"""The load of test_cluster.py's restart test: clients through haproxy writing purchases (by
SubmitReceipt) and renewals (by SubmitReceipt or notification), with test_crash_loop's model of
what was sent and acknowledged, going on through replicas going away."""
import collections
import json
import threading
import time
import urllib.error
import urllib.request

import grpc

from apple_pki import notification, renewal
from test_crash_loop import MAX_RENEWALS

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
            if known is None or rng.random() < 0.4:
                user, index = model.new_user(), 0
                user.next = 1
            else:
                user = known
                with model.lock:
                    index = user.next
                    user.next += 1
                if index > MAX_RENEWALS:
                    continue
            payload = user.payload(index)
            model.reserve(user, index, payload["expiresDate"])
            jws = signer.sign(payload)
            try:
                if index == 0 or rng.random() < 0.3:
                    stub.SubmitReceipt(ent.SubmitReceiptRequest(user_id=user.name, signed_transaction=jws), timeout=10)
                else:
                    body = json.dumps({"signedPayload": signer.sign(notification(
                        "DID_RENEW", signed=payload["signedDate"] + 500, signed_transaction=jws,
                        signed_renewal=signer.sign(renewal(user.chain, signed=payload["signedDate"]))))}).encode()
                    request = urllib.request.Request(f"http://{address}{NOTIFICATIONS}", data=body,
                                                     headers={"Content-Type": "application/json"})
                    with urllib.request.urlopen(request, timeout=10) as response:
                        response.read()
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
            with model.lock:
                if not user.acked:
                    model.acked_users.append(user)
                user.acked.add(user.tid(index))
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
