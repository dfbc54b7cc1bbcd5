#!/usr/bin/env bash
# CheckEntitlement on a near-empty database and on the 1,000,000-user / 3,000,000-transaction
# one, with the C++ gRPC peer loaded the same way in the same run for reference (issue 3):
# does a big database cost startup time, memory or throughput?
#
#   Benchmarks/check-entitlement.sh [SETTINGS...]     SETTINGS like 4x32 64x8 (CONNSxSTREAMS)
#
# Builds entitlementd and entitlementd-bench release into .build-release. The big database comes
# from `entitlementd-bench seed` (the shared bench data set: u<i>, even ACTIVE pro.monthly, odd
# EXPIRED, here as renewal chains of PER_USER transactions) and is cached in
# .build-release/bench-data/ (about a minute to build); the near-empty one holds only u0 and u1,
# the two users the shared check.py gate asks about, so both answer with the same frame.
# Each server runs pinned to cpu 1 with --threads 1 (the peer as shared/bench starts it); the
# figures: startup (launch until the listen line), idle RSS, then per setting the shared
# load.sh's req/s, p50, p99, server CPU (h2load pinned to cpu 0, check.py gate first) and RSS
# after the load. The h2load body always asks for u0, a facts-cache hit after the first call,
# so the script also prints `entitlementd-bench reads`: facts() latency for COLD_DISTINCT
# random users, cold (the file evicted from the OS page cache first), warm, and cache-missed
# with the file in the OS cache.
# A benchmark, not a test: Scripts/test never runs it.
#
# Env: USERS=1000000 PER_USER=3 COLD_DISTINCT=100000 DURATION=10s WARMUP=2 NO_BUILD=1 NO_PEER=1
#      BENCH_COMMIT (the commit to print, when run from an exported copy without .git)
#      SHARED_BENCH=../shared/bench  QUIET_WAIT / MAX_OTHER / RETRY_DISTURBED as in lib.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=Scripts/lib/release.sh
. "$ROOT/Scripts/lib/release.sh"   # build_bench_release
cd "$ROOT"
SHARED_BENCH="${SHARED_BENCH:-$ROOT/../shared/bench}"
[ -x "$SHARED_BENCH/load.sh" ] || { echo "need $SHARED_BENCH/load.sh (set SHARED_BENCH)" >&2; exit 1; }
# BENCH_BUILD stays the harness's default: the C++ peer and check.py's venv live there.
# shellcheck source=/dev/null
. "$SHARED_BENCH/lib.sh"   # log, die, pin_server, start_peer, stop_pid, run_load, prewarm, wait_quiet

