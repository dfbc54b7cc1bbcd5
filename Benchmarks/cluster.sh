#!/usr/bin/env bash
# SQLite on one replica vs PostgreSQL on one replica vs three PostgreSQL replicas behind haproxy
# (the shipped Deploy/haproxy.cfg), in one run on this machine:
#   check     CheckEntitlement for one user (a facts-cache hit after the first call):
#             Benchmarks/entitlementd-load (one thread like h2load -t 1; it checks every
#             grpc-status), CONNSxSTREAMS (default 4x32). Not h2load: in duration mode it counts
#             a call whose response headers came before the measured period but whose end came
#             inside it as succeeded without a status, which load.sh reports as a failure
#             through haproxy (it forwards headers before the body)
#   submit    SubmitReceipt, every call a new receipt for a new user (7 new transactions each,
#             apple-fake --distinct at zero latency): Benchmarks/submit_receipt_client.py
#   notify    V1 notifications over HTTP/1.1 (wrk -c 64, Benchmarks/notifications.lua): each a
#             durable write answered 200 after its commit; V1 so the write path, not ES256
#             verification, is what is measured
# then, on the three replicas, the cross-replica invalidation delay (Benchmarks/
# invalidation-delay.py: write on replica1, poll replica2) p50/p99 over TRIALS trials.
# For submit and notify, the CPU per write acknowledged, of the replicas and of PostgreSQL:
# the figure that load changes least on a shared machine (rates swing with other work). notify
# sends the 60,000 distinct bodies once each, then again: past 5,000/s (over WARMUP+DURATION
# = 12 s) the rest are duplicates, which write nothing, so its req/s overstates writes.
#
#   Benchmarks/cluster.sh
#
# Nothing is pinned: PostgreSQL, haproxy, the replicas and the load generators share the two
# cores, as a cluster on one box does; the CPU columns say where the time went (% of one core,
# 200% = the machine). Three replicas on two cores cannot be faster than one: this run shows
# what PostgreSQL and the proxy cost per request, and that the cluster works under load, not
# horizontal scaling (docs/SCALING.md). PostgreSQL runs with fsync and synchronous_commit on
# (Scripts/lib/postgres.sh), each target on a fresh database. A benchmark, not a test.
#
# Env: DURATION=10 (s, after WARMUP=2)  CHECK=4x32  TRIALS=200  TARGETS="sqlite1 pg1 pg3"
#      NO_BUILD=1  SHARED_BENCH=../shared/bench
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=Benchmarks/bench-common.sh
. "$ROOT/Benchmarks/bench-common.sh"   # with ../shared/bench/lib.sh
ensure_venv   # VENV_PY exists only once this has run (a fresh clone has no venv yet)
"$VENV_PY" -c 'import cryptography' 2>/dev/null \
    || "$VENV_PY" -m pip install -q --disable-pip-version-check cryptography >&2 || die "pip install cryptography failed"
# shellcheck source=Scripts/lib/packages.sh
. "$ROOT/Scripts/lib/packages.sh"

DURATION=${DURATION:-10}
export WARMUP=${WARMUP:-2}
CHECK=${CHECK:-4x32}
TRIALS=${TRIALS:-200}
read -ra TARGETS <<<"${TARGETS:-sqlite1 pg1 pg3}"
export QUIET_WAIT=${QUIET_WAIT:-30}
SAMPLE="$ROOT/../shared/samples/verifyreceipt-sandbox-numbers-oldest-first.json"
NOTIFY_SECRET=SHARED-SECRET   # the V1 sample's password
DATA="$ROOT/.build-release/bench-data"

command -v wrk >/dev/null || { log "installing wrk"; apt_install wrk; }
install_missing haproxy
build_products entitlementd apple-fake entitlementd-load
"$VENV_PY" -c 'import sys; sys.path.insert(0, "Benchmarks"); import bench_protos; bench_protos.load(__import__("pathlib").Path(sys.argv[1]))' \
    "$DATA/cluster/stubs" || die "protoc failed"
