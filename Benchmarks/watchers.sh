#!/usr/bin/env bash
# CheckEntitlement throughput and latency on one entitlementd with 0 and with 1,000 connected,
# idle WatchEntitlementChanges streams (issue 12: at most 10 % slower with the watchers).
#
#   Benchmarks/watchers.sh [SETTINGS...]     SETTINGS like 4x32 (CONNSxSTREAMS, default 4x32)
#
# Builds entitlementd and entitlementd-bench release into .build-release; the database holds
# u0 and u1 (the shared check.py gate's users). The server runs with --threads 1 pinned to cpu 1,
# h2load (the shared load.sh) on cpu 0, and Benchmarks/idle_watchers.py holds the watchers on
# cpu 0 too, over 8 connections. Order: 0 watchers, 1,000 watchers, 0 watchers again (the two
# 0-watcher runs bracket the other, so drift of a shared machine shows as their difference).
# Prints req/s, p50, p99 and server CPU per run, the server's RSS, and the ratio of the
# 1,000-watcher run to the mean of the 0-watcher runs. A benchmark, not a test.
#
# Env: WATCHERS=1000 DURATION=10s WARMUP=2 NO_BUILD=1 SHARED_BENCH=../shared/bench
#      PYTHON (with the h2 package; default .build/venv/bin/python, which Scripts/test creates)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=Scripts/lib/release.sh
. "$ROOT/Scripts/lib/release.sh"   # build_bench_release
cd "$ROOT"
SHARED_BENCH="${SHARED_BENCH:-$ROOT/../shared/bench}"
[ -x "$SHARED_BENCH/load.sh" ] || { echo "need $SHARED_BENCH/load.sh (set SHARED_BENCH)" >&2; exit 1; }
# shellcheck source=/dev/null
. "$SHARED_BENCH/lib.sh"
SETTINGS=("$@"); [ ${#SETTINGS[@]} -gt 0 ] || SETTINGS=(4x32)
WATCHERS=${WATCHERS:-1000}; DURATION=${DURATION:-10s}
export WARMUP=${WARMUP:-2}
PYTHON=${PYTHON:-$ROOT/.build/venv/bin/python}
"$PYTHON" -c 'import h2' 2>/dev/null || die "$PYTHON lacks h2: run Scripts/test once (it makes .build/venv) or set PYTHON"
LOAD_ENV="ACTIVE_USER=u0 INACTIVE_USER=u1 PRODUCT=pro.monthly"

if [ -z "${NO_BUILD:-}" ]; then
    log "release build (.build-release): entitlementd, entitlementd-bench"
    build_bench_release entitlementd
    build_bench_release entitlementd-bench
fi
BIN="$ROOT/.build-release/release/entitlementd"
BENCH_BIN="$ROOT/.build-release/release/entitlementd-bench"
[ -x "$BIN" ] && [ -x "$BENCH_BIN" ] || die "no release binaries in .build-release/release"

work=$(mktemp -d "${TMPDIR:-/tmp}/watchers.XXXXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do stop_pid "$p"; done; rm -rf "$work"; }
trap cleanup EXIT
"$BENCH_BIN" seed --database "$work/db.sqlite" --users 2 --transactions-per-user 3 >/dev/null

# shellcheck disable=SC2046
$(pin_server) "$BIN" --listen 127.0.0.1:0 --threads 1 --database "$work/db.sqlite" --log-level warning \
    >"$work/server.out" 2>"$work/server.err" &
server=$!; pids+=("$server")
for _ in $(seq 2000); do grep -q 'listening on' "$work/server.out" 2>/dev/null && break; sleep 0.005; done
addr=$(sed -n 's/^entitlementd listening on //p' "$work/server.out" | cut -d' ' -f1)
[ -n "$addr" ] || { cat "$work/server.err" >&2; die "entitlementd did not start"; }
rss() { awk '/^VmRSS/ {printf "%.1f MiB", $2 / 1024}' "/proc/$server/status"; }
gauge() { curl -s "http://$addr/metrics" | awk -v n="$1" '$1 == n {print $2}'; }
prewarm "$LOAD_ENV" "$addr" 4 32

declare -A result rss_at
measure() {   # LABEL SETTING
    local c=${2%x*} m=${2#*x}
    run_load "$LOAD_ENV" "$addr" "$c" "$m" "$DURATION" "$work/out" "$work/err" \
        || { cat "$work/err" "$work/out" >&2; die "load $1 $2 failed"; }
    grep -q '^check: .*OK' "$work/err" || { cat "$work/err" >&2; die "no check.py pass"; }
    result[$1,$2]=$(grep '^RESULT' "$work/out")
    rss_at[$1]=$(rss)
}
rss_at[start]=$(rss)
for s in "${SETTINGS[@]}"; do measure zero-before "$s"; done

mkfifo "$work/hold"
taskset -c "$LOAD_CPU" "$PYTHON" "$ROOT/Benchmarks/idle_watchers.py" "$addr" "$WATCHERS" 8 \
    <"$work/hold" >"$work/watchers.out" 2>"$work/watchers.err" &
holder=$!; pids+=("$holder")
exec 3>"$work/hold"
for _ in $(seq 600); do grep -q '^watching' "$work/watchers.out" 2>/dev/null && break; sleep 0.1; done
grep -q '^watching' "$work/watchers.out" || { cat "$work/watchers.err" >&2; die "watchers did not connect"; }
connected=$(gauge entitlementd_watchers_connected)
[ "${connected%.*}" -eq "$WATCHERS" ] || die "server reports $connected watchers, expected $WATCHERS"
rss_at[watching]=$(rss)
for s in "${SETTINGS[@]}"; do measure watchers "$s"; done
still=$(gauge entitlementd_watchers_connected)
exec 3>&-; stop_pid "$holder"
for _ in $(seq 100); do [ "$(gauge entitlementd_watchers_connected)" = 0 ] && break; sleep 0.1; done
for s in "${SETTINGS[@]}"; do measure zero-after "$s"; done

field() { grep -o " $2=[^ ]*" <<<"${result[$1]}" | cut -d= -f2; }
echo "watchers: CheckEntitlement (u0 / pro.monthly) on entitlementd --threads 1 (cpu $SERVER_CPU), h2load on cpu" \
     "$LOAD_CPU, $DURATION after ${WARMUP}s warm-up; $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "server RSS: $(echo "${rss_at[start]}") at start, ${rss_at[watching]} with $WATCHERS idle watchers" \
     "($still still connected after the load; idle_watchers.py: $(wc -l <"$work/watchers.err") ended streams)"
printf '%-22s %-6s %9s %9s %9s %7s %6s\n' run CxS req/s "p50 ms" "p99 ms" server other
for s in "${SETTINGS[@]}"; do
    for r in zero-before watchers zero-after; do
        printf '%-22s %-6s %9s %9s %9s %6s%% %5s%%\n' "$r" "$s" "$(field "$r,$s" rps)" \
            "$(awk -v u="$(field "$r,$s" p50_us)" 'BEGIN{printf "%.3f", u/1000}')" \
            "$(awk -v u="$(field "$r,$s" p99_us)" 'BEGIN{printf "%.3f", u/1000}')" \
            "$(field "$r,$s" cpu_server)" "$(field "$r,$s" cpu_other)"
    done
    awk -v s="$s" -v w="$(field "watchers,$s" rps)" -v a="$(field "zero-before,$s" rps)" \
        -v b="$(field "zero-after,$s" rps)" -v pw="$(field "watchers,$s" p99_us)" \
        -v pa="$(field "zero-before,$s" p99_us)" -v pb="$(field "zero-after,$s" p99_us)" 'BEGIN {
        printf "ratio %d watchers / 0 watchers (mean of both) %s: req/s %.3fx, p99 %.3fx\n", '"$WATCHERS"', s,
            w / ((a + b) / 2), pw / ((pa + pb) / 2) }'
done