SETTINGS=("$@"); [ ${#SETTINGS[@]} -gt 0 ] || SETTINGS=(4x32 64x8)
USERS=${USERS:-1000000}; PER_USER=${PER_USER:-3}; COLD_DISTINCT=${COLD_DISTINCT:-100000}
DURATION=${DURATION:-10s}
export WARMUP=${WARMUP:-2}
# The gate's ids: our data set is the peer's, so check-active.bin (u0) works for both.
LOAD_ENV="ACTIVE_USER=u0 INACTIVE_USER=u1 PRODUCT=pro.monthly"

if [ -z "${NO_PEER:-}" ] && [ ! -x "$BUILD/bin/entitlement-peer-cpp" ]; then
    log "building the C++ peer (shared/bench/build-peers.sh, NO_GO=1)"
    NO_GO=1 "$SHARED_BENCH/build-peers.sh" >&2
fi
if [ -z "${NO_BUILD:-}" ]; then
    log "release build (.build-release): entitlementd, entitlementd-bench"
    build_bench_release entitlementd
    build_bench_release entitlementd-bench
fi
BIN="$ROOT/.build-release/release/entitlementd"
BENCH_BIN="$ROOT/.build-release/release/entitlementd-bench"
[ -x "$BIN" ] && [ -x "$BENCH_BIN" ] || die "no release binaries in .build-release/release"

work=$(mktemp -d "${TMPDIR:-/tmp}/check-entitlement.XXXXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do stop_pid "$p"; done; rm -rf "$work"; }
trap cleanup EXIT

# --- data: cached big database, fresh near-empty one ------------------------------------
DATA="$ROOT/.build-release/bench-data"
# -r3: Apple-shaped web order ids, user_facts records of format 3 (an older cached file is another data set).
BIG="$DATA/users-${USERS}x${PER_USER}-r3.sqlite"
mkdir -p "$DATA"
if [ -s "$BIG" ]; then
    seed_note="reused $BIG"
else
    log "seeding $BIG ($USERS users x $PER_USER transactions; about a minute for 1M)"
    rm -f "$BIG.partial" "$BIG.partial-wal" "$BIG.partial-shm"
    "$BENCH_BIN" seed --database "$BIG.partial" --users "$USERS" --transactions-per-user "$PER_USER" \
        | tee "$work/seed.txt"
    # Renamed only once complete, so an interrupted seed is never reused.
    [ ! -e "$BIG.partial-wal" ] || die "seed left a WAL behind"
    mv "$BIG.partial" "$BIG"
    seed_note="seeded now: $(sed -n 2p "$work/seed.txt" | sed 's/^seed: //')"
fi
EMPTY="$work/near-empty.sqlite"
"$BENCH_BIN" seed --database "$EMPTY" --users 2 --transactions-per-user "$PER_USER" >/dev/null

# evict FILE: drop this one file's pages from the OS page cache (not the machine's), so a
# start or a read is measured from disk, not from what seeding left in memory.
evict() { sync "$1"; dd if="$1" iflag=nocache count=0 status=none; }
rss_of() { awk '/^VmRSS/ {printf "%.1f MiB", $2 / 1024}' "/proc/$1/status"; }

# --- cold-cache facts reads (store level, pinned like the server) -------------------------
wait_quiet
evict "$BIG"
# shellcheck disable=SC2046
$(pin_server) "$BENCH_BIN" reads --database "$BIG" --users "$USERS" --distinct "$COLD_DISTINCT" \
    >"$work/reads.txt"

# --- servers --------------------------------------------------------------------------
declare -A addr pid startup_ms startup_how rss_idle
start_entitlementd() {   # NAME DATABASE
    local name=$1 db=$2 t0 t1 out="$work/$1.stdout"
    t0=$(date +%s%N)
    # shellcheck disable=SC2046
    $(pin_server) "$BIN" --listen 127.0.0.1:0 --threads 1 --database "$db" --log-level warning \
        >"$out" 2>"$work/$name.stderr" &
    pid[$name]=$!; pids+=("$!")
    for _ in $(seq 3000); do grep -q 'listening on' "$out" 2>/dev/null && break; sleep 0.005; done
    t1=$(date +%s%N)
    addr[$name]=$(sed -n 's/^entitlementd listening on //p' "$out")
    [ -n "${addr[$name]}" ] || { cat "$work/$name.stderr" >&2; die "entitlementd ($name) did not start"; }
    startup_ms[$name]=$(( (t1 - t0) / 1000000 ))
    startup_how[$name]="launch to listen line"
}
start_entitlementd empty "$EMPTY"
evict "$BIG"   # so the big start reads its pages from disk, not from the seed's leftovers
start_entitlementd big "$BIG"
targets=(empty big)
if [ -z "${NO_PEER:-}" ]; then
    port=$(free_port)
    t0=$(date +%s%N)
    pid[cpp]=$(start_peer cpp "$port"); pids+=("${pid[cpp]}")
    startup_ms[cpp]=$(( ($(date +%s%N) - t0) / 1000000 ))
    startup_how[cpp]="until the port accepts, polled every 0.1 s"
    addr[cpp]=127.0.0.1:$port
    targets+=(cpp)
fi
sleep 1
for t in "${targets[@]}"; do rss_idle[$t]=$(rss_of "${pid[$t]}"); done

# --- load -----------------------------------------------------------------------------
for t in "${targets[@]}"; do prewarm "$LOAD_ENV" "${addr[$t]}" 4 32; done
declare -A result rss_after frame
for s in "${SETTINGS[@]}"; do
    c=${s%x*}; m=${s#*x}
    [[ "$c" =~ ^[0-9]+$ && "$m" =~ ^[0-9]+$ ]] || die "setting '$s' is not CONNSxSTREAMS"
    for t in "${targets[@]}"; do
        run_load "$LOAD_ENV" "${addr[$t]}" "$c" "$m" "$DURATION" "$work/out" "$work/err" \
            || { cat "$work/err" "$work/out" >&2; die "load $t $s failed"; }
        grep -q '^check: .*OK' "$work/err" || { cat "$work/err" >&2; die "no check.py pass for $t"; }
        result[$t,$s]=$(grep '^RESULT' "$work/out") || die "no RESULT for $t $s"
        frame[$t]=$(grep -o 'response frame [0-9]* bytes' "$work/err" | head -1)
        kill -0 "${pid[$t]}" 2>/dev/null || die "$t died under load"
        rss_after[$t,$s]=$(rss_of "${pid[$t]}")
    done
done

# --- report ---------------------------------------------------------------------------
field() { grep -o " $2=[^ ]*" <<<"${result[$1]}" | cut -d= -f2; }
label() { case $1 in
    empty) echo "entitlementd, 2 users" ;; big) echo "entitlementd, $USERS users" ;; cpp) echo "C++ gRPC peer" ;; esac; }
echo "check-entitlement: CheckEntitlement (u0 / pro.monthly, check-active.bin), servers --threads 1 on cpu $SERVER_CPU," \
     "h2load -t 1 on cpu $LOAD_CPU, $DURATION after ${WARMUP}s warm-up, one run each; ${BENCH_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo '?')}"
echo "data: $BIG ($(du -m "$BIG" | cut -f1) MiB; $seed_note)"
for t in "${targets[@]}"; do
    printf '%-28s startup %s ms (%s), idle RSS %s, answer %s\n' "$(label "$t"):" "${startup_ms[$t]}" \
        "${startup_how[$t]}" "${rss_idle[$t]}" "${frame[$t]:-?}"
done
printf '%-28s %-6s %9s %9s %9s %7s %6s %12s\n' target CxS req/s "p50 ms" "p99 ms" server other "RSS after"
for s in "${SETTINGS[@]}"; do
    for t in "${targets[@]}"; do
        printf '%-28s %-6s %9s %9s %9s %6s%% %5s%% %12s\n' "$(label "$t")" "$s" "$(field "$t,$s" rps)" \
            "$(awk -v u="$(field "$t,$s" p50_us)" 'BEGIN{printf "%.3f", u/1000}')" \
            "$(awk -v u="$(field "$t,$s" p99_us)" 'BEGIN{printf "%.3f", u/1000}')" \
            "$(field "$t,$s" cpu_server)" "$(field "$t,$s" cpu_other)" "${rss_after[$t,$s]}"
    done
done
for s in "${SETTINGS[@]}"; do
    awk -v s="$s" -v rb="$(field "big,$s" rps)" -v re="$(field "empty,$s" rps)" \
        -v pb="$(field "big,$s" p99_us)" -v pe="$(field "empty,$s" p99_us)" \
        -v rc="$( [ -n "${pid[cpp]:-}" ] && field "cpp,$s" rps || echo 0)" 'BEGIN {
        printf "ratio big/empty %s: req/s %.2fx, p99 %.2fx", s, rb / re, pb / pe
        if (rc > 0) printf "; big/C++ req/s %.2fx", rb / rc
        printf "\n" }'
done
awk -v b="${startup_ms[big]}" -v e="${startup_ms[empty]}" 'BEGIN { printf "ratio big/empty startup: %.2fx\n", b / e }'
echo "cold cache (entitlementd-bench reads, one thread on cpu $SERVER_CPU, file evicted from the OS page cache first):"
sed 's/^/  /' "$work/reads.txt"