if [ "$(wc -l 2>/dev/null <"$DATA/notifications/v1.jsonl" || echo 0)" -lt 60000 ]; then
    log "writing 60000 V1 notification bodies into $DATA/notifications"
    "$VENV_PY" "$ROOT/Benchmarks/notification_bodies.py" "$DATA/notifications" --v2 0 --v1 60000 >&2 \
        || die "body generation failed"
fi
if [[ " ${TARGETS[*]} " == *" pg"* ]]; then
    grep -q -- '--database .*postgres' <<<"$("$BIN_DIR/entitlementd" --help)" \
        || die "$BIN_DIR/entitlementd has no PostgreSQL backend (--database postgresql://...)"
fi

PG_DIR="$DATA/cluster/postgres"
PG_URL=$("$ROOT/Scripts/lib/postgres.sh" start "$PG_DIR") || die "PostgreSQL did not start"
work=$(mktemp -d "${TMPDIR:-/tmp}/cluster-bench.XXXXXX")
pids=(); databases=()
stop_target() { local p; for p in "${pids[@]}"; do stop_pid "$p"; done; pids=(); }
cleanup() {
    stop_target; stop_pid "${fake_pid:-}"
    for db in "${databases[@]}"; do psql -w -X -q "$PG_URL" -c "drop database if exists $db" 2>/dev/null || true; done
    "$ROOT/Scripts/lib/postgres.sh" stop "$PG_DIR" || true
    rm -rf "$work"
}
trap cleanup EXIT

# check_user.py ADDR STUBS: SubmitReceipt for user bench-check-0 (entitlementd-load's user 0
# with --user-prefix bench-check-), so the checks find a user with the sample's chain.
cat >"$work/check_user.py" <<'PY'
import base64, os, sys
sys.path.insert(0, os.path.join(os.environ["ROOT"], "Benchmarks"))
import bench_protos, grpc
from pathlib import Path
pb = bench_protos.load(Path(sys.argv[2]))
stub = pb.ent_grpc.EntitlementServiceStub(grpc.insecure_channel(sys.argv[1]))
stub.SubmitReceipt(pb.ent.SubmitReceiptRequest(user_id="bench-check-0",
                   receipt_data=base64.b64encode(b"check-user-receipt" + os.urandom(600)).decode()), timeout=30)
answer = stub.CheckEntitlement(pb.ent.CheckEntitlementRequest(user_id="bench-check-0"), timeout=10)
assert answer.entitlements, "the check user has no entitlements"
PY

# shellcheck disable=SC2046
"$BIN_DIR/apple-fake" --sample "$SAMPLE" --distinct >"$work/fake.out" 2>&1 &
fake_pid=$!
fake_addr=$(wait_listen_line "$work/fake.out" "apple-fake listening on ") || die "apple-fake did not start"

