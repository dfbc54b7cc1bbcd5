#!/usr/bin/env bash
# 10,000 concurrent h2c connections on one server (issue 14 goal 5): does holding them cost
# memory beyond reason, refuse connections under --max-connections, or slow an active client?
#
#   Benchmarks/many-connections.sh [HOLD=10000]
#
# entitlementd --threads 1 on cpu 1 (the shared bench pinning) with --max-connections HOLD+100 on
# a 1,000-user bench database. Each of ROUNDS rounds runs the active client (entitlementd-load
# 1x1, 4x8, 4x8 at 20,000 requests a second, and that again at SCHED_FIFO with the server:
# SETTINGS, uniform over the users, on cpu 0) alone and beside `entitlementd-load --hold HOLD`
# (also cpu 0), which opens HOLD connections that each call CheckEntitlement every HOLD_INTERVAL
# seconds and is stopped (its connections closed) before the next "alone"; odd rounds measure
# alone first, even rounds beside first. Prints RSS idle / with the connections held (and per
# held connection) / after the active runs / after the last close, the server's CPU per held
# call in each round's first interval (each connection's first call) and the next (the steady state),
# every run's req/s, p50 and p99, the medians' p99 ratio per setting (with each round's), and
# what each holder saw (opened, refused, lost, answered), plus the server's open-files log line.
# A benchmark, not a test: Scripts/test never runs it.
#
# LOOP_VIEW=1 adds the server's side of each active run (needs perf and tracepoint access, e.g.
# root): how long the event loop was away from epoll_wait per iteration (p50, p99, max, and the
# iterations over 2 ms), on the cpu and in wall time, from the epoll_wait and sched_switch
# tracepoints on the server's cpu. A stall there delays every request that arrives during it; a
# client-side p99 without one comes from elsewhere (the client's core, other processes).
#
# Env: ROUNDS=3 SETTINGS="1x1 4x8 4x8@20000 4x8@20000/rt" HOLD_INTERVAL=5 DURATION=10 SERVER_NOFILE=1024 NO_BUILD=1 BIN_DIR (default .build-release/release)
#      LOAD_BIN_DIR (default BIN_DIR) LOOP_VIEW=0 HOLD_CPU (default the active client's cpu) SHARED_BENCH=../shared/bench QUIET_WAIT as in lib.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=Scripts/lib/release.sh
. "$ROOT/Scripts/lib/release.sh"   # build_bench_release
cd "$ROOT"
SHARED_BENCH="${SHARED_BENCH:-$ROOT/../shared/bench}"
[ -f "$SHARED_BENCH/lib.sh" ] || { echo "need $SHARED_BENCH/lib.sh (set SHARED_BENCH)" >&2; exit 1; }
# shellcheck source=/dev/null
. "$SHARED_BENCH/lib.sh"   # log, die, pin_server, pin_load, stop_pid, wait_quiet

HOLD=${1:-10000}; HOLD_INTERVAL=${HOLD_INTERVAL:-5}; DURATION=${DURATION:-10}; HOLD_CPU=${HOLD_CPU:-$LOAD_CPU}
# The active client's settings: CxS keeps S requests in flight on each of C connections (closed
# loop: at 4x8 the server's core is saturated, so its p99 follows the throughput left to it);
# CxS@RATE sends RATE requests a second on a schedule, timed from when each was due (open loop:
# what a caller with headroom sees; entitlementd-load --rate).
# A setting ending in /rt runs the active client, and the server while it runs, at SCHED_FIFO
# (chrt; root or CAP_SYS_NICE): nothing else on the box can then preempt them, which isolates what
# the server's own work for the held connections costs the client from two things a deployment
# does not have. One is the holder on the client's core (real held clients are other machines).
# The other is whatever this box runs at a higher priority: on this sandbox VM its init agent
# (nice -10) walks every process's open descriptors once a second, ~2.5 ms with a few hundred
# and 10-28 ms with 20,000 (a sleeping process holding 20,000 /dev/null descriptors, no socket
# at all, raises the 4x8@20000 p99 several-fold as the held connections do: round 22 note).
SETTINGS=${SETTINGS:-1x1 4x8 4x8@20000 4x8@20000/rt}
case " $SETTINGS" in *"/rt"*) chrt -f 10 true 2>/dev/null ||
    die "a /rt setting needs SCHED_FIFO (root or CAP_SYS_NICE): drop it from SETTINGS" ;; esac
