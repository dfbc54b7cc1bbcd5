#!/usr/bin/env bash
# The entitlement rules' cost per CheckEntitlement, before and after a change: builds the
# Entitlements module twice (BASE's, and the working tree's) into one release program that
# times EntitlementRules.check on the same facts, interleaving the two so machine load hits
# both alike. A benchmark, not a test: Scripts/test never runs it.
#
#   Benchmarks/rules-ab.sh [BASE]          BASE: a commit (default main)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BASE="${1:-main}"
WORK="$ROOT/.build-rules-ab"
rm -rf "$WORK/Sources"
mkdir -p "$WORK/Sources/Baseline" "$WORK/Sources/Current" "$WORK/Sources/rules-ab"
git -C "$ROOT" archive "$BASE" Sources/Entitlements | tar -x -C "$WORK/Sources/Baseline" --strip-components=2
cp "$ROOT"/Sources/Entitlements/*.swift "$WORK/Sources/Current/"
cp "$ROOT/Benchmarks/rules-ab/main.swift" "$WORK/Sources/rules-ab/"
cat > "$WORK/Package.swift" <<'SWIFT'
// swift-tools-version:6.0
import PackageDescription
let package = Package(name: "rules-ab", targets: [
    .target(name: "Baseline"), .target(name: "Current"),
    .executableTarget(name: "rules-ab", dependencies: ["Baseline", "Current"]),
])
SWIFT
echo "base: $(git -C "$ROOT" rev-parse --short "$BASE") ($BASE); current: the working tree at $(git -C "$ROOT" rev-parse --short HEAD)"
if ! swift build -c release --package-path "$WORK" > "$WORK/build.log" 2>&1; then
    cat "$WORK/build.log" >&2
    exit 1
fi
"$WORK/.build/release/rules-ab"
if command -v valgrind >/dev/null 2>&1; then
    # Instruction counts are exact where timings on a shared machine are not; the setup is the
    # same for both sides, so the difference is the checks' own.
    for side in base current; do
        instructions=$(RULES_AB_ONLY=$side valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
            "$WORK/.build/release/rules-ab" 2>&1 | sed -n 's/.*I *refs: *//p')
        echo "  $side: $instructions instructions for one round (valgrind cachegrind)"
    done
fi
