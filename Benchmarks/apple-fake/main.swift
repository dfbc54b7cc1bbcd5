import Foundation
import HTTPCore
import HTTPServer

// A zero-latency fake of Apple's verifyReceipt for Benchmarks/submit-receipt.sh, served by the
// project's own HTTPServer so the fake costs little next to the server under test.
//
//   apple-fake --sample FILE [--listen 127.0.0.1:0] [--threads 1] [--distinct] [--server-api DIR]
//              [--layout apple|file]
//
// --layout: the answer as Apple lays it out (the default: compact, AppleLayout) or byte for
// byte as the sample file has it (pretty-printed; what this fake served before round 14).
//
// --server-api DIR also serves the App Store Server API's history and status endpoints
// (ServerAPIFake), writing DIR/root.pem and DIR/AuthKey.p8 for the server under test.
//
// Prints `apple-fake listening on ADDR ...`, then serves until killed (SIGTERM).

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("apple-fake: \(message)\n".utf8))
    exit(2)
}

var listen = "127.0.0.1:0"
var threads = 1
var samplePath: String?
var distinct = false
var serverAPIDirectory: String?
var layout = "apple"
var arguments = Array(CommandLine.arguments.dropFirst())[...]
@MainActor func value(of flag: String) -> String {
    guard let value = arguments.popFirst() else { fail("\(flag) needs a value") }
    return value
}
while let flag = arguments.popFirst() {
    switch flag {
    case "--listen": listen = value(of: flag)
    case "--threads":
        guard let n = Int(value(of: flag)), n > 0 else { fail("--threads needs a positive number") }
        threads = n
    case "--sample": samplePath = value(of: flag)
    case "--distinct": distinct = true
    case "--server-api": serverAPIDirectory = value(of: flag)
    case "--layout":
        layout = value(of: flag)
        guard layout == "apple" || layout == "file" else { fail("--layout is apple or file") }
    default: fail("unknown flag \(flag)")
    }
}
guard let samplePath, let sample = FileManager.default.contents(atPath: samplePath) else {
    fail("--sample FILE is required and must be readable")
}
guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]) else {
    fail("--listen must be HOST:PORT")
}
let template = SampleTemplate(layout == "apple" ? AppleLayout.asSent([UInt8](sample)) : [UInt8](sample))
guard template.idCount > 0 else { fail("no transaction ids found in \(samplePath)") }
let serverAPI: ServerAPIFake?
do {
    serverAPI = try serverAPIDirectory.map { try ServerAPIFake(directory: $0) }
} catch {
    fail("cannot set up the Server API fake: \(error)")
}
let service = FakeAppleService(template: template, distinct: distinct, serverAPI: serverAPI)
let configuration = ServerConfiguration(host: String(listen[..<colon]), port: port, threads: threads)
let server: HTTPServer
do {
    server = try HTTPServer(configuration: configuration, service: service)
} catch {
    fail("cannot listen on \(listen): \(error)")
}
server.start()
let details = "\(template.idCount) ids, distinct: \(distinct), \(template.raw.count) B, layout \(layout)"
FileHandle.standardOutput.write(Data("apple-fake listening on \(server.boundAddress) (\(details))\n".utf8))
while true { pause() }
