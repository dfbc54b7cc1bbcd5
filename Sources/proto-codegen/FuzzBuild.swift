#if FUZZING
/// The fuzz build (Scripts/lib/fuzz.sh) compiles and links everything with -sanitize=fuzzer,
/// this build tool included: SwiftPM gives host tools the same -Xswiftc flags as the products.
/// That links libFuzzer's main, which references this symbol; SwiftPM's renamed main (main.swift)
/// is the one that runs, as in entitlementd-fuzz, so this is never called.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    0
}
#endif
