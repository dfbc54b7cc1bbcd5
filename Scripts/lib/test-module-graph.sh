#!/usr/bin/env bash
# README's module graph (How it is built) lists every target of Package.swift with exactly
# its direct dependencies; fails with the differences otherwise. Needs only swift and python3.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
swift package dump-package | python3 Scripts/lib/check-module-graph.py README.md
