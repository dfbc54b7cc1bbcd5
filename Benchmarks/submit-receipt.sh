#!/usr/bin/env bash
# SubmitReceipt throughput against a ZERO-latency fake Apple: what our side costs per receipt
# (gRPC, base64 check, verifyReceipt request through HTTPClient (libcurl), JSON parse, one durable
# SQLite write, the entitlements answer), since Apple's own 100 ms+ is taken out.
#
#   Benchmarks/submit-receipt.sh [SETTINGS...]     SETTINGS like 4x32 1x1 (CONNSxSTREAMS)
#
# Pinning on this 2-core box: entitlementd --threads 1 on cpu 1 (all its threads: loop,
# HTTPClient's curl thread, SQLite writer, task pool); h2load -t 1 on cpu 0; apple-fake
# (Benchmarks/apple-fake, the project's own HTTPServer, one loop) also on cpu 0, sharing the
# load generator's core, so the server's core is its alone. Their CPU is printed per run (% of
# one core).
#
# 1. Resubmission: h2load repeats ONE receipt (small ~4 KB, then large 300 KB receipt_data), each
#    answered by the 7-transaction sandbox sample. After the first call every call is an
#    idempotent write (0 new transactions), but Apple is still called (--verify-cache-ttl off);
#    concurrent identical receipts share one verifyReceipt call (single flight), so the
#    "apple/s" column shows how many calls were really made.
# 2. Distinct receipts: Benchmarks/submit_receipt_client.py (grpc.aio, 4 channels x 32 in
#    flight, on cpu 0 with apple-fake --distinct): every call is a new receipt for a new user,
#    one verifyReceipt call and 7 new transactions each.
# Prints req/s, p50/p99, server CPU, the others' CPU, and the server's RSS.
# A benchmark, not a test: Scripts/test never runs it.
#
# apple-fake answers in Apple's own compact layout (--layout apple, its default); FAKE_LAYOUT=file
# serves the sample file as it is (pretty-printed, as before round 14: ~1,900 more blanks).
#
# Env: DURATION=10s  WARMUP=2  NO_BUILD=1  NO_DISTINCT=1  DISTINCT_SECS=10  FAKE_LAYOUT=apple
#      FAKE_BIN_DIR=$BIN_DIR (A/B: BIN_DIR=<other build> FAKE_BIN_DIR=<this one> NO_BUILD=1)
#      RECEIPTS="small large" (which resubmission runs; RECEIPTS= skips them, e.g. distinct only)
#      SHARED_BENCH=../shared/bench  QUIET_WAIT / MAX_OTHER / RETRY_DISTURBED as in lib.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=Benchmarks/bench-common.sh
. "$ROOT/Benchmarks/bench-common.sh"   # with ../shared/bench/lib.sh

