#!/usr/bin/env bash
# Throughput and latency of grpc.health.v1.Health/Check on one event-loop thread: the cost of
# the transport and the gRPC core with no handler work behind them.
#
#   Benchmarks/health-h2load.sh [SETTINGS...]     SETTINGS like 1x1 4x32 64x8 (CONNSxSTREAMS)
#
# Builds release into .build-release, starts entitlementd pinned to cpu 1 with --threads 1, and
# loads it with h2load (h2c prior knowledge, one thread) pinned to cpu 0: 10 s per setting
# after a 2 s warm-up. The measuring is ../shared/bench/load.sh's (CPU accounting, disturbed-run
# retries, p50/p99 from h2load's per-request log); a gRPC gate with nghttp checks the answer
# first, since h2load sees only HTTP 200, never grpc-status.
# Prints a table, and the server's RSS idle and after the last setting.
# A benchmark, not a test: Scripts/test never runs it.
#
# Env: DURATION=10s  WARMUP=2  SHARED_BENCH=../shared/bench  NO_BUILD=1 (reuse the binary)
#      QUIET_WAIT / MAX_OTHER / RETRY_DISTURBED as in shared/bench/lib.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=Scripts/lib/release.sh
. "$ROOT/Scripts/lib/release.sh"   # build_bench_release
cd "$ROOT"
SHARED_BENCH="${SHARED_BENCH:-$ROOT/../shared/bench}"
[ -x "$SHARED_BENCH/load.sh" ] || { echo "need $SHARED_BENCH/load.sh (set SHARED_BENCH)" >&2; exit 1; }
export BENCH_BUILD="${BENCH_BUILD:-$ROOT/.build-release/bench}"
# shellcheck source=/dev/null
. "$SHARED_BENCH/lib.sh"   # log, die, pin_server, stop_pid, run_load, prewarm

SETTINGS=("$@"); [ ${#SETTINGS[@]} -gt 0 ] || SETTINGS=(1x1 4x32 64x8)
DURATION=${DURATION:-10s}
export WARMUP=${WARMUP:-2}
HEALTH_PATH=/grpc.health.v1.Health/Check
# The answer: a 7-byte gRPC frame, flag 0, length 2, HealthCheckResponse{status: SERVING}.
EXPECT_HEX=00000000020801

if ! command -v h2load >/dev/null || ! command -v nghttp >/dev/null; then
    log "installing nghttp2-client (h2load, nghttp)"
    sudo_=(); [ "$(id -u)" -eq 0 ] || sudo_=(sudo)
    "${sudo_[@]}" apt-get update -q && "${sudo_[@]}" apt-get install -y -q nghttp2-client
fi

if [ -z "${NO_BUILD:-}" ]; then
    log "release build (.build-release)"
    build_bench_release entitlementd
fi
BIN="$ROOT/.build-release/release/entitlementd"
[ -x "$BIN" ] || die "no release binary at $BIN"

work=$(mktemp -d "${TMPDIR:-/tmp}/health-h2load.XXXXXX")
server_pid=""
cleanup() { stop_pid "$server_pid"; rm -rf "$work"; }
trap cleanup EXIT

# An empty HealthCheckRequest (service ""), gRPC-framed: flag 0 and a zero length.
printf '\x00\x00\x00\x00\x00' >"$work/health.bin"

# shellcheck disable=SC2046
$(pin_server) "$BIN" --listen 127.0.0.1:0 --threads 1 --database "$work/bench.sqlite" \
    --log-level warning >"$work/stdout" 2>"$work/stderr" &
server_pid=$!
for _ in $(seq 200); do grep -q . "$work/stdout" 2>/dev/null && break; sleep 0.05; done
addr=$(sed -n 's/^entitlementd listening on //p' "$work/stdout")
[ -n "$addr" ] || { cat "$work/stderr" >&2; die "entitlementd did not start"; }
rss() { awk '/^VmRSS/ {print $2 " " $3}' "/proc/$server_pid/status"; }
log "entitlementd $addr (pid $server_pid, $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'))"

# Correctness gate: grpc-status 0 and the exact SERVING frame.
nghttp_health() { nghttp "$@" -d "$work/health.bin" -H 'content-type: application/grpc' -H 'te: trailers' \
    "http://$addr$HEALTH_PATH"; }
nghttp_health >"$work/answer.bin" 2>&1 || true   # the body alone
gate=$(nghttp_health -v 2>&1 | tr -d '\000') || true   # frames and trailers (the body has NULs)
got=$(od -An -tx1 "$work/answer.bin" | tr -d ' \n')
grep -q 'grpc-status: 0' <<<"$gate" && [ "$got" = "$EXPECT_HEX" ] \
    || { echo "$gate" >&2; die "health gate failed: body $got, want $EXPECT_HEX with grpc-status 0"; }
rss_idle=$(rss)

load_env=(SKIP_CHECK=1 "URL_PATH=$HEALTH_PATH" "BODY=$work/health.bin" EXPECT_DATA_BYTES=7)
prewarm "${load_env[*]}" "$addr" 4 32
rows=()
for s in "${SETTINGS[@]}"; do
    c=${s%x*}; m=${s#*x}
    [[ "$c" =~ ^[0-9]+$ && "$m" =~ ^[0-9]+$ ]] || die "setting '$s' is not CONNSxSTREAMS"
    run_load "${load_env[*]}" "$addr" "$c" "$m" "$DURATION" "$work/out" "$work/err" \
        || { cat "$work/err" "$work/out" >&2; die "load $s failed"; }
    result=$(grep '^RESULT' "$work/out") || { cat "$work/err" "$work/out" >&2; die "no RESULT for $s"; }
    field() { grep -o " $1=[^ ]*" <<<"$result" | cut -d= -f2; }
    rows+=("$(printf '%-6s %10s %10s %10s %8s %8s' "$s" "$(field rps)" \
        "$(awk -v u="$(field p50_us)" 'BEGIN{printf "%.3f", u/1000}')" \
        "$(awk -v u="$(field p99_us)" 'BEGIN{printf "%.3f", u/1000}')" \
        "$(field cpu_server)%" "$(field cpu_other)%")")
done
rss_after=$(rss)
kill -0 "$server_pid" 2>/dev/null || die "entitlementd died under load"

echo "health-h2load: $HEALTH_PATH, entitlementd --threads 1 on cpu ${SERVER_CPU}, h2load -t 1 on cpu ${LOAD_CPU}, $DURATION after ${WARMUP}s warm-up"
printf '%-6s %10s %10s %10s %8s %8s\n' "CxS" "req/s" "p50 ms" "p99 ms" "server" "other"
printf '%s\n' "${rows[@]}"
echo "RSS idle: $rss_idle; after ${SETTINGS[-1]}: $rss_after"