if [ -z "${NO_BUILD:-}" ]; then
    for product in entitlementd entitlementd-bench entitlementd-load; do
        log "release build of $product (.build-release)"
        build_bench_release "$product"
    done
fi
BIN_DIR="${BIN_DIR:-$ROOT/.build-release/release}"
LOAD_BIN_DIR="${LOAD_BIN_DIR:-$BIN_DIR}"   # entitlementd-load from another build: A/B the server alone
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

# active SETTING WHICH: the extra active client; prints its RESULT line (and, with LOOP_VIEW=1,
# records the server cpu's context switches and epoll_wait calls into $work/loop-SETTING-WHICH.data).
active() {
    local setting=${1%/rt} rt="" perf_pid=""
    [ "$setting" = "$1" ] || rt="chrt -f 10"
    local c=${setting%x*} m=${setting#*x} rate=0
    case $m in *@*) rate=${m#*@}; m=${m%@*} ;; esac
    wait_quiet
    if [ "${LOOP_VIEW:-0}" = 1 ]; then
        # shellcheck disable=SC2046
        perf record -q -e sched:sched_switch,syscalls:sys_enter_epoll_wait,syscalls:sys_exit_epoll_wait \
            $( [ "$PIN" = 1 ] && echo "-C $SERVER_CPU" || echo "-a") -o "$work/loop-${1//\//-}-$2-${3:-1}.data" \
            -- sleep $((DURATION + 2)) >/dev/null 2>&1 &
        perf_pid=$!
    fi
    [ -z "$rt" ] || chrt -a -f -p 10 "$server_pid" >/dev/null
    # shellcheck disable=SC2046
    $rt $(pin_load) "$LOAD_BIN_DIR/entitlementd-load" --target "$addr" --connections "$c" --streams "$m" --rate "$rate" \
        --users 1000 --distribution uniform --duration "$DURATION" --warmup 2 --server-pid "$server_pid" | grep '^RESULT'
    [ -z "$rt" ] || chrt -a -o -p 0 "$server_pid" >/dev/null
    [ -z "$perf_pid" ] || wait "$perf_pid" || true
}
# loop_view FILE: the event loop's iterations (sys_exit_epoll_wait to its next sys_enter_epoll_wait,
# on the server thread that waits most often: the loop, not Dispatch's): time on the cpu, which
# is the server's own stall whatever else runs there, and wall time, which adds the time other
# processes had the cpu (a shared box's share of the client's p99).
loop_view() {
    [ -s "$1" ] || { echo "no perf data (LOOP_VIEW needs perf with tracepoint access)"; return; }
    local tids
    tids=" $(ls "/proc/$server_pid/task" | tr '\n' ' ')"
    perf script -i "$1" -F tid,time,event,trace 2>/dev/null >"$1.txt"
    local loop_tid
    loop_tid=$(awk -v tids="$tids" '/sys_exit_epoll_wait/ && index(tids, " " $1 " ") { n[$1]++ }
        END { for (t in n) if (n[t] > best) { best = n[t]; tid = t }; print tid }' "$1.txt")
    awk -v L="$loop_tid" '
        { t = $2; sub(":", "", t) }
        /sched_switch/ {
            if (busy && index($0, "prev_pid=" L " ")) off_at = t
            if (busy && off_at && index($0, "next_pid=" L " ")) { off += t - off_at; off_at = 0 }
            next }
        $1 != L { next }
        /sys_exit_epoll_wait/ { busy = 1; start = t; off = 0; off_at = 0 }
        /sys_enter_epoll_wait/ && busy { printf "%.1f %.1f\n", (t - start - off) * 1e6, (t - start) * 1e6; busy = 0 }' \
        "$1.txt" >"$1.busy"
    [ -s "$1.busy" ] || { echo "no loop iterations recorded"; return; }
    local n; n=$(wc -l <"$1.busy")
    for col in 1 2; do
        cut -d' ' -f"$col" "$1.busy" | sort -n | awk -v n="$n" -v what="$( [ $col = 1 ] && echo "on cpu" || echo "wall")" '
            { v[NR] = $1; if ($1 > 2000) over++ }
            END { printf "%s p50 %.0f us, p99 %.0f us, max %.1f ms, %d over 2 ms; ", what,
                      v[int(n * 0.5) + 1], v[int(n * 0.99) + 1], v[n] / 1000, over + 0 }'
    done
    echo "($n iterations)"
}
field() { grep -o " $1=[^ ]*" <<<" $2" | cut -d= -f2; }

server_fds() { find "/proc/$server_pid/fd" -maxdepth 1 2>/dev/null | wc -l; }
cpu_ticks() { awk '{ sub(/.*\) /, ""); split($0, f, " "); print f[12] + f[13] }' "/proc/$1/stat"; }
minor_faults() { awk '{ sub(/.*\) /, ""); split($0, f, " "); print f[8] }' "/proc/$1/stat"; }
# start_holder: `entitlementd-load --hold HOLD` (on HOLD_CPU), returning once the server has them.
# It runs until stop_holder's SIGTERM, however long the quiet waits make the measurements.
start_holder() {
    # shellcheck disable=SC2046
    $( [ "$PIN" = 1 ] && echo "taskset -c $HOLD_CPU") \
        "$LOAD_BIN_DIR/entitlementd-load" --target "$addr" --users 1000 --distribution uniform --hold "$HOLD" \
        --hold-interval "$HOLD_INTERVAL" --warmup 0 --duration 3600 >"$work/holder.out" 2>&1 &
    holder_pid=$!
    for _ in $(seq 600); do [ "$(server_fds)" -ge "$HOLD" ] && break; sleep 0.1; done
}
# stop_holder: ends the holder (it prints what it saw) and waits for the server to close the
# connections, so the next "alone" run has none.
stop_holder() {
    kill -0 "$holder_pid" 2>/dev/null || die "the holder ended before its measurements did: $(cat "$work/holder.out")"
    kill -TERM "$holder_pid"; wait "$holder_pid" || true; holder_pid=""
    grep '^hold:' "$work/holder.out" >>"$work/holds" || cat "$work/holder.out" >>"$work/holds"
    for _ in $(seq 300); do [ "$(server_fds)" -lt 100 ] && break; sleep 0.1; done
}
# Two intervals, each one call per held connection; the server's CPU meanwhile is what holding
# them costs (their calls plus whatever the loop does per connection). The first is each
# connection's first call, which also grows its buffers and nghttp2's tables (page faults as the
# RSS settles); the second is the steady state of one mostly idle client after another. Also
# leaves in $work/hold-busy the share of a core the server and the holder used together, which
# the quiet check before each "beside" run allows for (they are the load being measured beside).
hold_interval() {   # hold_interval LABEL: one interval's server CPU per held call and page faults
    local ticks faults started holder_ticks
    ticks=$(cpu_ticks "$server_pid"); holder_ticks=$(cpu_ticks "$holder_pid"); faults=$(minor_faults "$server_pid")
    started=$(date +%s.%N)
    sleep "$HOLD_INTERVAL"
    awk -v a="$ticks" -v b="$(cpu_ticks "$server_pid")" -v t0="$started" -v t1="$(date +%s.%N)" \
        -v ha="$holder_ticks" -v hb="$(cpu_ticks "$holder_pid")" -v busy="$work/hold-busy" \
        -v fa="$faults" -v fb="$(minor_faults "$server_pid")" -v label="$1" \
        -v hz="$(getconf CLK_TCK)" -v n="$HOLD" -v i="$HOLD_INTERVAL" 'BEGIN {
        printf "%d\n", (b - a + hb - ha) / hz / (t1 - t0) * 100 + 0.5 > busy
        printf "server CPU while only holding, %s: %.1f %% of a core, %.0f us per held call, %d page faults\n",
            label, (b - a) / hz / (t1 - t0) * 100, (b - a) / hz / (t1 - t0) / (n / i) * 1e6, fb - fa }'
}

# Rounds of both ways, alternating which comes first (alone-beside, beside-alone, ...) so a drift
# in the machine's speed does not side with either: one 10-second p99 on this shared VM moves by
# a quarter from run to run, as much as the 20 % being looked for, so the comparison is between
# the medians of the rounds.
ROUNDS=${ROUNDS:-3}
rss_idle=$(rss_kib "$server_pid")
rss_held=0; rss_after=0; rss_closed=0; hold_cpu=""
declare -A result
run_alone() { local s; for s in $SETTINGS; do result[$s,alone,$1]=$(active "$s" alone "$1"); done; }
run_beside() {
    local s r=$1
    start_holder
    hold_cpu+=$(hold_interval "round $r, first interval (each connection's first call)")$'\n'
    hold_cpu+=$(hold_interval "round $r, next interval")$'\n'
    local held; held=$(rss_kib "$server_pid"); [ "$held" -gt "$rss_held" ] && rss_held=$held
    for s in $SETTINGS; do
        result[$s,beside,$r]=$(QUIET_MAX_BUSY=$((${QUIET_MAX_BUSY:-15} + $(cat "$work/hold-busy"))) active "$s" beside "$r")
    done
    local after; after=$(rss_kib "$server_pid"); [ "$after" -gt "$rss_after" ] && rss_after=$after
    stop_holder
    rss_closed=$(rss_kib "$server_pid")
}
for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then run_alone "$r"; run_beside "$r"; else run_beside "$r"; run_alone "$r"; fi
done
kill -0 "$server_pid" 2>/dev/null || die "entitlementd died"

echo "many-connections: entitlementd --threads 1 on cpu $SERVER_CPU, $HOLD held h2c connections (one call each every" \
     "${HOLD_INTERVAL}s, holder on cpu $HOLD_CPU) and the active client on cpu $LOAD_CPU; $ROUNDS rounds of ${DURATION}s runs;" \
     "$(git rev-parse --short HEAD 2>/dev/null || echo '?')"
awk -v i="$rss_idle" -v h="$rss_held" -v a="$rss_after" -v c="$rss_closed" -v n="$HOLD" 'BEGIN {
    printf "RSS: idle %.1f MiB, %d connections held %.1f MiB (%.1f KiB per connection; the most in any round),",
        i / 1024, n, h / 1024, (h - i) / n
    printf " after the active runs %.1f MiB (the most), after the last round closed them %.1f MiB\n", a / 1024, c / 1024 }'