SETTINGS=("$@"); [ ${#SETTINGS[@]} -gt 0 ] || SETTINGS=(4x32 1x1)
DURATION=${DURATION:-10s}
export WARMUP=${WARMUP:-2}
# apple-fake shares cpu 0 with h2load, so load.sh counts it as "other" load: no disturbed-run retries.
export RETRY_DISTURBED=${RETRY_DISTURBED:-0}
SUBMIT_PATH=/entitlement.v1.EntitlementService/SubmitReceipt
SAMPLE="$ROOT/../shared/samples/verifyreceipt-sandbox-numbers-oldest-first.json"
SECRET=bench-secret

need_h2load
build_products entitlementd apple-fake
ensure_venv
DATA="$ROOT/.build-release/bench-data/submit-receipt"
"$VENV_PY" "$ROOT/Benchmarks/submit_receipt_bodies.py" "$DATA" >&2 || die "cannot write request bodies"

work=$(mktemp -d "${TMPDIR:-/tmp}/submit-receipt.XXXXXX")
server_pid=""; fake_pid=""
cleanup() { stop_pid "$server_pid"; stop_pid "$fake_pid"; rm -rf "$work"; }
trap cleanup EXIT

# start_fake [--distinct]: apple-fake on LOAD_CPU; sets fake_pid, fake_addr.
start_fake() {
    stop_pid "$fake_pid"
    # A fresh file: the shell truncates it only once the child runs, and the previous fake's
    # "listening on" line must not be read as this one's address.
    rm -f "$work/fake.out"
    # shellcheck disable=SC2046
    $(pin_load) "${FAKE_BIN_DIR:-$BIN_DIR}/apple-fake" --sample "$SAMPLE" --layout "${FAKE_LAYOUT:-apple}" "$@" \
        >"$work/fake.out" 2>&1 &
    fake_pid=$!
    fake_addr=$(wait_listen_line "$work/fake.out" "apple-fake listening on ") || die "apple-fake did not start"
}
# start_server: a fresh database, --threads 1 on SERVER_CPU; sets server_pid, addr.
start_server() {
    stop_pid "$server_pid"
    rm -f "$work"/bench.sqlite* "$work/server.out"   # server.out: as in start_fake
    # shellcheck disable=SC2046
    start_entitlementd "$work/server" $(pin_server) "$BIN_DIR/entitlementd" --listen 127.0.0.1:0 --threads 1 \
        --database "$work/bench.sqlite" --apple-production-url "http://$fake_addr/production/verifyReceipt" \
        --apple-sandbox-url "http://$fake_addr/sandbox/verifyReceipt" --apple-shared-secret "$SECRET" \
        --log-level warning
    server_pid=$started_pid addr=$started_addr
}
apple_calls() { curl -s "http://$fake_addr/calls"; }

# gate BODY: one call through nghttp; grpc-status 0 required; prints the answer's DATA bytes.
gate() {
    local body=$1 verbose
    nghttp -d "$body" -H 'content-type: application/grpc' -H 'te: trailers' "http://$addr$SUBMIT_PATH" \
        >"$work/answer.bin" 2>&1 || true
    verbose=$(nghttp -v -d "$body" -H 'content-type: application/grpc' -H 'te: trailers' \
        "http://$addr$SUBMIT_PATH" 2>&1 | tr -d '\000') || true
    grep -q 'grpc-status: 0' <<<"$verbose" || { echo "$verbose" | grep -a 'grpc-' >&2; die "SubmitReceipt gate failed ($body)"; }
    stat -c %s "$work/answer.bin"
}

start_fake
start_server
log "entitlementd $addr (pid $server_pid), apple-fake $fake_addr (pid $fake_pid), $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
rss_idle=$(rss_of "$server_pid")
rows=()
for receipt in ${RECEIPTS-small large}; do
    body="$DATA/$receipt.bin"
    answer_bytes=$(gate "$body")
    log "$receipt receipt: body $(stat -c %s "$body") B, answer $answer_bytes B (first call stored the 7 transactions)"
    load_env=(SKIP_CHECK=1 "URL_PATH=$SUBMIT_PATH" "BODY=$body" "EXPECT_DATA_BYTES=$answer_bytes")
    prewarm "${load_env[*]}" "$addr" 4 32
    for s in "${SETTINGS[@]}"; do
        c=${s%x*}; m=${s#*x}
        [[ "$c" =~ ^[0-9]+$ && "$m" =~ ^[0-9]+$ ]] || die "setting '$s' is not CONNSxSTREAMS"
        calls0=$(apple_calls); ft0=$(ticks_of "$fake_pid")
        run_load "${load_env[*]}" "$addr" "$c" "$m" "$DURATION" "$work/out" "$work/err" \
            || { cat "$work/err" "$work/out" >&2; die "load $receipt $s failed"; }
        calls1=$(apple_calls); ft1=$(ticks_of "$fake_pid")
        result=$(grep '^RESULT' "$work/out") || { cat "$work/err" "$work/out" >&2; die "no RESULT for $s"; }
        loaded=$(( ${DURATION%s} + WARMUP ))   # the fake works only while h2load loads
        rows+=("$(result_row "resubmit-$receipt" "$s" "$result" \
            "$(per_sec_pct "$((ft1 - ft0))" "$loaded")%" "$(( (calls1 - calls0) / loaded ))" "$(rss_of "$server_pid")")")
    done
done
kill -0 "$server_pid" 2>/dev/null || die "entitlementd died under load"

if [ -z "${NO_DISTINCT:-}" ]; then
    start_fake --distinct
    start_server
    secs=${DISTINCT_SECS:-10}
    log "distinct receipts: submit_receipt_client.py 4 channels x 32, ${secs}s after ${WARMUP}s, on cpu ${LOAD_CPU}"
    wait_quiet
    calls0=$(apple_calls); ft0=$(ticks_of "$fake_pid"); st0=$(ticks_of "$server_pid")
    # shellcheck disable=SC2046
    $(pin_load) "$VENV_PY" "$ROOT/Benchmarks/submit_receipt_client.py" "$addr" "$DATA/stubs" \
        --channels 4 --concurrency 128 --duration "$secs" --warmup "$WARMUP" >"$work/client.out" 2>&1 \
        || { cat "$work/client.out" >&2; die "distinct client failed"; }
    calls1=$(apple_calls); ft1=$(ticks_of "$fake_pid"); st1=$(ticks_of "$server_pid")
    cat "$work/client.out" >&2
    result=$(grep '^RESULT' "$work/client.out") || die "no RESULT from the distinct client"
    field() { grep -o " $1=[^ ]*" <<<" $result" | cut -d= -f2; }
    [ "$(field errors)" = 0 ] && [ "$(field bad)" = 0 ] || die "distinct run had errors or wrong answers: $result"
    loaded=$((secs + WARMUP))
    rows+=("$(printf '%-16s %-6s %8s %9s %9s %7s %7s %7s %8s %10s' "distinct-small" "4x32" "$(field rps)" \
        "$(awk -v u="$(field p50_us)" 'BEGIN{printf "%.2f", u/1000}')" \
        "$(awk -v u="$(field p99_us)" 'BEGIN{printf "%.2f", u/1000}')" \
        "$(per_sec_pct "$((st1 - st0))" "$loaded")%" "$(field client_cpu_pct)%" \
        "$(per_sec_pct "$((ft1 - ft0))" "$loaded")%" "$(( (calls1 - calls0) / loaded ))" "$(rss_of "$server_pid")")")
fi

echo "submit-receipt: $SUBMIT_PATH, entitlementd --threads 1 on cpu ${SERVER_CPU}; h2load -t 1 (or the distinct" \
     "client) and apple-fake on cpu ${LOAD_CPU}; zero-latency Apple answering the 7-transaction sandbox sample;" \
     "$DURATION after ${WARMUP}s warm-up; $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
printf '%-16s %-6s %8s %9s %9s %7s %7s %7s %8s %10s\n' "run" "CxS" "req/s" "p50 ms" "p99 ms" "server" "client" "fake" "apple/s" "RSS"
printf '%s\n' "${rows[@]}"
echo "server RSS idle: $rss_idle. CPU in % of one core. client = h2load, or the python client in the distinct run;"
echo "apple/s = verifyReceipt calls the fake served per second of load (single flight shares one among identical receipts)."
