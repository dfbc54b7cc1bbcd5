#!/usr/bin/env bash
# CheckEntitlement under realistic reads (issue 14 goal 1): 1,000,000 users / 3,000,000
# transactions, the default 100,000-entry facts cache, the server on one core; each request asks
# about one user (single, the old h2load load), a Zipf-like choice (s=1: the 100k hottest get
# ~84% of requests) or a uniform one. The driver is entitlementd-load (Benchmarks/entitlementd-load),
# cross-checked first against h2load (shared/bench/load.sh) on the single-user load.
#
#   Benchmarks/realistic-reads.sh [SETTINGS...]     SETTINGS like 4x32 64x8 (default 4x32)
#
# Prints, per setting, the median of ROUNDS runs (rotated: single, zipf, uniform, single, ...)
# of req/s, p50, p99, server CPU and requests per server CPU-second, then the ratios zipf/single
# and uniform/single (req/s, and per server CPU-second: the figure least disturbed by other
# load on the machine), the h2load/entitlementd-load ratio on the single load, and
# `entitlementd-bench reads` (facts() misses with the file in the OS page cache, one thread).
# A benchmark, not a test: Scripts/test never runs it.
#
# Env: USERS=1000000 PER_USER=3 ROUNDS=3 DURATION=10 WARMUP=8 (seconds; the warm-up fills the
#      facts cache) ZIPF_EXPONENT=1.0 NO_BUILD=1 NO_H2LOAD=1 SHARED_BENCH=../shared/bench
#      QUIET_WAIT / MAX_OTHER as in shared/bench/lib.sh
#      MMAP_MIB=N: the server's --database-mmap-mib and the reads pass's --mmap-bytes (default:
#      the binaries' default, 2048; 0 reads through read() only)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=Scripts/lib/release.sh
. "$ROOT/Scripts/lib/release.sh"   # build_bench_release
cd "$ROOT"
SHARED_BENCH="${SHARED_BENCH:-$ROOT/../shared/bench}"
[ -x "$SHARED_BENCH/load.sh" ] || { echo "need $SHARED_BENCH/load.sh (set SHARED_BENCH)" >&2; exit 1; }
# shellcheck source=/dev/null
. "$SHARED_BENCH/lib.sh"   # log, die, pin_server, pin_load, stop_pid, run_load, wait_quiet

