import Foundation

// A libFuzzer harness for every byte entry point (see FuzzTargets), and, in a normal build, a
// regression runner that feeds saved inputs (crashers, corpus files) through the same targets.
//
//   FUZZ_TARGET=jws .build-fuzz/debug/entitlementd-fuzz -max_total_time=60 CORPUS_DIR   (fuzz build)
//   entitlementd-fuzz TARGET FILE...                                                   (normal build)

#if FUZZING
import CFuzzer

nonisolated(unsafe) var selectedTarget: @Sendable (UnsafeRawBufferPointer) -> Void = { _ in }

/// libFuzzer's own main references this symbol even though the driver is started through
/// LLVMFuzzerRunDriver below, so it must exist; it runs the same selected target.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    selectedTarget(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""
guard let target = FuzzTargets.all[name] else {
    FileHandle.standardError.write(
        Data("set FUZZ_TARGET to one of: \(FuzzTargets.all.keys.sorted().joined(separator: ", "))\n".utf8))
    exit(2)
}
selectedTarget = target
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    selectedTarget(UnsafeRawBufferPointer(start: data, count: size))
    return 0
})
#else
let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, let target = FuzzTargets.all[name] else {
    print(
        "usage: entitlementd-fuzz TARGET FILE...  (targets: \(FuzzTargets.all.keys.sorted().joined(separator: ", ")))")
    exit(2)
}
for path in arguments.dropFirst() {
    guard let data = FileManager.default.contents(atPath: path) else {
        print("cannot read \(path)")
        exit(1)
    }
    Array(data).withUnsafeBytes { target($0) }
}
print("\(arguments.count - 1) inputs ran through \(name) without a crash")
#endif
