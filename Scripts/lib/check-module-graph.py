#!/usr/bin/env python3
"""Checks that the documented module graph lists every target of Package.swift with exactly
its direct dependencies (test targets aside).

    swift package dump-package | Scripts/lib/check-module-graph.py docs/architecture.md

The graph is the ```text block after the line holding MARKER: `Name -> Dep Dep ...` lines
(indented lines continue the previous one's dependencies), `#` comments, and lines of bare
names for modules with no dependency."""
import json
import sys

MARKER = "<!-- module graph: checked against Package.swift by Scripts/lib/test-module-graph.sh -->"


def documented_graph(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    try:
        start = lines.index(MARKER)
    except ValueError:
        sys.exit(f"{path}: no line {MARKER!r} before the module graph")
    graph, current = {}, None
    body = lines[start + 1:]
    if not body or body[0].strip() != "```text":
        sys.exit(f"{path}: the module graph must be a ```text block right after the marker")
    for line in body[1:]:
        if line.strip() == "```":
            return graph
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if "->" in line:
            name, deps = line.split("->", 1)
            current = name.strip()
            graph.setdefault(current, set()).update(deps.split())
        elif line[0].isspace() and current:
            graph[current].update(line.split())
        else:
            current = None
            for name in line.split():
                graph.setdefault(name, set())
    sys.exit(f"{path}: the module graph block is not closed")


def package_graph(manifest):
    graph = {}
    for target in manifest["targets"]:
        if target["type"] == "test":
            continue
        deps = set()
        for dependency in target["dependencies"]:
            for value in dependency.values():
                deps.add(value[0])
        graph[target["name"]] = deps
    return graph


def main():
    document = sys.argv[1]
    drawn = documented_graph(document)
    actual = package_graph(json.load(sys.stdin))
    problems = []
    for name in sorted(actual.keys() - drawn.keys()):
        problems.append(f"{name} is in Package.swift but not in the graph of {document}")
    for name in sorted(drawn.keys() - actual.keys()):
        problems.append(f"{name} is in the graph of {document} but is no target of Package.swift")
    for name in sorted(actual.keys() & drawn.keys()):
        if actual[name] != drawn[name]:
            missing = " ".join(sorted(actual[name] - drawn[name])) or "-"
            extra = " ".join(sorted(drawn[name] - actual[name])) or "-"
            problems.append(f"{name}: the graph misses {missing}; the graph has extra {extra}")
    if problems:
        print(f"the module graph in {document} differs from Package.swift (update the graph):", file=sys.stderr)
        for problem in problems:
            print("  " + problem, file=sys.stderr)
        sys.exit(1)
    print(f"module graph: {len(actual)} targets match Package.swift")


main()
