"""Scripts/cluster, run as a user runs it (with the binaries just built and free ports): it
prints haproxy's address, calls through it reach the replicas, a write on one replica is read
on another, and Ctrl-C (SIGINT) stops everything it started, PostgreSQL included."""
import json
import os
import signal
import subprocess
import time

import grpc
import pytest

from deploy_support import REPO, free_port, free_port_block, need_tool

SCRIPT = REPO / "Scripts" / "cluster"
POSTGRES = REPO / "Scripts" / "lib" / "postgres.sh"
REPLICAS = 3


def session_processes(sid):
    r = subprocess.run(["ps", "-eo", "pid=,sid=,args="], capture_output=True, text=True, timeout=10)
    return [line.strip() for line in r.stdout.splitlines() if line.split()[1] == str(sid)]


@pytest.fixture(scope="module")
def cluster(entitlementd, help_text, tmp_path_factory):
    need_tool("haproxy")
    if "postgres" not in help_text.split("--database", 1)[1].split("\n", 1)[0]:
        # Not a missing tool: a build from before the PostgreSQL backend. Skipped even in CI.
        pytest.skip("this entitlementd has no PostgreSQL backend (--database postgresql://...)")
    work = tmp_path_factory.mktemp("cluster")
    # Replica k listens on FIRST_PORT+k and FIRST_ADMIN_PORT+k: one block of free ports for both.
    first = free_port_block(2 * REPLICAS)
    first_admin = first + REPLICAS
    listen, sim = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
    env = dict(os.environ, CLUSTER_BIN_DIR=str(entitlementd.parent), CLUSTER_DIR=str(REPO / ".build" / "cluster-check"),
               CLUSTER_LISTEN=listen, CLUSTER_FIRST_PORT=str(first - 1), CLUSTER_FIRST_ADMIN_PORT=str(first_admin - 1),
               CLUSTER_METRICS_LISTEN=f"127.0.0.1:{free_port()}", APPSTORE_SIM_LISTEN=sim,
               CLUSTER_REPLICAS=str(REPLICAS))
    out, err = work / "stdout", work / "stderr"
    # An operator's Ctrl-C reaches a script started from a terminal, where SIGINT is not ignored. A
    # runner that started this suite in the background (`cmd &` without job control) passes SIGINT
    # on as ignored, and a shell cannot trap a signal ignored on entry: restore the default.
    proc = subprocess.Popen([str(SCRIPT)], env=env, stdout=open(out, "wb"), stderr=open(err, "wb"),
                            stdin=subprocess.DEVNULL, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while not out.read_text().strip():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"Scripts/cluster printed no address (exit {proc.poll()}): {err.read_text()[-3000:]}")
        time.sleep(0.2)
    yield proc, out.read_text().strip(), [f"127.0.0.1:{first + k}" for k in range(REPLICAS)], err, env
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        subprocess.run([str(POSTGRES), "stop", env["CLUSTER_DIR"] + "/postgres"], timeout=60)


def test_prints_haproxys_address_and_serves_through_it(pb, cluster):
    proc, address, _, _, env = cluster
    assert address == env["CLUSTER_LISTEN"]
    with grpc.insecure_channel(address) as channel:
        health = pb.health_grpc.HealthStub(channel).Check(pb.health.HealthCheckRequest(), timeout=10)
        assert health.status == pb.health.HealthCheckResponse.SERVING


def test_a_purchase_submitted_on_one_replica_is_read_on_another(pb, entitlementd, cluster):
    """A purchase in the script's appstore-sim, its receipt submitted on replica 1: replica 2
    (its own process and cache, the same PostgreSQL database) answers it active within 2 s."""
    _, _, replicas, _, env = cluster
    r = subprocess.run([str(entitlementd.parent / "appstore-sim"), "purchase", "--product", "pro.monthly",
                        "--type", "auto_renewable", "--period", "30d"],
                       env=dict(os.environ, APPSTORE_SIM_URL=f"http://{env['APPSTORE_SIM_LISTEN']}"),
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    receipt = json.loads(r.stdout)["receipt_data"]
    user = f"cluster-script-{os.getpid()}-{time.time_ns()}"  # the database is kept between runs
    with grpc.insecure_channel(replicas[0]) as first, grpc.insecure_channel(replicas[1]) as second:
        submitted = pb.ent_grpc.EntitlementServiceStub(first).SubmitReceipt(
            pb.ent.SubmitReceiptRequest(user_id=user, receipt_data=receipt), timeout=30)
        # (The purchase's SUBSCRIBED notification may have recorded the transaction first.)
        assert "pro.monthly" in [e.product_id for e in submitted.entitlements]
        b = pb.ent_grpc.EntitlementServiceStub(second)
        deadline = time.monotonic() + 2
        while True:
            answer = b.CheckEntitlement(pb.ent.CheckEntitlementRequest(user_id=user,
                                                                       product_id="pro.monthly"), timeout=10)
            if answer.active or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert answer.active, f"replica 2 does not see replica 1's write: {answer}"


def test_ctrl_c_stops_everything_it_started(cluster):
    proc, _, replicas, err, env = cluster
    os.kill(proc.pid, signal.SIGINT)
    try:
        code = proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"Scripts/cluster did not stop within 60 s of SIGINT: {err.read_text()[-2000:]}")
    assert code == 130, err.read_text()[-2000:]
    time.sleep(0.5)
    assert not session_processes(proc.pid), "left running after Ctrl-C"
    status = subprocess.run([str(POSTGRES), "status", env["CLUSTER_DIR"] + "/postgres"],
                            capture_output=True, timeout=30)
    assert status.returncode == 3, "PostgreSQL still running after Ctrl-C"
