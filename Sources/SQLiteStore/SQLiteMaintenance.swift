import EntitlementPorts
import Foundation
import SQLite
import StorageCore

/// `entitlementd backup` and `verify-store` on a SQLite store.
package enum SQLiteMaintenance {
    /// Copies the store at `source` to a new file at `destination` while a server may be
    /// writing to it (``Connection/backup(to:pagesPerStep:progress:)``): the copy holds every
    /// commit made before it began. Written under a temporary name in the destination's folder,
    /// fsynced, then renamed, so `destination` is never a partial copy, even after a crash.
    /// Returns the copy's size in bytes.
    package static func backup(from source: String, to destination: String,
                               progress: (_ copied: Int, _ total: Int) -> Void) throws -> Int {
        let db = try Connection(path: source, options: .init(create: false))
        defer { db.close() }
        guard try Schema.migrator.currentVersion(db) > 0 else {
            throw StoreError(code: .storageFailure,
                             message: "\(source) is not an entitlementd store (it has no schema version)")
        }
        let partial = destination + ".partial-\(ProcessInfo.processInfo.processIdentifier)"
        try? FileManager.default.removeItem(atPath: partial)
        do {
            // 4 MiB (1 KiB pages) per step: a progress line per step stays readable for big files.
            try db.backup(to: partial, pagesPerStep: 4_096, progress: progress)
            try syncFile(partial)
            guard rename(partial, destination) == 0 else {
                throw StoreError(code: .storageFailure,
                                 message: "cannot rename \(partial) to \(destination): \(errnoText())")
            }
            try syncFile((destination as NSString).deletingLastPathComponent.isEmpty
                ? "." : (destination as NSString).deletingLastPathComponent)
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
        let size = try FileManager.default.attributesOfItem(atPath: destination)[.size] as? Int
        return size ?? 0
    }

    /// Integrity, references and records of the store at `path`.
    package static func verify(path: String) throws -> StoreCheck {
        let db = try Connection(path: path, options: .init(create: false))
        defer { db.close() }
        let version = try Schema.migrator.currentVersion(db)
        guard version > 0 else {
            throw StoreError(code: .storageFailure,
                             message: "\(path) is not an entitlementd store (it has no schema version)")
        }
        var check = StoreCheck(schemaVersion: version, latestVersion: Schema.migrator.latestVersion)
        let integrity = try db.prepare("PRAGMA integrity_check(20)")
        while try integrity.step() {
            let line = integrity.string(at: 0)
            if line != "ok" { check.structureProblems.append(line) }
        }
        integrity.reset()
        let references = try db.prepare("PRAGMA foreign_key_check")
        while try references.step() {
            check.structureProblems.append("row \(references.int64(at: 1)) of \(references.string(at: 0)) refers "
                                           + "to a missing row of \(references.string(at: 2))")
        }
        references.reset()
        if version == check.latestVersion {
            // One snapshot for records and tables, so a server writing meanwhile is no finding.
            try db.transaction(beginning: ["BEGIN DEFERRED"]) {
                check.records = try StoreVerifier.verifyRecords(db)
            }
        }
        return check
    }

    private static func syncFile(_ path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw StoreError(code: .storageFailure, message: "cannot open \(path) to sync it: \(errnoText())")
        }
        defer { close(fd) }
        guard fsync(fd) == 0 else {
            throw StoreError(code: .storageFailure, message: "cannot sync \(path) to disk: \(errnoText())")
        }
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
