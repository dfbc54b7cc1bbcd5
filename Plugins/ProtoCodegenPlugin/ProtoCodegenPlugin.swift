import Foundation
import PackagePlugin

/// Generates a target's protobuf messages from the package's Protos/ at build time, so the
/// .proto files stay the one place a message's fields are written down.
///
/// The target lists its protos in `protos.txt` (one path under Protos/ a line, `#` comments),
/// which keeps the choice beside the target rather than in this plugin. Every listed .proto is
/// an input of the command, so editing one regenerates the Swift and rebuilds the target.
@main
struct ProtoCodegenPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        guard let list = target.sourceFiles.first(where: { $0.url.lastPathComponent == "protos.txt" })?.url,
              let text = try? String(contentsOf: list, encoding: .utf8)
        else {
            throw PluginError("\(target.name) applies ProtoCodegenPlugin but has no readable protos.txt: list "
                              + "the .proto files it compiles there, one path under Protos/ a line")
        }
        let protos = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        let root = context.package.directoryURL.appending(path: "Protos")
        let outputs = protos.map { proto in
            // Named after the .proto, as protoc-gen-swift names its files; `.pb` keeps them
            // apart from any hand-written file of the same name in the target.
            let name = URL(fileURLWithPath: proto).deletingPathExtension().lastPathComponent + ".pb.swift"
            return context.pluginWorkDirectoryURL.appending(path: name)
        }
        return [
            .buildCommand(
                displayName: "Generating Swift for \(target.name) from \(protos.joined(separator: ", "))",
                executable: try context.tool(named: "proto-codegen").url,
                arguments: ["--root", root.path] + zip(protos, outputs).map { "\($0)=\($1.path)" },
                inputFiles: [list] + protos.map { root.appending(path: $0) },
                outputFiles: outputs),
        ]
    }
}

/// A plugin failure SwiftPM prints as is, telling the package author what to fix.
struct PluginError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
