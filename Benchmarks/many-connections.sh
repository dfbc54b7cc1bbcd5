#!/usr/bin/env bash
# 10,000 concurrent h2c connections on one server (issue 14 goal 5): does holding them cost
# memory beyond reason, refuse connections under --max-connections, or slow an active client?
#
#   Benchmarks/many-connections.sh [HOLD=10000]
#
# entitlementd --threads 1 on cpu 1 (the shared bench pinning) with --max-connections HOLD+100 on
# a 1,000-user bench database. First the active client alone (entitlementd-load 1x1 and 4x8,
# uniform over the users, on cpu 0); then `entitlementd-load --hold HOLD` (also cpu 0) opens HOLD
# connections that each call CheckEntitlement every HOLD_INTERVAL seconds, and the same active
# client runs again beside them. Prints RSS idle / with the connections held (and per held
# connection), the active client's req/s, p50 and p99 both ways with their ratio, and what the
# holder saw (opened, refused, lost, answered), plus the server's open-files log line.
# A benchmark, not a test: Scripts/test never runs it.
#
# Env: HOLD_INTERVAL=5 DURATION=10 SERVER_NOFILE=1024 NO_BUILD=1 SHARED_BENCH=../shared/bench QUIET_WAIT as in lib.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SHARED_BENCH="${SHARED_BENCH:-$ROOT/../shared/bench}"
[ -f "$SHARED_BENCH/lib.sh" ] || { echo "need $SHARED_BENCH/lib.sh (set SHARED_BENCH)" >&2; exit 1; }
# shellcheck source=/dev/null
. "$SHARED_BENCH/lib.sh"   # log, die, pin_server, pin_load, stop_pid, wait_quiet

HOLD=${1:-10000}; HOLD_INTERVAL=${HOLD_INTERVAL:-5}; DURATION=${DURATION:-10}
if [ -z "${NO_BUILD:-}" ]; then
    for product in entitlementd entitlementd-bench entitlementd-load; do
        log "swift build -c release --product $product (.build-release)"
        swift build -c release --product "$product" --scratch-path .build-release >&2
    done
fi
BIN_DIR="$ROOT/.build-release/release"
work=$(mktemp -d "${TMPDIR:-/tmp}/many-connections.XXXXXX")
server_pid=""; holder_pid=""
cleanup() { stop_pid "$holder_pid"; stop_pid "$server_pid"; rm -rf "$work"; }
trap cleanup EXIT

"$BIN_DIR/entitlementd-bench" seed --database "$work/db.sqlite" --users 1000 --transactions-per-user 3 >/dev/null
# Started with a soft open-files limit of SERVER_NOFILE (default 1024, the usual default) to show
# that entitlementd raises it to what --max-connections needs.
# shellcheck disable=SC2046
$(pin_server) prlimit --nofile="${SERVER_NOFILE:-1024}:$(ulimit -Hn)" \
    "$BIN_DIR/entitlementd" --listen 127.0.0.1:0 --threads 1 --max-connections $((HOLD + 100)) \
    --database "$work/db.sqlite" >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
for _ in $(seq 200); do grep -q 'listening on' "$work/server.out" 2>/dev/null && break; sleep 0.05; done
addr=$(sed -n 's/^entitlementd listening on //p' "$work/server.out")
[ -n "$addr" ] || { cat "$work/server.err" >&2; die "entitlementd did not start"; }
rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }

# active SETTING: the extra active client; prints its RESULT line.
active() {
    local c=${1%x*} m=${1#*x}
    wait_quiet
    # shellcheck disable=SC2046
    $(pin_load) "$BIN_DIR/entitlementd-load" --target "$addr" --connections "$c" --streams "$m" --users 1000 \
        --distribution uniform --duration "$DURATION" --warmup 2 --server-pid "$server_pid" | grep '^RESULT'
}
field() { grep -o " $1=[^ ]*" <<<" $2" | cut -d= -f2; }

rss_idle=$(rss_kib "$server_pid")
declare -A alone beside
for s in 1x1 4x8; do alone[$s]=$(active "$s"); done

# shellcheck disable=SC2046
$(pin_load) "$BIN_DIR/entitlementd-load" --target "$addr" --users 1000 --distribution uniform --hold "$HOLD" \
    --hold-interval "$HOLD_INTERVAL" --warmup 0 --duration $((4 * DURATION + 30)) >"$work/holder.out" 2>&1 &
holder_pid=$!
for _ in $(seq 600); do
    [ "$(find "/proc/$server_pid/fd" -maxdepth 1 2>/dev/null | wc -l)" -ge "$HOLD" ] && break; sleep 0.1
done
sleep "$HOLD_INTERVAL"   # every held connection has made a call
rss_held=$(rss_kib "$server_pid")
for s in 1x1 4x8; do beside[$s]=$(active "$s"); done
rss_after=$(rss_kib "$server_pid")
wait "$holder_pid" || true
holder_pid=""
kill -0 "$server_pid" 2>/dev/null || die "entitlementd died"

echo "many-connections: entitlementd --threads 1 on cpu $SERVER_CPU, $HOLD held h2c connections (one call each every" \
     "${HOLD_INTERVAL}s) and the active client on cpu $LOAD_CPU; ${DURATION}s runs; $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
awk -v i="$rss_idle" -v h="$rss_held" -v a="$rss_after" -v n="$HOLD" 'BEGIN {
    printf "RSS: idle %.1f MiB, %d connections held %.1f MiB (%.1f KiB per connection), after the active runs %.1f MiB\n",
        i / 1024, n, h / 1024, (h - i) / n, a / 1024 }'
printf '%-6s %-8s %9s %9s %9s %8s\n' CxS with req/s "p50 ms" "p99 ms" server
for s in 1x1 4x8; do
    for which in alone beside; do
        r=$( [ "$which" = alone ] && echo "${alone[$s]}" || echo "${beside[$s]}")
        printf '%-6s %-8s %9s %9.3f %9.3f %7s%%\n' "$s" "$which" "$(field rps "$r")" \
            "$(awk -v u="$(field p50_us "$r")" 'BEGIN{print u / 1000}')" \
            "$(awk -v u="$(field p99_us "$r")" 'BEGIN{print u / 1000}')" "$(field cpu_server "$r")"
    done
    awk -v s="$s" -v a="$(field p99_us "${alone[$s]}")" -v b="$(field p99_us "${beside[$s]}")" \
        'BEGIN { printf "ratio %s p99 with/without the held connections: %.2fx\n", s, b / a }'
done
grep '^hold:' "$work/holder.out" || cat "$work/holder.out"
grep -i 'open-files' "$work/server.err" || echo "server: no open-files line (the soft limit already covered --max-connections)"
