#!/usr/bin/env bash
# The console dashboard on 1M users: the last 90 days' figures read from the daily rollup and
# rendered to HTML (ConsoleDashboard), p50/p99 over ROUNDS calls, through
# `entitlementd-bench dashboard`.
#
#   Benchmarks/dashboard.sh
#
# 1. The dashboard data set: USERS users with histories spread over ~400 days (trials,
#    renewals, lapses, refunds, prices in four currencies; DashboardData.swift), seeded once
#    through the store's writer (so the rollup is kept on write, as in service) and cached in
#    .build-release/bench-data/dashboard-USERS.sqlite.
# 2. With SHARED_SET=1, the shared 1M x 3 set Benchmarks/check-entitlement.sh caches, copied
#    first: a file seeded by a binary before the rollup is filled from its chains when the
#    store opens, and the open time printed includes that.
# Pinned to cpu 1 like the server under test. A benchmark, not a test: Scripts/test never runs it.
#
# Env: USERS=1000000 ROUNDS=200 SHARED_SET=0 PER_USER=3 NO_BUILD=1
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=Scripts/lib/release.sh
. "$ROOT/Scripts/lib/release.sh"   # build_bench_release
cd "$ROOT"
USERS=${USERS:-1000000}; ROUNDS=${ROUNDS:-200}; PER_USER=${PER_USER:-3}
if [ -z "${NO_BUILD:-}" ]; then
    echo "==> release build of entitlementd-bench (.build-release)" >&2
    build_bench_release entitlementd-bench
fi
BENCH_BIN="$ROOT/.build-release/release/entitlementd-bench"
DATA="$ROOT/.build-release/bench-data"
mkdir -p "$DATA"
pin=(); command -v taskset >/dev/null && pin=(taskset -c "${SERVER_CPU:-1}")

db="$DATA/dashboard-$USERS.sqlite"
if [ -s "$db" ]; then
    "${pin[@]}" "$BENCH_BIN" dashboard --database "$db" --rounds "$ROUNDS"
else
    echo "==> seeding $USERS users into $db (once; cached)" >&2
    rm -f "$db.partial" "$db.partial-wal" "$db.partial-shm"
    "${pin[@]}" "$BENCH_BIN" dashboard --database "$db.partial" --users "$USERS" --rounds "$ROUNDS"
    # Renamed only once complete, so an interrupted seed is never reused.
    [ ! -e "$db.partial-wal" ] || { echo "the seed left a WAL behind" >&2; exit 1; }
    mv "$db.partial" "$db"
fi

if [ "${SHARED_SET:-0}" = 1 ]; then
    shared="$DATA/users-${USERS}x${PER_USER}-r3.sqlite"
    if [ -f "$shared" ]; then
        copy="$DATA/dashboard-shared-copy.sqlite"
        rm -f "$copy" "$copy-wal" "$copy-shm"
        cp "$shared" "$copy"
        echo "==> the shared set ($shared), a copy" >&2
        "${pin[@]}" "$BENCH_BIN" dashboard --database "$copy" --rounds "$ROUNDS"
        rm -f "$copy" "$copy-wal" "$copy-shm"
    else
        echo "==> no shared set at $shared (Benchmarks/check-entitlement.sh builds it); skipped" >&2
    fi
fi
