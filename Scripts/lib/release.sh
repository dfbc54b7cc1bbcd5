# How the shipped binaries are built, sourced by Scripts/run (which runs them) and Scripts/test
# (which tests those same binaries): the Swift runtime and Foundation linked statically, so the
# process maps and relocates far fewer shared-library pages (an idle server's RSS near 31 MiB
# instead of ~36 MiB).
RELEASE_BUILD=(swift build -c release --static-swift-stdlib)

# build_release PRODUCT...: builds each product with RELEASE_BUILD plus any extra flags in
# RELEASE_EXTRA_FLAGS (an array, may be empty); progress to stderr.
build_release() {
    local product
    for product in "$@"; do
        "${RELEASE_BUILD[@]}" ${RELEASE_EXTRA_FLAGS[@]+"${RELEASE_EXTRA_FLAGS[@]}"} --product "$product" >&2 \
            || return 1
    done
}

# release_bin_path: the directory build_release writes into.
release_bin_path() {
    "${RELEASE_BUILD[@]}" ${RELEASE_EXTRA_FLAGS[@]+"${RELEASE_EXTRA_FLAGS[@]}"} --show-bin-path
}

RELEASE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# build_bench_release PRODUCT...: what the benchmarks run: the products as Scripts/run ships
# them, into .build-release, the scratch directory Scripts/test's release build uses (so a
# benchmark measures the shipped binary, and neither build undoes the other's flags).
build_bench_release() {
    local RELEASE_EXTRA_FLAGS=(--scratch-path "$RELEASE_ROOT/.build-release")
    build_release "$@"
}
