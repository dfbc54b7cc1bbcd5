#!/usr/bin/env bash
# Checks that the production entitlementd carries no test-only code: no entitlementd.testing.v1
# route names, symbols, module or flag in `strings` or `nm` of the binary. The test executable
# is checked for the same patterns too, so a pattern that stopped matching (a rename) fails
# here instead of passing silently.
#
#   Scripts/lib/test-production-binary.sh PRODUCTION_BIN TESTING_BIN
#
# Scripts/test runs it on the release binaries Scripts/run ships and on the debug build; by hand:
#   swift build -c release --product entitlementd && swift build -c release --product entitlementd-testing
#   Scripts/lib/test-production-binary.sh "$(swift build -c release --show-bin-path)"/entitlementd{,-testing}
set -uo pipefail

[ $# -eq 2 ] || { echo "usage: $0 PRODUCTION_BIN TESTING_BIN" >&2; exit 2; }
production=$1 testing=$2
for bin in "$production" "$testing"; do
    [ -x "$bin" ] || { echo "no executable at $bin" >&2; exit 1; }
done
command -v strings >/dev/null && command -v nm >/dev/null || { echo "need strings and nm (binutils)" >&2; exit 1; }

# Route names, the proto package, the Swift module and types (mangled names contain them), the
# flag and environment variable that once switched the service on.
PATTERN='entitlementd\.testing|testing\.v1|Testing/(Seed|Sleep)|EntitlementTesting|TestingService|TestingV1|enable-testing-service|ENABLE_TESTING_SERVICE'

# matches TOOL BIN: how many lines of TOOL's output for BIN match PATTERN.
matches() { "$1" "${@:3}" "$2" 2>/dev/null | grep -cE "$PATTERN"; }

status=0
for tool in strings nm; do
    args=(); [ "$tool" = strings ] && args=(-a)
    found=$(matches "$tool" "$production" "${args[@]}")
    if [ "$found" -ne 0 ]; then
        echo "FAIL: $tool $production: $found lines name the test-only service:" >&2
        "$tool" "${args[@]}" "$production" | grep -E "$PATTERN" | sort -u | head -20 >&2
        status=1
    else
        echo "ok: $tool $(basename "$production"): no test-only service names"
    fi
    control=$(matches "$tool" "$testing" "${args[@]}")
    if [ "$control" -eq 0 ]; then
        echo "FAIL: $tool $testing shows none of the patterns either: the check no longer sees what it looks for" >&2
        status=1
    else
        echo "ok: $tool $(basename "$testing"): $control lines (the control)"
    fi
done
exit $status
