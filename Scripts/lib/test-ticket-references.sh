#!/usr/bin/env bash
# Fails when a Swift source under Sources/ names a ticket or a work round ("issue 12",
# "round 22"): comments say why in a sentence and link a doc for the story; git keeps the rest.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
found=$(grep -rnIE --include='*.swift' '\b(issue|round) [0-9]+' "$ROOT/Sources" | sed "s|^$ROOT/||")
if [ -n "$found" ]; then
    echo "ticket or round references in Sources (say why instead; the story goes to docs/):"
    echo "$found"
    exit 1
fi
echo "ticket references: none in Sources"
