# shellcheck shell=bash
# The libFuzzer harness build, shared by Scripts/fuzz (long runs) and Scripts/lib/test-fuzz.sh
# (the short run in every Scripts/test). Source it, then call build_fuzzer.
#
# -sanitize=fuzzer,address links libFuzzer and the ASan runtime from the Swift toolchain's own
# clang resources, and -use-ld=lld its own lld: nothing from Debian is needed (verified from an
# empty scratch path on a fresh clone).

FUZZ_TARGETS=(jws notification-v1 notification-v2 verify-receipt jws-transaction protobuf grpc-frames http1 http2-server
              http2-request-checks app-receipt json-decoders server-api-answers)
FUZZ_SCRATCH=.build-fuzz
FUZZ_FLAGS=(--scratch-path "$FUZZ_SCRATCH" -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -use-ld=lld)

# build_fuzzer: builds entitlementd-fuzz and sets FUZZ_BIN to its path; returns non-zero on failure.
build_fuzzer() {
    swift build --product entitlementd-fuzz "${FUZZ_FLAGS[@]}" || return 1
    FUZZ_BIN="$(swift build "${FUZZ_FLAGS[@]}" --show-bin-path)/entitlementd-fuzz" || return 1
    [ -x "$FUZZ_BIN" ]
}
