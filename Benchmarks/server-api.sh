#!/usr/bin/env bash
# SubmitReceipt through the App Store Server API (transaction_id) next to the verifyReceipt path
# (receipt_data), both against a ZERO-latency fake Apple and measured the same way: what our
# side costs per call, in server CPU milliseconds, since Apple's own latency is taken out.
#
#   Benchmarks/server-api.sh
#
# One apple-fake (Benchmarks/apple-fake --distinct --server-api DIR: the project's own HTTPServer
# on cpu 0 with the load client) serves both verifyReceipt (the 7-transaction sandbox sample,
# new ids per receipt) and the Server API (for any id: one history page with one signed
# subscription transaction, and its status with the signed transaction and renewal info, each
# signed fresh by a throwaway authority the server trusts with --apple-root-ca).
# entitlementd --threads 1 on cpu 1; Benchmarks/submit_receipt_client.py (grpc.aio, 4 channels x
# 32 in flight) sends a new receipt (or a new transaction id) for a new user on every call:
#   verifyReceipt:  1 POST to Apple, JSON parse, 7 new transactions written;
#   transaction_id: 2 GETs (history, statuses) with a bearer JWT, 3 JWS verified (x5c chain +
#                   ES256), 1 new transaction and its renewal info written.
# Prints calls/s, p50/p99, server CPU % and server CPU ms per call, Apple requests per call.
# A benchmark, not a test: Scripts/test never runs it.
#
# Env: SECS=10  WARMUP=2  NO_BUILD=1  CONCURRENCY=32  SHARED_BENCH=../shared/bench
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=Benchmarks/bench-common.sh
. "$ROOT/Benchmarks/bench-common.sh"   # with ../shared/bench/lib.sh

SECS=${SECS:-10}
WARMUP=${WARMUP:-2}
CONCURRENCY=${CONCURRENCY:-32}
SAMPLE="$ROOT/../shared/samples/verifyreceipt-sandbox-numbers-oldest-first.json"
SECRET=bench-secret

build_products entitlementd apple-fake
ensure_venv
DATA="$ROOT/.build-release/bench-data/server-api"
mkdir -p "$DATA"
work=$(mktemp -d "${TMPDIR:-/tmp}/server-api.XXXXXX")
server_pid=""; fake_pid=""
cleanup() { stop_pid "$server_pid"; stop_pid "$fake_pid"; rm -rf "$work"; }
trap cleanup EXIT

# shellcheck disable=SC2046
$(pin_load) "$BIN_DIR/apple-fake" --sample "$SAMPLE" --distinct --server-api "$work/apple" >"$work/fake.out" 2>&1 &
fake_pid=$!
fake_addr=$(wait_listen_line "$work/fake.out" "apple-fake listening on ") || die "apple-fake did not start"

# start_server FLAGS...: a fresh database, --threads 1 on SERVER_CPU; sets server_pid, addr.
start_server() {
    stop_pid "$server_pid"
    rm -f "$work"/bench.sqlite* "$work/server.out"
    # shellcheck disable=SC2046
    start_entitlementd "$work/server" $(pin_server) "$BIN_DIR/entitlementd" --listen 127.0.0.1:0 --threads 1 \
        --database "$work/bench.sqlite" --apple-production-url "http://$fake_addr/production/verifyReceipt" \
        --apple-sandbox-url "http://$fake_addr/sandbox/verifyReceipt" --apple-shared-secret "$SECRET" \
        --log-level warning "$@"
    server_pid=$started_pid addr=$started_addr
}

# measure NAME COUNTER_PATH CLIENT_FLAGS...: one run; appends a row.
rows=()
measure() {
    local name=$1 counter=$2; shift 2
    wait_quiet
    local calls0 calls1 st0 st1 ft0 ft1 result loaded requests
    calls0=$(curl -s "http://$fake_addr/$counter"); st0=$(ticks_of "$server_pid"); ft0=$(ticks_of "$fake_pid")
    # shellcheck disable=SC2046
    $(pin_load) "$VENV_PY" "$ROOT/Benchmarks/submit_receipt_client.py" "$addr" "$DATA/stubs" \
        --channels 4 --concurrency "$CONCURRENCY" --duration "$SECS" --warmup "$WARMUP" "$@" >"$work/client.out" 2>&1 \
        || { cat "$work/client.out" "$work/server.err" >&2; die "$name client failed"; }
    calls1=$(curl -s "http://$fake_addr/$counter"); st1=$(ticks_of "$server_pid"); ft1=$(ticks_of "$fake_pid")
    cat "$work/client.out" >&2
    result=$(grep '^RESULT' "$work/client.out") || die "no RESULT from the $name client"
    field() { grep -o " $1=[^ ]*" <<<" $result" | cut -d= -f2; }
    [ "$(field errors)" = 0 ] && [ "$(field bad)" = 0 ] || die "$name run had errors or wrong answers: $result"
    loaded=$((SECS + WARMUP))
    # Every call of the run (warm-up included) against the server's CPU over the same span.
    requests=$(awk -v r="$(field rps)" -v s="$SECS" -v w="$WARMUP" 'BEGIN{printf "%d", r * (s + w)}')
    rows+=("$(printf '%-15s %8s %8s %8s %7s %9s %7s %8s' "$name" "$(field rps)" \
        "$(awk -v u="$(field p50_us)" 'BEGIN{printf "%.2f", u/1000}')" \
        "$(awk -v u="$(field p99_us)" 'BEGIN{printf "%.2f", u/1000}')" \
        "$(per_sec_pct "$((st1 - st0))" "$loaded")%" \
        "$(awk -v t="$((st1 - st0))" -v n="$requests" -v hz="$(getconf CLK_TCK)" 'BEGIN{printf "%.3f", 1000 * t / hz / n}')" \
        "$(per_sec_pct "$((ft1 - ft0))" "$loaded")%" \
        "$(awk -v c="$((calls1 - calls0))" -v n="$requests" 'BEGIN{printf "%.2f", c / n}')")")
}

start_server
log "verifyReceipt path: entitlementd $addr, apple-fake $fake_addr"
measure "verifyReceipt" calls --expect-new 7
start_server --app-store-key "$work/apple/AuthKey.p8" --app-store-key-id BENCHKEY --app-store-issuer-id bench \
    --bundle-id com.example.app --apple-root-ca "$work/apple/root.pem" \
    --app-store-api-url "http://$fake_addr/production" --app-store-api-sandbox-url "http://$fake_addr/sandbox" \
    --app-store-api-rate 10000
log "Server API path: entitlementd $addr"
measure "transaction_id" api-calls --transaction-ids --expect-new 1
kill -0 "$server_pid" 2>/dev/null || die "entitlementd died under load"

echo "server-api: SubmitReceipt, entitlementd --threads 1 on cpu ${SERVER_CPU}; client (4 channels x $CONCURRENCY)" \
     "and apple-fake on cpu ${LOAD_CPU}; zero-latency Apple; ${SECS}s after ${WARMUP}s warm-up;" \
     "$(git rev-parse --short HEAD 2>/dev/null || echo '?')"
printf '%-15s %8s %8s %8s %7s %9s %7s %8s\n' "path" "calls/s" "p50 ms" "p99 ms" "server" "ms CPU/call" "fake" "apple/call"
printf '%s\n' "${rows[@]}"
echo "server = entitlementd CPU in % of one core; ms CPU/call = its CPU time per SubmitReceipt; fake = apple-fake"
echo "(it signs each Server API answer); apple/call = requests to the fake per SubmitReceipt."
