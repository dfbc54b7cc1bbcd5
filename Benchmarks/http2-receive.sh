#!/usr/bin/env bash
# The HTTP/2 session's receive path, revision against revision: instructions per gRPC request
# (callgrind, exact whatever the machine's load) and wall time, for the HTTP2 module of each
# git revision given, built in release in a scratch package of its own.
#
#   Benchmarks/http2-receive.sh REV_A REV_B      e.g. main authority
#
# The input is one recorded client connection (the preface, SETTINGS and 100 CheckEntitlement
# calls as grpcio sends them: HPACK with its dynamic table, `authorization`, a 25-byte message),
# fed whole to a fresh HTTP2ServerSession ITERATIONS times; requests delivered are counted so a
# revision that drops them shows. Session creation is in both figures alike.
# Needs valgrind and a Python with the `h2` package (PYTHON). A benchmark: Scripts/test never runs it.
#
# Env: ITERATIONS=2000 (wall time)  CALLGRIND_ITERATIONS=200  PYTHON=python3
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -eq 2 ] || { echo "usage: $0 REV_A REV_B" >&2; exit 2; }
ITERATIONS=${ITERATIONS:-2000}; CALLGRIND_ITERATIONS=${CALLGRIND_ITERATIONS:-200}; PYTHON=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/http2-receive.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$PYTHON" - "$work/requests.bin" <<'PY'
import sys
import h2.config, h2.connection
client = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
client.initiate_connection()
for index in range(100):
    stream = 2 * index + 1
    client.send_headers(stream, [
        (":method", "POST"), (":scheme", "http"), (":path", "/entitlement.v1.EntitlementService/CheckEntitlement"),
        (":authority", "127.0.0.1:50051"), ("te", "trailers"), ("content-type", "application/grpc"),
        ("user-agent", "grpc-python/1.66.1 grpc-c/43.0.0 (linux; chttp2)"),
        ("grpc-accept-encoding", "identity, deflate, gzip"), ("authorization", "Bearer " + "0123456789abcdef" * 2)])
    client.send_data(stream, b"\x00\x00\x00\x00\x14" + b"\x0a\x02u0\x12\x0bpro.monthly" + b"\x00" * 5, end_stream=True)
open(sys.argv[1], "wb").write(client.data_to_send())
PY

for rev in "$1" "$2"; do
    dir="$work/$rev"
    mkdir -p "$dir/Sources/Bench"
    git -C "$ROOT" archive "$rev" Sources/HTTP2 Sources/HTTPCore Sources/CNGHTTP2 | tar -x -C "$dir"
    cat >"$dir/Package.swift" <<'SWIFT'
// swift-tools-version:6.0
import PackageDescription
let confined: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"])]
let package = Package(name: "http2receive", targets: [
    .systemLibrary(name: "CNGHTTP2", path: "Sources/CNGHTTP2", pkgConfig: "libnghttp2"),
    .target(name: "HTTPCore", swiftSettings: confined),
    .target(name: "HTTP2", dependencies: ["CNGHTTP2", "HTTPCore"], swiftSettings: confined),
    .executableTarget(name: "Bench", dependencies: ["HTTP2", "HTTPCore"]),
])
SWIFT
    cat >"$dir/Sources/Bench/main.swift" <<'SWIFT'
import Glibc
import HTTP2
import HTTPCore

let file = fopen(CommandLine.arguments[1], "rb")!
let iterations = Int(CommandLine.arguments[2])!
var blob: [UInt8] = []
var chunk = [UInt8](repeating: 0, count: 65536)
while case let n = fread(&chunk, 1, chunk.count, file), n > 0 { blob += chunk[0..<n] }
var requests = 0
var events: [HTTP2Event] = []
var output: [UInt8] = []
var start = timespec()
clock_gettime(CLOCK_MONOTONIC, &start)
for _ in 0..<iterations {
    let session = try HTTP2ServerSession(limits: HTTP2Limits())
    try blob.withUnsafeBytes { try session.receive($0) }
    session.takeEvents(into: &events)
    for event in events { if case .request = event { requests += 1 } }
    output.removeAll(keepingCapacity: true)
    try session.send(into: &output)
}
var end = timespec()
clock_gettime(CLOCK_MONOTONIC, &end)
let nanoseconds = Double(end.tv_sec - start.tv_sec) * 1e9 + Double(end.tv_nsec - start.tv_nsec)
print("requests \(requests) ns/request \(Int(nanoseconds / Double(max(requests, 1))))")
SWIFT
    (cd "$dir" && swift build -c release >"$work/build-$rev.log" 2>&1) || { cat "$work/build-$rev.log" >&2; exit 1; }
done

printf '%-12s %12s %10s %16s\n' revision requests ns/request instructions/req
for round in 1 2 3; do
    for rev in "$1" "$2"; do
        read -r _ requests _ ns < <("$work/$rev/.build/release/Bench" "$work/requests.bin" "$ITERATIONS")
        if [ "$round" = 1 ]; then
            valgrind --tool=callgrind --callgrind-out-file="$work/cg-$rev" \
                "$work/$rev/.build/release/Bench" "$work/requests.bin" "$CALLGRIND_ITERATIONS" >/dev/null 2>"$work/vg"
            total=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/vg")
            per=$(( total / (CALLGRIND_ITERATIONS * 100) ))
        else
            per=-
        fi
        printf '%-12s %12s %10s %16s\n' "$rev" "$requests" "$ns" "$per"
    done
done