SETTINGS=("$@"); [ ${#SETTINGS[@]} -gt 0 ] || SETTINGS=(4x32)
USERS=${USERS:-1000000}; PER_USER=${PER_USER:-3}; ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}; WARMUP_S=${WARMUP:-8}; ZIPF_EXPONENT=${ZIPF_EXPONENT:-1.0}
SERVER_MMAP=(); READS_MMAP=()
if [ -n "${MMAP_MIB:-}" ]; then
    SERVER_MMAP=(--database-mmap-mib "$MMAP_MIB"); READS_MMAP=(--mmap-bytes $((MMAP_MIB << 20)))
fi
if [ -z "${NO_BUILD:-}" ]; then
    for product in entitlementd entitlementd-bench entitlementd-load; do
        log "release build of $product (.build-release)"
        build_bench_release "$product"
    done
fi
BIN_DIR="$ROOT/.build-release/release"
for product in entitlementd entitlementd-bench entitlementd-load; do
    [ -x "$BIN_DIR/$product" ] || die "no release binary $BIN_DIR/$product"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/realistic-reads.XXXXXX")
server_pid=""
cleanup() { stop_pid "$server_pid"; rm -rf "$work"; }
trap cleanup EXIT

# --- data: the big database, cached (-r3: Apple-shaped web order ids, user_facts records v3) ---
DATA="$ROOT/.build-release/bench-data"
BIG="$DATA/users-${USERS}x${PER_USER}-r3.sqlite"
mkdir -p "$DATA"
if [ ! -s "$BIG" ]; then
    log "seeding $BIG ($USERS users x $PER_USER transactions; minutes for 1M)"
    rm -f "$BIG.partial" "$BIG.partial-wal" "$BIG.partial-shm"
    "$BIN_DIR/entitlementd-bench" seed --database "$BIG.partial" --users "$USERS" \
        --transactions-per-user "$PER_USER" >&2
    mv "$BIG.partial" "$BIG"
fi
cat "$BIG" >/dev/null   # into the OS page cache: the runs measure misses of our cache, not the disk

wait_quiet
# shellcheck disable=SC2046
$(pin_server) "$BIN_DIR/entitlementd-bench" reads --database "$BIG" --users "$USERS" --distinct 100000 \
    ${READS_MMAP[@]+"${READS_MMAP[@]}"} >"$work/reads.txt"

# shellcheck disable=SC2046
$(pin_server) "$BIN_DIR/entitlementd" --listen 127.0.0.1:0 --threads 1 --database "$BIG" --log-level warning \
    ${SERVER_MMAP[@]+"${SERVER_MMAP[@]}"} >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
for _ in $(seq 600); do grep -q 'listening on' "$work/server.out" 2>/dev/null && break; sleep 0.05; done
addr=$(sed -n 's/^entitlementd listening on //p' "$work/server.out")
[ -n "$addr" ] || { cat "$work/server.err" >&2; die "entitlementd did not start"; }

# drive SETTING DISTRIBUTION: one entitlementd-load run; prints its RESULT line.
drive() {
    local c=${1%x*} m=${1#*x} distribution=$2
    wait_quiet
    # shellcheck disable=SC2046
    $(pin_load) "$BIN_DIR/entitlementd-load" --target "$addr" --connections "$c" --streams "$m" \
        --users "$USERS" --distribution "$distribution" --zipf-exponent "$ZIPF_EXPONENT" \
        --duration "$DURATION" --warmup "$WARMUP_S" --server-pid "$server_pid" | grep '^RESULT'
}
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
field() { grep -o " $1=[^ ]*" | cut -d= -f2; }

declare -A rows
for s in "${SETTINGS[@]}"; do
    [[ "$s" =~ ^[0-9]+x[0-9]+$ ]] || die "setting '$s' is not CONNSxSTREAMS"
    for ((round = 1; round <= ROUNDS; round++)); do
        for distribution in single zipf uniform; do
            log "$s $distribution round $round/$ROUNDS"
            rows[$s,$distribution]+="$(drive "$s" "$distribution")"$'\n'
        done
        if [ -z "${NO_H2LOAD:-}" ]; then
            # The same single-user load through h2load, for the cross-check.
            run_load "ACTIVE_USER=u0 INACTIVE_USER=u1 PRODUCT=pro.monthly WARMUP=$WARMUP_S" "$addr" \
                "${s%x*}" "${s#*x}" "${DURATION}s" "$work/h2.out" "$work/h2.err" \
                || { cat "$work/h2.err" >&2; die "h2load run failed"; }
            rows[$s,h2load]+="$(grep '^RESULT' "$work/h2.out")"$'\n'
        fi
    done
done
kill -0 "$server_pid" 2>/dev/null || die "entitlementd died under load"

echo "realistic-reads: CheckEntitlement over $USERS users x $PER_USER transactions ($(du -mL "$BIG" | cut -f1) MiB)," \
     "facts cache 100000 (default); entitlementd --threads 1 on cpu $SERVER_CPU, driver on cpu $LOAD_CPU;" \
     "${WARMUP_S}s warm-up + ${DURATION}s, median of $ROUNDS; $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
printf '%-8s %-9s %9s %9s %9s %8s %14s\n' CxS load req/s "p50 ms" "p99 ms" server "per server s"
for s in "${SETTINGS[@]}"; do
    for distribution in single zipf uniform h2load; do
        [ -n "${rows[$s,$distribution]:-}" ] || continue
        r=${rows[$s,$distribution]}
        per=$( [ "$distribution" = h2load ] && echo - || field per_server_cpu_s <<<"$r" | median)
        printf '%-8s %-9s %9s %9.3f %9.3f %7s%% %14s\n' "$s" "$distribution" "$(field rps <<<"$r" | median)" \
            "$(field p50_us <<<"$r" | median | awk '{print $1 / 1000}')" \
            "$(field p99_us <<<"$r" | median | awk '{print $1 / 1000}')" "$(field cpu_server <<<"$r" | median)" "$per"
    done
    for d in zipf uniform; do
        awk -v d="$d" -v s="$s" -v r="$(field rps <<<"${rows[$s,$d]}" | median)" \
            -v r1="$(field rps <<<"${rows[$s,single]}" | median)" \
            -v p="$(field per_server_cpu_s <<<"${rows[$s,$d]}" | median)" \
            -v p1="$(field per_server_cpu_s <<<"${rows[$s,single]}" | median)" \
            'BEGIN { printf "ratio %s %s/single: req/s %.0f%%, per server CPU-second %.0f%%\n", s, d, 100 * r / r1, 100 * p / p1 }'
    done
    if [ -n "${rows[$s,h2load]:-}" ]; then
        awk -v s="$s" -v h="$(field rps <<<"${rows[$s,h2load]}" | median)" \
            -v l="$(field rps <<<"${rows[$s,single]}" | median)" \
            'BEGIN { printf "cross-check %s single user: h2load %.0f req/s, entitlementd-load %.0f req/s (%.0f%%)\n", s, h, l, 100 * l / h }'
    fi
done
echo "facts() misses, store level (entitlementd-bench reads, one thread on cpu $SERVER_CPU):"
sed 's/^/  /' "$work/reads.txt"
