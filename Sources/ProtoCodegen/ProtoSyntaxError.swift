/// Why a .proto file cannot be turned into Swift, and where: the build fails with this message.
///
/// The description is `file:line: error: message`, the form compilers print, so SwiftPM and
/// editors point at the offending line of the .proto rather than at the generator.
public struct ProtoSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The .proto path as given to the generator.
    public var file: String
    /// 1-based line of the token the parser stopped at.
    public var line: Int
    /// What is wrong and what to write instead.
    public var message: String

    public var description: String { "\(file):\(line): error: \(message)" }
}
