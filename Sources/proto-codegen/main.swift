// proto-codegen --root PROTOS_DIR PROTO=SWIFT...: parses each PROTO (a path under PROTOS_DIR,
// e.g. entitlement/v1/entitlement.proto) and writes its Swift to the file SWIFT. Run by
// ProtoCodegenPlugin, which names the outputs, on every build of a target that applies it.
import Foundation
import ProtoCodegen

/// Fails the build with `message`, which SwiftPM shows as the command's error output.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

var arguments = CommandLine.arguments.dropFirst()
var root: URL?
var jobs: [(proto: String, swift: URL)] = []
while let argument = arguments.popFirst() {
    if argument == "--root", let path = arguments.popFirst() {
        root = URL(fileURLWithPath: path, isDirectory: true)
    } else if let split = argument.firstIndex(of: "=") {
        let swift = String(argument[argument.index(after: split)...])
        jobs.append((String(argument[..<split]), URL(fileURLWithPath: swift)))
    } else {
        fail("proto-codegen: unexpected argument '\(argument)'")
    }
}
guard let root, !jobs.isEmpty else {
    fail("usage: proto-codegen --root PROTOS_DIR PROTO=SWIFT... (PROTO relative to PROTOS_DIR)")
}

do {
    // Paths in messages and generated comments start at the root's own name (Protos/...), the
    // same from every checkout.
    let files = try jobs.map { job in
        let text = try String(contentsOf: root.appendingPathComponent(job.proto), encoding: .utf8)
        return try ProtoParser.parse(text, file: root.lastPathComponent + "/" + job.proto)
    }
    for (job, source) in zip(jobs, try SwiftEmitter.emit(files)) {
        try FileManager.default.createDirectory(at: job.swift.deletingLastPathComponent(),
                                                withIntermediateDirectories: true)
        try Data(source.utf8).write(to: job.swift, options: .atomic)
    }
} catch let error as ProtoSyntaxError {
    fail("\(error)")
} catch {
    fail("proto-codegen: \(error)")
}
