#!/usr/bin/env bash
# The short fuzz run of every Scripts/test: each libFuzzer target starts from its committed seed
# corpus (Tests/FuzzCorpus/TARGET, minimized from long Scripts/fuzz runs) and fuzzes for
# FUZZ_CI_SECONDS (default 15); every committed crasher (Tests/FuzzRegressions/TARGET/*) is
# replayed first. Exits non-zero on any crash or sanitizer report, naming the input.
# FUZZ_CI_JOBS targets (default 2) fuzz at a time: Scripts/test runs this at nice 19 beside tests
# that mostly wait, and one fuzzer alone used at most one of the two cores they left idle.
#
# New corpus units go to a scratch copy under .build-fuzz/ci-corpus, never into the repository.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT" || exit 1
# shellcheck source=Scripts/lib/fuzz.sh
. "$ROOT/Scripts/lib/fuzz.sh"
SECONDS_EACH="${FUZZ_CI_SECONDS:-15}"

echo "building the fuzz harness (sanitize=fuzzer,address) in $FUZZ_SCRATCH"
build_fuzzer || { echo "fuzz harness build failed" >&2; exit 1; }

# fuzz_one TARGET: replays its committed crashers, then fuzzes it; its report goes to stdout
# (one `ok` line per step) and stderr (a FAIL with what to do); exit status 1 on a crash.
fuzz_one() {
    local target=$1 artifacts="$FUZZ_SCRATCH/ci-artifacts/$1" corpus="$FUZZ_SCRATCH/ci-corpus/$1"
    local log="$FUZZ_SCRATCH/ci-$1.log" regressions runs cov
    rm -rf "$artifacts" "$corpus"
    mkdir -p "$artifacts" "$corpus"
    [ -d "Tests/FuzzCorpus/$target" ] && cp Tests/FuzzCorpus/"$target"/* "$corpus"/ 2>/dev/null

    regressions=(Tests/FuzzRegressions/"$target"/*)
    if [ -e "${regressions[0]}" ]; then
        if ! SWIFT_BACKTRACE=enable=no FUZZ_TARGET="$target" "$FUZZ_BIN" -artifact_prefix="$artifacts/" \
                "${regressions[@]}" >"$log.regressions" 2>&1; then
            echo "FAIL $target (regressions): a committed regression input crashes again:" >&2
            grep -E 'ERROR|SUMMARY|Running: ' "$log.regressions" | tail -5 >&2
            return 1
        fi
        echo "ok   $target: ${#regressions[@]} regression input(s) replayed"
    fi

    if SWIFT_BACKTRACE=enable=no FUZZ_TARGET="$target" "$FUZZ_BIN" -max_total_time="$SECONDS_EACH" \
            -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1)
        echo "ok   $target: $runs runs in ${SECONDS_EACH}s from $(ls Tests/FuzzCorpus/"$target" 2>/dev/null | wc -l) seeds, $cov"
    else
        echo "FAIL $target: see $ROOT/$log; crashing input(s):" >&2
        grep -E 'ERROR|SUMMARY' "$log" | head -3 >&2
        ls "$artifacts" >&2
        echo "  minimize it (FUZZ_TARGET=$target $FUZZ_BIN -minimize_crash=1 -runs=10000 FILE), commit it" \
             "under Tests/FuzzRegressions/$target/ and fix the bug" >&2
        return 1
    fi
}

# At most FUZZ_CI_JOBS at once; each target's report is printed in FUZZ_TARGETS' order after all end.
JOBS="${FUZZ_CI_JOBS:-2}"
reports="$FUZZ_SCRATCH/ci-reports"
rm -rf "$reports" && mkdir -p "$reports"
for target in "${FUZZ_TARGETS[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    ( fuzz_one "$target" >"$reports/$target.out" 2>"$reports/$target.err"; echo $? >"$reports/$target.rc" ) &
done
wait
failed=()
for target in "${FUZZ_TARGETS[@]}"; do
    cat "$reports/$target.out"
    cat "$reports/$target.err" >&2
    [ "$(cat "$reports/$target.rc" 2>/dev/null)" = 0 ] || failed+=("$target")
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzzing found crashes in: ${failed[*]}" >&2
    exit 1
fi
echo "no crashes in ${#FUZZ_TARGETS[@]} targets"
