# shellcheck shell=bash
# What the benchmark scripts share (submit-receipt.sh, notifications.sh, server-api.sh,
# cluster.sh, call-counts.sh, notification-instructions.sh, pg-receipt-inserts.sh): the shared
# bench's lib.sh (log, die, pin_server, pin_load, stop_pid, run_load, wait_quiet, ensure_venv, ...;
# SHARED_BENCH=../shared/bench), its builds kept in .build-release/bench (shared/ is read-only),
# and the helpers below. Sourced with ROOT set; not run on its own.

SHARED_BENCH="${SHARED_BENCH:-$ROOT/../shared/bench}"
[ -f "$SHARED_BENCH/lib.sh" ] || { echo "need $SHARED_BENCH/lib.sh (set SHARED_BENCH)" >&2; exit 1; }
export BENCH_BUILD="${BENCH_BUILD:-$ROOT/.build-release/bench}"
# shellcheck source=/dev/null
. "$SHARED_BENCH/lib.sh"

BIN_DIR="${BIN_DIR:-$ROOT/.build-release/release}"   # BIN_DIR=... NO_BUILD=1 runs another build (A/B)

need_h2load() {
    command -v h2load >/dev/null && command -v nghttp >/dev/null && return 0
    log "installing nghttp2-client (h2load, nghttp)"
    apt_install nghttp2-client
}

apt_install() {
    local sudo_=(); [ "$(id -u)" -eq 0 ] || sudo_=(sudo)
    "${sudo_[@]}" apt-get update -q >&2 && "${sudo_[@]}" apt-get install -y -q "$@" >&2
}

# shellcheck source=Scripts/lib/release.sh
. "$ROOT/Scripts/lib/release.sh"   # build_bench_release

# build_products NAME...: release builds into .build-release (skipped with NO_BUILD=1).
build_products() {
    local product
    if [ -z "${NO_BUILD:-}" ]; then
        for product in "$@"; do
            log "release build of $product as Scripts/run ships it (.build-release)"
            build_bench_release "$product" || die "release build of $product failed"
        done
    fi
    for product in "$@"; do [ -x "$BIN_DIR/$product" ] || die "no release binary at $BIN_DIR/$product"; done
}

# wait_listen_line FILE PREFIX: waits up to 10 s for "PREFIX ADDR..." in FILE; prints ADDR.
wait_listen_line() {
    local file=$1 prefix=$2 line _
    for _ in $(seq 200); do
        line=$(grep -m1 "^$prefix" "$file" 2>/dev/null) && { line=${line#"$prefix"}; echo "${line%% *}"; return 0; }
        sleep 0.05
    done
    cat "$file" >&2
    return 1
}

# start_entitlementd OUT_PREFIX COMMAND...: runs COMMAND (entitlementd or entitlementd-testing
# with --listen 127.0.0.1:0, possibly behind taskset or env) in the background, stdout to
# OUT_PREFIX.out and stderr to OUT_PREFIX.err, and waits for its listening line; sets
# started_pid and started_addr, or dies showing its stderr. Call it directly, not in $(...).
start_entitlementd() {
    local prefix=$1; shift
    "$@" >"$prefix.out" 2>"$prefix.err" &
    started_pid=$!
    started_addr=$(wait_listen_line "$prefix.out" "entitlementd listening on ") \
        || { cat "$prefix.err" >&2; die "entitlementd did not start: $*"; }
}

rss_of() { awk '/^VmRSS/ {printf "%.1fMiB", $2 / 1024}' "/proc/$1/status" 2>/dev/null || echo "?"; }
# ticks_of PID: user+system clock ticks of the process (all its threads) so far.
ticks_of() { sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $12 + $13}' || echo 0; }
# per_sec_pct TICKS SECONDS: TICKS as % of one core over SECONDS.
per_sec_pct() { awk -v t="$1" -v s="$2" -v hz="$(getconf CLK_TCK)" 'BEGIN{printf "%.0f", 100 * t / hz / s}'; }

# result_row NAME SETTING RESULT_LINE EXTRA...: one table row from load.sh's RESULT line.
result_row() {
    local name=$1 setting=$2 result=$3; shift 3
    f() { grep -o " $1=[^ ]*" <<<" $result" | cut -d= -f2; }
    printf '%-16s %-6s %8s %9s %9s %7s %7s' "$name" "$setting" "$(f rps)" \
        "$(awk -v u="$(f p50_us)" 'BEGIN{printf "%.2f", u/1000}')" \
        "$(awk -v u="$(f p99_us)" 'BEGIN{printf "%.2f", u/1000}')" "$(f cpu_server)%" "$(f cpu_h2load)%"
    printf ' %7s %8s %10s' "$@"
}
