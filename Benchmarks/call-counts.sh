#!/usr/bin/env bash
# CheckEntitlement's per-call work on the hot path (issue 14, goal 6): exact counts of malloc,
# swift_retain and swift_release per call (uprobes, counted only in the server's process, so
# the figures do not depend on how loaded the machine is) and server CPU per call, for each
# build given, in turn, ROUNDS times.
#
#   Benchmarks/call-counts.sh [BIN...]      default: .build-release/release/entitlementd
#   e.g. A/B:  Benchmarks/call-counts.sh /work/ref/.build-release/release/entitlementd \
#                                        .build-release/release/entitlementd
#
# Each server runs pinned to cpu 1 with --threads 1 on a fresh copy of a 2-user seed (u0 active
# pro.monthly, as the shared bench's check-active.bin asks), h2load pinned to cpu 0. Per build and
# setting: WARM calls first, then CALLS calls measured for CPU (utime+stime of the server ÷
# calls), then COUNT_CALLS calls under `perf stat` with the three uprobes (the probes slow the
# server, so CPU is measured in a run without them). Needs root (perf probe), perf, h2load and
# the shared bench's request bodies (../shared/bench, `make-requests.py` via its lib.sh).
# A benchmark, not a test: Scripts/test never runs it.
#
# Env: SETTINGS="4x32 64x8" CALLS=300000 COUNT_CALLS=100000 WARM=20000 ROUNDS=3 NO_BUILD=1
#      SHARED_BENCH=../shared/bench
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=Benchmarks/bench-common.sh
. "$ROOT/Benchmarks/bench-common.sh"   # with ../shared/bench/lib.sh

SETTINGS=${SETTINGS:-"4x32 64x8"}; CALLS=${CALLS:-300000}; COUNT_CALLS=${COUNT_CALLS:-100000}
WARM=${WARM:-20000}; ROUNDS=${ROUNDS:-3}
BINS=("$@")
if [ ${#BINS[@]} -eq 0 ]; then
    build_products entitlementd entitlementd-bench
    BINS=("$BIN_DIR/entitlementd")
else
    build_products entitlementd-bench
fi
need_h2load
command -v perf >/dev/null || die "perf not found (apt-get install linux-perf)"
ensure_requests
BODY="$BUILD/requests/check-active.bin"

# The three uprobes, added once (they stay defined, inactive until perf stat enables them).
LIBC=$(ldconfig -p | awk '/libc\.so\.6 .*x86-64/ && !found {print $NF; found = 1}')
SWIFT_CORE=$(ldd "${BINS[0]}" | awk '/libswiftCore\.so/ {print $3}')
[ -n "$LIBC" ] && [ -n "$SWIFT_CORE" ] || die "cannot find libc.so.6 or libswiftCore.so"
perf probe -l 2>/dev/null | grep -q "probe_libc:malloc " || perf probe -q -x "$LIBC" --add malloc
for fn in swift_retain swift_release; do
    perf probe -l 2>/dev/null | grep -q "probe_libswiftCore:$fn " || perf probe -q -x "$SWIFT_CORE" --add "$fn"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/call-counts.XXXXXX")
server_pid=""
cleanup() { [ -z "$server_pid" ] || stop_pid "$server_pid"; rm -rf "$work"; }
trap cleanup EXIT
# Each build's seed comes from the entitlementd-bench beside it when there is one: builds of other
# commits may read another schema version (an older binary refuses a newer file).
seed_for() {   # seed_for BIN: prints the path of a seed that BIN opens
    local bench="$BIN_DIR/entitlementd-bench" seed
    [ -x "$(dirname "$1")/entitlementd-bench" ] && bench="$(dirname "$1")/entitlementd-bench"
    seed="$work/seed-$(echo "$bench" | md5sum | cut -c1-8).sqlite"
    [ -f "$seed" ] || "$bench" seed --database "$seed" --users 2 --transactions-per-user 3 >/dev/null
    echo "$seed"
}

ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
load() {   # load CONNS STREAMS CALLS ADDR
    taskset -c 0 h2load -n "$3" -c "$1" -m "$2" -d "$BODY" -H 'content-type: application/grpc' \
        -H 'te: trailers' "http://$4/entitlement.v1.EntitlementService/CheckEntitlement" >"$work/h2load.out" 2>&1
    grep -q "$3 succeeded" "$work/h2load.out" || { cat "$work/h2load.out" >&2; die "h2load: not every call succeeded"; }
}

printf '%-50s %-6s %11s %8s %8s %8s %6s\n' build setting "cpu_us/call" malloc retain release load
for ((round = 1; round <= ROUNDS; round++)); do
    for bin in "${BINS[@]}"; do
        for setting in $SETTINGS; do
            conns=${setting%x*}; streams=${setting#*x}
            cp "$(seed_for "$bin")" "$work/db.sqlite"
            start_entitlementd "$work/server" taskset -c 1 "$bin" --listen 127.0.0.1:0 --threads 1 \
                --database "$work/db.sqlite" --log-level warning
            server_pid=$started_pid
            load "$conns" "$streams" "$WARM" "$started_addr"
            t0=$(ticks "$server_pid")
            load "$conns" "$streams" "$CALLS" "$started_addr"
            t1=$(ticks "$server_pid")
            perf stat -x, -o "$work/stat" -p "$server_pid" \
                -e probe_libc:malloc,probe_libswiftCore:swift_retain,probe_libswiftCore:swift_release &
            perf_pid=$!
            sleep 1
            load "$conns" "$streams" "$COUNT_CALLS" "$started_addr"
            kill -INT "$perf_pid"; wait "$perf_pid" || true
            stop_pid "$server_pid"; server_pid=""
            per_call() { awk -F, -v e="$1" -v n="$COUNT_CALLS" '$3 ~ e {printf "%.2f", $1 / n}' "$work/stat"; }
            printf '%-50s %-6s %11s %8s %8s %8s %6s\n' "$bin" "$setting" \
                "$(awk -v t=$((t1 - t0)) -v n="$CALLS" -v hz="$(getconf CLK_TCK)" 'BEGIN{printf "%.2f", t / hz * 1e6 / n}')" \
                "$(per_call malloc)" "$(per_call swift_retain)" "$(per_call swift_release)" \
                "$(cut -d' ' -f1 /proc/loadavg)"
        done
    done
done
