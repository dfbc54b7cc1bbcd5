#!/usr/bin/env bash
# Swift sources stay within the lineLength of .swift-format (120 columns). swift-format leaves
# long string literals and comments alone, so this checks what it cannot fix; lists each line.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
python3 - <<'PY'
import json, pathlib, sys
limit = json.load(open(".swift-format"))["lineLength"]
files = [pathlib.Path("Package.swift")]
for top in ("Sources", "Tests", "Benchmarks"):
    files += sorted(pathlib.Path(top).rglob("*.swift"))
long = [f"{path}:{number}: {len(line)} columns"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1)
        if len(line) > limit]
if long:
    print(f"lines over {limit} columns (wrap them; `swift format --in-place FILE` reflows code):", file=sys.stderr)
    print("\n".join(long), file=sys.stderr)
    sys.exit(1)
print(f"{len(files)} Swift files, every line within {limit} columns")
PY
