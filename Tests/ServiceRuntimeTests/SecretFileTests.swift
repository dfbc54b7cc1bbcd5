import Foundation
import ServiceRuntime
import XCTest

final class SecretFileTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("secret-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func write(_ name: String, mode: Int, _ text: String = "token-a\n") throws -> String {
        let path = directory.appendingPathComponent(name).path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    /// Others' read bit decides; owner and group bits do not.
    func testModeRule() {
        let table: [(Int, Bool)] = [
            (0o600, true), (0o400, true), (0o640, true), (0o660, true), (0o700, true), (0o000, true),
            (0o644, false), (0o604, false), (0o666, false), (0o444, false), (0o755, false), (0o100644, false),
        ]
        for (mode, allowed) in table {
            XCTAssertEqual(SecretFile.problem(mode: mode, path: "/t") == nil, allowed, String(mode, radix: 8))
        }
    }

    func testReadsAPrivateFile() throws {
        XCTAssertEqual(try SecretFile.read(try write("tokens", mode: 0o600, "a\nb\n")), "a\nb\n")
        XCTAssertEqual(try SecretFile.read(try write("group", mode: 0o640)), "token-a\n")
    }

    func testRefusesAWorldReadableFileSayingHowToFixIt() throws {
        let path = try write("tokens", mode: 0o644)
        XCTAssertThrowsError(try SecretFile.read(path)) { error in
            let message = "\(error)"
            XCTAssertTrue(message.contains("chmod 600 \(path)"), message)
            XCTAssertTrue(message.contains("644"), message)
            XCTAssertFalse(message.contains("token-a"), "the error must not quote the secrets")
        }
    }

    /// The mode checked is the target's: a private file behind a symlink (how Kubernetes mounts
    /// secrets) is accepted, a world-readable one behind it refused.
    func testFollowsSymlinks() throws {
        let link = directory.appendingPathComponent("link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: try write("real", mode: 0o600))
        XCTAssertEqual(try SecretFile.read(link), "token-a\n")
        let open = directory.appendingPathComponent("open-link").path
        try FileManager.default.createSymbolicLink(atPath: open, withDestinationPath: try write("open", mode: 0o644))
        XCTAssertThrowsError(try SecretFile.read(open))
    }

    func testMissingFileNamesThePath() {
        let path = directory.appendingPathComponent("missing").path
        XCTAssertThrowsError(try SecretFile.read(path)) { error in
            XCTAssertTrue("\(error)".contains(path))
        }
    }
}
