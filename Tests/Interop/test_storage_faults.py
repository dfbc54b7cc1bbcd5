"""The disk fills up under a running entitlementd: writes answer UNAVAILABLE (gRPC) and 503 (the
webhook, so Apple retries), reads keep answering, nothing acknowledged is lost, and once space
returns the same process takes writes again, with no restart.

The disk is a real one: a tmpfs mounted with a small size= (the database and its WAL live on
it), filled to the last byte by a filler file that the test deletes to "return space". No flag
or hook in the binary is involved. Mounting needs root (CAP_SYS_ADMIN); elsewhere the test
skips and says so (the Swift tests DatabaseFullTests and WriteIOErrorTests cover the store).
"""
import errno
import json
import os
import shutil
import sqlite3
import subprocess
import time
import urllib.error
import urllib.request

import grpc
import pytest

from apple_pki import DAY_MS, PKI, now_ms, notification, renewal, transaction
from cluster import metrics_text
from fast_signer import FastSigner

pytestmark = pytest.mark.single_process(
    "fills the disk under the SQLite file")


@pytest.fixture
def small_disk(tmp_path):
    """A 4 MiB tmpfs, unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", str(mount)],
                            capture_output=True, text=True)
    if result.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({result.stderr.strip()})")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(path):
    """Writes `path` until the file system has no byte left."""
    with open(path, "ab", buffering=0) as f:
        for size in (1 << 16, 4096, 512, 1):
            while True:
                try:
                    f.write(b"\0" * size)
                except OSError as error:
                    assert error.errno == errno.ENOSPC, error
                    break


def ready_gauge(server) -> float:
    """`entitlementd_ready` from /metrics: 1 while /readyz answers 200."""
    values = [float(line.split()[1]) for line in metrics_text(server).splitlines()
              if line.startswith("entitlementd_ready ")]
    assert len(values) == 1, "one entitlementd_ready sample"
    return values[0]


def test_a_full_disk_refuses_writes_keeps_reads_and_recovers_when_space_returns(pb, server, small_disk, tmp_path):
    if not shutil.which("openssl"):
        pytest.skip("the openssl CLI is needed to generate the test PKI")
    pytest.importorskip("cryptography", reason="Scripts/test installs cryptography into the venv")
    signer = FastSigner(PKI(tmp_path / "pki", "Test"))
    db = small_disk / "entitlements.sqlite"
    s = server("--database", db, "--apple-root-ca", signer.pki.root_pem_path)
    stub = pb.ent_grpc.EntitlementServiceStub(s.channel())
    testing = pb.testing_grpc.TestingStub(s.channel())
    url = f"http://{s.host}:{s.port}/apple/notifications"
    base = now_ms() - 10 * DAY_MS

    def tx(chain, index):
        purchase = base + index * DAY_MS
        return transaction(str(int(chain) + index), chain, purchase=purchase, expires=base + (20 + index) * DAY_MS,
                           signed=purchase + 1000, original_purchase=base)

    def submit(user, chain, index=0):
        return stub.SubmitReceipt(pb.ent.SubmitReceiptRequest(user_id=user, signed_transaction=signer.sign(tx(chain, index))),
                                  timeout=10)

    def post_renewal(chain, index):
        t = tx(chain, index)
        body = {"signedPayload": signer.sign(notification(
            "DID_RENEW", signed=t["signedDate"] + 500, signed_transaction=signer.sign(t),
            signed_renewal=signer.sign(renewal(chain, signed=t["signedDate"]))))}
        request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def latest(user):
        reply = stub.CheckEntitlement(pb.ent.CheckEntitlementRequest(user_id=user), timeout=10)
        return reply.entitlements[0].latest_transaction_id if reply.entitlements else None

    alice = "3100000000000000"
    submit("alice", alice)
    assert latest("alice") == alice
    carol = "3300000000000000"
    submit("carol", carol)

    # Fill the disk but for 256 KiB, then write until the database needs a page it cannot have.
    (small_disk / "reserve").write_bytes(b"\0" * (256 << 10))
    fill(small_disk / "filler")
    os.unlink(small_disk / "reserve")
    acknowledged, refused = [], None
    for n in range(2000):
        facts = {"transactions": [{"transaction_id": f"{9_000_000 + n * 100 + k}", "original_transaction_id": f"{9_000_000 + n * 100}",
                                   "product_id": "pro.monthly", "purchase_date_ms": base + k, "expires_date_ms": base + 30 * DAY_MS}
                                  for k in range(20)]}
        try:
            testing.Seed(pb.testing.SeedRequest(user_id=f"filler-{n}", facts_json=json.dumps(facts)), timeout=10)
        except grpc.RpcError as error:
            refused = error
            break
        acknowledged.append(f"filler-{n}")
    print(f"{len(acknowledged)} writes fitted before the disk was full")
    assert refused is not None, "2000 writes fitted on a full 4 MiB disk"
    assert len(acknowledged) >= 3, f"256 KiB should hold a few writes before the disk is full: {refused}"
    assert refused.code() == grpc.StatusCode.UNAVAILABLE, refused
    assert refused.details() == "storage is unavailable; retry later", "no SQL, paths or SQLite text for callers"
    # The refused transaction leaves the WAL frames it did write for the next one to reuse, so a
    # smaller write may still fit there: fill that slack with one-transaction writes as well.
    for n in range(2000):
        facts = {"transactions": [{"transaction_id": f"{8_000_000 + n}", "original_transaction_id": f"{8_000_000 + n}",
                                   "product_id": "pro.monthly", "purchase_date_ms": base, "expires_date_ms": base + 30 * DAY_MS}]}
        try:
            testing.Seed(pb.testing.SeedRequest(user_id=f"slack-{n}", facts_json=json.dumps(facts)), timeout=10)
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.UNAVAILABLE, error
            break
        acknowledged.append(f"slack-{n}")

    # Every kind of write is refused while full; the first acknowledged ones were not lost.
    bob = "3200000000000000"
    with pytest.raises(grpc.RpcError) as submitted:
        submit("bob", bob)
    assert submitted.value.code() == grpc.StatusCode.UNAVAILABLE
    # A renewal of a known user writes fewer new pages than a new user's first write (no new
    # users or user_facts rows, no index entries), so it may still fit in the slack the refused
    # writes left: renew carol until the store cannot take one. Apple must be told to retry that
    # one (503); each one answered 200 was committed and is checked after the restart below.
    renewed, status, text = 0, None, ""
    for index in range(1, 200):
        status, text = post_renewal(carol, index)
        if status != 200:
            break
        renewed = index
    assert status == 503, f"a notification the store cannot take must be retried by Apple: {status} {text}"
    assert "SQL" not in text and "sqlite" not in text.lower()

    # Out of rotation, and the readiness gauge says so (alerts.yml's EntitlementdNotReady).
    assert ready_gauge(s) == 0
    # Reads keep answering from what was committed.
    assert latest("alice") == alice
    assert latest("bob") is None
    for user in acknowledged[:50]:
        assert stub.CheckEntitlement(pb.ent.CheckEntitlementRequest(user_id=user), timeout=10).entitlements
    assert [e.event_id for e in stub.ListHistory(pb.ent.ListHistoryRequest(user_id="alice"), timeout=10).events] \
        == [f"purchase:{alice}"]

    # Space returns: the same process takes the refused writes (give it a few tries, not a restart).
    os.unlink(small_disk / "filler")
    deadline = time.monotonic() + 15
    while True:
        try:
            submit("bob", bob)
            break
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.UNAVAILABLE and time.monotonic() < deadline, error
            time.sleep(0.2)
    assert post_renewal(alice, 1)[0] == 200
    assert latest("alice") == str(int(alice) + 1) and latest("bob") == bob
    assert ready_gauge(s) == 1
    assert s.stop() == 0, s.stderr()[-2000:]
    assert "storing a notification failed" in s.stderr(), "the webhook's storage failure is logged with its cause"

    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    again = server("--database", db, "--apple-root-ca", signer.pki.root_pem_path)
    stub = pb.ent_grpc.EntitlementServiceStub(again.channel())
    assert latest("alice") == str(int(alice) + 1) and latest("bob") == bob
    assert latest("carol") == str(int(carol) + renewed), "every renewal answered 200 was kept"
    missing = [u for u in acknowledged if not stub.CheckEntitlement(
        pb.ent.CheckEntitlementRequest(user_id=u), timeout=10).entitlements]
    assert not missing, f"{len(missing)} acknowledged writes lost, e.g. {missing[:5]}"
