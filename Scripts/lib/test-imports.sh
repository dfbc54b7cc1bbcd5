#!/usr/bin/env bash
# Every Swift file of a target (Sources/<Target>/, Tests/<Target>/, or the target's path:)
# imports only that target's direct dependencies in Package.swift and toolchain modules
# (Foundation, Glibc, XCTest, Testing, Synchronization, ...); fails listing file, module and
# target otherwise. Needs only swift (dump-package reads the manifest, builds nothing) and python3.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
# Its own scratch path: SwiftPM locks .build for a whole build, and Scripts/test runs this
# beside the debug build (dump-package reads the manifest only; nothing is written there).
swift package --scratch-path "$ROOT/.build-manifest" dump-package | python3 Scripts/lib/check-imports.py
