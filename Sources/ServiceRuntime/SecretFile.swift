import Foundation
import Glibc

/// Reads a file of secrets (the bearer tokens file), refusing one every local user can read.
///
/// A tokens file readable by others hands any account on the machine (a compromised
/// unprivileged service, a shell user) the credentials of every caller. Refusing to load it,
/// at startup and on reload, makes the mistake loud instead of silent. Group read is allowed,
/// so a deployment can share the file with an operators' group. The mode is read from the open
/// descriptor (fstat), so it is the mode of the file actually read, symlinks followed.
public enum SecretFile {
    public struct ReadError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The file's contents as UTF-8; `path` is named in errors, which say how to fix them.
    public static func read(_ path: String) throws(ReadError) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ReadError(description: "\(path) cannot be read (missing, or not readable by this user)")
        }
        defer { try? handle.close() }
        var status = stat()
        guard fstat(handle.fileDescriptor, &status) == 0 else {
            throw ReadError(description: "\(path) cannot be examined: \(String(cString: strerror(errno)))")
        }
        if let problem = problem(mode: Int(status.st_mode), path: path) { throw ReadError(description: problem) }
        let data: Data
        do {
            data = try handle.readToEnd() ?? Data()
        } catch {
            throw ReadError(description: "\(path) cannot be read: \(error.localizedDescription)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ReadError(description: "\(path) is not UTF-8 text")
        }
        return text
    }

    /// Why a file with these permission bits must not hold secrets, or nil when it may.
    public static func problem(mode: Int, path: String) -> String? {
        guard mode & 0o004 != 0 else { return nil }
        let permissions = String(mode & 0o777, radix: 8)
        return "\(path) is readable by every user (mode \(permissions)): run `chmod 600 \(path)` "
            + "(or at least `chmod o-r \(path)`) so only entitlementd's user can read the secrets in it"
    }
}
