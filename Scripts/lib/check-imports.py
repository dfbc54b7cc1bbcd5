#!/usr/bin/env python3
"""Checks that every Swift file of a target imports only the target's direct dependencies
(as Package.swift declares them) and the toolchain's own modules.

    swift package dump-package | Scripts/lib/check-imports.py

A module another dependency brings in transitively still compiles, but the graph then hides
an edge: the import works only until that other dependency changes. So a direct dependency
must be declared. Every form of import counts (`@testable`, `internal`, `public`,
`@_implementationOnly`, `import struct X.Y`), inside `#if` blocks too: `#if canImport(...)`
guards an import on some platforms, and where it compiles it is an edge like any other.
Comments and multi-line string literals are skipped. TESTS_ONLY modules (the shared test
helpers) may be imported by test targets only, so no product can come to depend on them.
Prints each offending file with the module and the target, and exits 1; exits 0 with a
one-line count otherwise."""
import json
import pathlib
import re
import sys

# Modules the Swift toolchain and the platform provide; no target declares them.
TOOLCHAIN = {
    "Swift", "_Concurrency", "_StringProcessing", "RegexBuilder", "Observation", "Distributed",
    "Synchronization", "_Backtracing", "Cxx", "CxxStdlib", "SwiftShims",
    "Foundation", "FoundationEssentials", "FoundationInternationalization", "FoundationNetworking",
    "FoundationXML", "Dispatch", "XCTest", "Testing",
    "Glibc", "Musl", "Bionic", "Android", "WASILibc", "Darwin", "os", "ucrt", "WinSDK",
}

# Regular targets that exist for the test targets; nothing else may import them.
TESTS_ONLY = {"TestSupport"}

ATTRIBUTE = r"@\w+(?:\([^)]*\))?\s+"
MODIFIER = r"(?:public|package|internal|fileprivate|private)\s+"
KIND = r"(?:typealias|struct|class|enum|protocol|let|var|func)\s+"
IMPORT = re.compile(rf"^\s*(?:{ATTRIBUTE})*(?:{MODIFIER})?(?:{ATTRIBUTE})*import\s+(?:{KIND})?(\w+)")


def code_lines(text):
    """Yields (line number, code) with comments and multi-line string literals blanked."""
    in_block_comment = False
    in_multiline_string = False
    for number, line in enumerate(text.split("\n"), 1):
        code, i = [], 0
        while i < len(line):
            if in_block_comment:
                end = line.find("*/", i)
                if end < 0:
                    break
                in_block_comment, i = False, end + 2
            elif in_multiline_string:
                end = line.find('"""', i)
                if end < 0:
                    break
                in_multiline_string, i = False, end + 3
            elif line.startswith("//", i):
                break
            elif line.startswith("/*", i):
                in_block_comment, i = True, i + 2
            elif line.startswith('"""', i):
                in_multiline_string, i = True, i + 3
            else:
                code.append(line[i])
                i += 1
        yield number, "".join(code)


def imports(path):
    for number, code in code_lines(path.read_text(encoding="utf-8")):
        match = IMPORT.match(code)
        if match:
            yield number, match.group(1)


def target_directory(target):
    if target.get("path"):
        return pathlib.Path(target["path"])
    top = "Tests" if target["type"] == "test" else "Sources"
    return pathlib.Path(top) / target["name"]


def declared_dependencies(target):
    names = set()
    for dependency in target["dependencies"]:
        for value in dependency.values():
            # byName and target: [name, condition]; product: [name, package, moduleAliases, condition].
            names.add(value[0])
    return names


def main():
    manifest = json.load(sys.stdin)
    problems, files = [], 0
    for target in manifest["targets"]:
        if target["type"] in ("system", "binary", "plugin", "macro"):
            continue
        directory = target_directory(target)
        excluded = [directory / part for part in target.get("exclude", [])]
        allowed = declared_dependencies(target) | TOOLCHAIN | {target["name"]}
        for path in sorted(directory.rglob("*.swift")):
            if any(path == part or part in path.parents for part in excluded):
                continue
            files += 1
            for number, module in imports(path):
                if module not in allowed:
                    problems.append(f"{path}:{number}: imports {module}, which is not a dependency "
                                    f"of target {target['name']} in Package.swift")
                elif module in TESTS_ONLY and target["type"] != "test" and module != target["name"]:
                    problems.append(f"{path}:{number}: imports {module}, which test targets only may use "
                                    f"(target {target['name']} is not one)")
    if problems:
        print("imports of modules the target does not declare (add them to its dependencies "
              "in Package.swift):", file=sys.stderr)
        for problem in problems:
            print("  " + problem, file=sys.stderr)
        sys.exit(1)
    print(f"imports: {files} Swift files import only their targets' declared dependencies")


main()
