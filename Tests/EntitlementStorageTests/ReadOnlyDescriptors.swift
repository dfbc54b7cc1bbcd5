import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Makes this process's writes to one file fail with an I/O error while its reads still work.
///
/// Why this way: SQLite turns a failed `pwrite` (here EBADF, on a descriptor opened read-only)
/// into SQLITE_IOERR_WRITE, the same answer a failing disk gives, and it needs no hook in the
/// store: every descriptor this process has open on `path` is pointed (dup2) at a read-only
/// description of the same file, and ``restore()`` puts the originals back. Call both on the
/// thread that owns the connections, while it does no I/O (e.g. in
/// `EntitlementStore.withWriterConnection`).
final class ReadOnlyDescriptors: @unchecked Sendable {
    private let path: String
    private var swapped: [(descriptor: Int32, original: Int32)] = []

    init(path: String) {
        self.path = path
    }

    /// Swaps every descriptor open on the file; throws if none is (nothing would fail).
    func swap() throws {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let readOnly = open(target, O_RDONLY)
        guard readOnly >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(readOnly) }
        // Resolve every descriptor before duplicating any: dup may reuse a number the listing
        // saw (the listing's own directory descriptor), which would then be swapped twice.
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { name in
            Int32(name).flatMap { descriptor in
                let opened = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")
                return descriptor != readOnly && opened == target ? descriptor : nil
            }
        }
        for descriptor in descriptors {
            let original = dup(descriptor)
            guard original >= 0, dup2(readOnly, descriptor) >= 0 else { throw POSIXError(.EIO) }
            swapped.append((descriptor, original))
        }
        guard !swapped.isEmpty else { throw POSIXError(.ENOENT) }
    }

    /// Points every swapped descriptor back at its original, writable description.
    func restore() {
        for (descriptor, original) in swapped {
            dup2(original, descriptor)
            close(original)
        }
        swapped.removeAll()
    }
}
