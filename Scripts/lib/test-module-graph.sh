#!/usr/bin/env bash
# The module graph in docs/architecture.md ("The module graph") lists every target of
# Package.swift with exactly its direct dependencies; fails with the differences otherwise.
# Needs only swift and python3.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
# Its own scratch path: SwiftPM locks .build for a whole build, and Scripts/test runs this
# beside the debug build (dump-package reads the manifest only; nothing is written there).
swift package --scratch-path "$ROOT/.build-manifest" dump-package | python3 Scripts/lib/check-module-graph.py docs/architecture.md