printf '%s' "$hold_cpu"
printf '%-10s %-6s %-8s %9s %9s %9s %8s\n' CxS round with req/s "p50 ms" "p99 ms" server
# median_of FIELD SETTING WHICH: the median over the rounds of one RESULT field.
median_of() {
    for r in $(seq "$ROUNDS"); do field "$1" "${result[$2,$3,$r]}"; done |
        sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
for s in $SETTINGS; do
    for r in $(seq "$ROUNDS"); do
        for which in alone beside; do
            line=${result[$s,$which,$r]}
            printf '%-10s %-6s %-8s %9s %9.3f %9.3f %7s%%\n' "$s" "$r" "$which" "$(field rps "$line")" \
                "$(awk -v u="$(field p50_us "$line")" 'BEGIN{print u / 1000}')" \
                "$(awk -v u="$(field p99_us "$line")" 'BEGIN{print u / 1000}')" "$(field cpu_server "$line")"
            if [ "${LOOP_VIEW:-0}" = 1 ]; then echo "  server: $(loop_view "$work/loop-${s//\//-}-$which-$r.data")"; fi
        done
    done
    per_round=""
    for r in $(seq "$ROUNDS"); do
        per_round+=$(awk -v a="$(field p99_us "${result[$s,alone,$r]}")" -v b="$(field p99_us "${result[$s,beside,$r]}")" \
            'BEGIN { printf " %.2fx", b / a }')
    done
    awk -v s="$s" -v a="$(median_of p99_us "$s" alone)" -v b="$(median_of p99_us "$s" beside)" \
        -v ra="$(median_of rps "$s" alone)" -v rb="$(median_of rps "$s" beside)" -v pr="$per_round" 'BEGIN {
        printf "ratio %s p99 with/without the held connections, medians of the rounds: %.3f -> %.3f ms = %.2fx", s, a / 1000, b / 1000, b / a
        printf " (rounds:%s); req/s %d -> %d\n", pr, ra, rb }'
done
cat "$work/holds"
grep -i 'open-files' "$work/server.err" || echo "server: no open-files line (the soft limit already covered --max-connections)"