# start_replica DATABASE: one entitlementd; appends its pid and its address to replica_addrs.
start_replica() {
    local n=${#pids[@]}
    start_entitlementd "$work/replica$n" env ENTITLEMENTD_DATABASE="$1" "$BIN_DIR/entitlementd" --listen 127.0.0.1:0 \
        --apple-production-url "http://$fake_addr/production/verifyReceipt" \
        --apple-sandbox-url "http://$fake_addr/sandbox/verifyReceipt" --apple-shared-secret "$NOTIFY_SECRET" \
        --log-level warning
    pids+=("$started_pid"); replica_addrs+=("$started_addr")
}

# start_target NAME: sets addr (where the load goes) and replica_addrs.
start_target() {
    local db port k
    replica_addrs=()
    case $1 in
        sqlite1) start_replica "$work/$1.sqlite" ;;
        pg1|pg3)
            db="bench_${1}_$RANDOM$RANDOM"; databases+=("$db"); target_db=$db
            psql -w -X -q "$PG_URL" -c "create database $db" || die "create database $db failed"
            for ((k = 0; k < ${1#pg}; k++)); do start_replica "${PG_URL%/*}/$db"; done ;;
        *) die "unknown target $1 (sqlite1, pg1, pg3)" ;;
    esac
    addr=${replica_addrs[0]}
    if [ ${#replica_addrs[@]} -gt 1 ]; then
        port=$(free_port); metrics=$(free_port)
        "$ROOT/Scripts/lib/haproxy-config.sh" "127.0.0.1:$port" "127.0.0.1:$metrics" \
            $(for a in "${replica_addrs[@]}"; do echo "${a##*:}"; done) >"$work/haproxy.cfg"
        haproxy -db -f "$work/haproxy.cfg" >"$work/haproxy.log" 2>&1 &
        pids+=("$!"); haproxy_pid=$!
        wait_port 127.0.0.1 "$port" 10 || { cat "$work/haproxy.log" >&2; die "haproxy did not start"; }
        addr=127.0.0.1:$port
    fi
}

# cpu_snapshot: "replicas haproxy postgres" clock ticks so far.
postmaster() {
    local home="$PG_DIR"; [ -f "$PG_DIR/location" ] && home=$(cat "$PG_DIR/location")
    head -1 "$home/data/postmaster.pid"
}
cpu_snapshot() {
    local r=0 h=0 g=0 p pm
    for p in "${pids[@]}"; do
        if [ "$p" = "${haproxy_pid:-}" ]; then h=$((h + $(ticks_of "$p"))); else r=$((r + $(ticks_of "$p"))); fi
    done
    pm=$(postmaster)
    for p in "$pm" $(pgrep -P "$pm"); do g=$((g + $(ticks_of "$p"))); done
    echo "$r $h $g"
}
# writes_done: the target's writes so far (every receipt and notification marks its source).
writes_done() {
    case $target in
        sqlite1) sqlite3 "$work/sqlite1.sqlite" "select count(*) from processed_sources" ;;
        *) psql -w -X -q -At "${PG_URL%/*}/$target_db" -c "select count(*) from processed_sources" ;;
    esac
}
# per_write BEFORE AFTER WRITES_BEFORE WRITES_AFTER: "replicas postgres" CPU ms per write.
per_write() {
    local b=($1) a=($2)
    awk -v r=$((a[0] - b[0])) -v g=$((a[2] - b[2])) -v n=$(($4 - $3)) -v hz="$(getconf CLK_TCK)" \
        'BEGIN{ if (n <= 0) { print "- -"; exit } printf "%.3f %.3f", 1000 * r / hz / n, 1000 * g / hz / n }'
}
# cpu_columns BEFORE AFTER SECONDS: "replicas% haproxy% postgres%".
cpu_columns() {
    local b=($1) a=($2)
    echo "$(per_sec_pct $((a[0] - b[0])) "$3")% $(per_sec_pct $((a[1] - b[1])) "$3")% $(per_sec_pct $((a[2] - b[2])) "$3")%"
}

rows=()
row() { rows+=("$(printf '%-8s %-7s %9s %9s %9s %9s %8s %9s %9s %9s' "$@")"); log "${rows[-1]}"; }
ms() { awk -v u="$1" 'BEGIN{printf "%.2f", u/1000}'; }

for target in "${TARGETS[@]}"; do
    haproxy_pid=""
    start_target "$target"
    log "$target: load on $addr, replicas ${replica_addrs[*]}"

    # check: one user with the sample's chain.
    ROOT="$ROOT" "$VENV_PY" "$work/check_user.py" "$addr" "$DATA/cluster/stubs" || die "seeding the check user failed"
    c=${CHECK%x*}; m=${CHECK#*x}
    wait_quiet
    before=$(cpu_snapshot)
    "$BIN_DIR/entitlementd-load" --target "$addr" --connections "$c" --streams "$m" --duration "$DURATION" \
        --warmup "$WARMUP" --users 1 --user-prefix bench-check- --product "" >"$work/load.out" 2>&1 \
        || { cat "$work/load.out" >&2; die "check load on $target failed"; }
    after=$(cpu_snapshot)
    result=$(grep '^RESULT' "$work/load.out") || die "no RESULT for check on $target"
    f() { grep -o " $1=[^ ]*" <<<" $result" | cut -d= -f2; }
    # shellcheck disable=SC2046
    row "$target" check "$(f rps)" "$(ms "$(f p50_us)")" "$(ms "$(f p99_us)")" \
        $(cpu_columns "$before" "$after" "$((DURATION + WARMUP))")

    # submit: distinct receipts.
    wait_quiet
    before=$(cpu_snapshot); writes_before=$(writes_done)
    "$VENV_PY" "$ROOT/Benchmarks/submit_receipt_client.py" "$addr" "$DATA/cluster/stubs" \
        --channels 4 --concurrency 128 --duration "$DURATION" --warmup "$WARMUP" >"$work/client.out" 2>&1 \
        || { cat "$work/client.out" >&2; die "submit client failed on $target"; }
    after=$(cpu_snapshot); writes_after=$(writes_done)
    result=$(grep '^RESULT' "$work/client.out") || die "no RESULT from the submit client on $target"
    [ "$(f errors)" = 0 ] && [ "$(f bad)" = 0 ] || die "submit on $target had errors or wrong answers: $result"
    # shellcheck disable=SC2046
    row "$target" submit "$(f rps)" "$(ms "$(f p50_us)")" "$(ms "$(f p99_us)")" \
        $(cpu_columns "$before" "$after" "$((DURATION + WARMUP))") \
        $(per_write "$before" "$after" "$writes_before" "$writes_after")

    # notify: V1 notifications, each a durable write.
    wait_quiet
    before=$(cpu_snapshot); writes_before=$(writes_done)
    BODIES="$DATA/notifications/v1.jsonl" FIRST=1 wrk -t 1 -c 64 -d "$((WARMUP + DURATION))s" --timeout 30s \
        -s "$ROOT/Benchmarks/notifications.lua" "http://$addr/apple/notifications" >"$work/wrk.out" 2>"$work/wrk.err" \
        || { cat "$work/wrk.out" "$work/wrk.err" >&2; die "wrk failed on $target"; }
    after=$(cpu_snapshot); writes_after=$(writes_done)
    result=$(grep '^RESULT' "$work/wrk.out") || { cat "$work/wrk.out" >&2; die "no RESULT from wrk on $target"; }
    [ "$(f non200)" = 0 ] && [ "$(f errors)" = 0 ] || die "notify on $target: $result"
    # shellcheck disable=SC2046
    row "$target" notify "$(f rps)" "$(ms "$(f p50_us)")" "$(ms "$(f p99_us)")" \
        $(cpu_columns "$before" "$after" "$((DURATION + WARMUP))") \
        $(per_write "$before" "$after" "$writes_before" "$writes_after")

    if [ "$target" = pg3 ]; then
        log "invalidation delay: write on ${replica_addrs[0]}, read on ${replica_addrs[1]}, $TRIALS trials"
        "$VENV_PY" "$ROOT/Benchmarks/invalidation-delay.py" "${replica_addrs[0]}" "${replica_addrs[1]}" \
            "$DATA/cluster/stubs" --trials "$TRIALS" >"$work/inval.out" 2>&1 \
            || { cat "$work/inval.out" >&2; die "invalidation-delay.py failed"; }
        invalidation=$(grep -v '^RESULT' "$work/inval.out")
    fi
    stop_target
done

echo "cluster: sqlite1 = one replica on SQLite; pg1 = one replica on PostgreSQL; pg3 = three PostgreSQL replicas" \
     "behind haproxy (Deploy/haproxy.cfg). Unpinned, ${DURATION}s after ${WARMUP}s warm-up per run;" \
     "$(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores"
echo "check = CheckEntitlement, entitlementd-load $CHECK (one cached user); submit = SubmitReceipt, new receipt + user per call," \
     "grpc.aio 4 channels, 128 in flight; notify = V1 notifications, wrk -c 64, HTTP/1.1"
printf '%-8s %-7s %9s %9s %9s %9s %8s %9s %9s %9s\n' target run "req/s" "p50 ms" "p99 ms" replicas haproxy postgres \
    "repl ms/w" "pg ms/w"
printf '%s\n' "${rows[@]}"
echo "CPU in % of one core over the run (200% = the machine); the load generator's share is the rest." \
     "ms/w: CPU ms per write acknowledged (replicas, PostgreSQL's processes), writes counted in processed_sources."
[ -z "${invalidation:-}" ] || echo "$invalidation"
