/// The code of one layer's error: what a caller switches on, as GRPCCore's `RPCError.Code`.
///
/// A struct, not a public enum, so a layer can add codes without breaking callers' `switch`es
/// (STYLE.md, item 5); one generic instead of a struct over a private enum in every layer.
/// ``Owner`` (the error type) keeps each layer's codes apart: a `StoreError` code never equals a
/// `JWSError` code of the same name. Codes are minted only inside this package, each as a static
/// member of `ErrorCode<Owner>` beside its owner, so callers hold the set the owner declares.
public struct ErrorCode<Owner>: Hashable, Sendable, CustomStringConvertible {
    /// The code's name as logs, metric labels and messages show it; also its identity, so an
    /// owner gives each of its codes a name of its own.
    public let description: String

    package init(_ name: String) {
        description = name
    }
}
