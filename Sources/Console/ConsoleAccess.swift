import RPCCore

/// Who may do what in the console, in one place the pages and the action routes both ask.
///
/// viewer reads; support and admin also act (grant, revoke, refresh), as with the operator
/// RPCs (``Principal/operators``). A token line without `roles=` holds every role and so keeps
/// every right. `rpc` alone is for backends and opens nothing here.
public enum ConsoleAccess {
    /// The roles that may sign in and read pages.
    public static let readers: Set<Principal.Role> = [.viewer, .support, .admin]
    /// The roles that may act on a customer.
    public static let actors: Set<Principal.Role> = Principal.operators

    public static func mayRead(_ principal: Principal) -> Bool { principal.holdsAny(of: readers) }

    public static func mayAct(_ principal: Principal) -> Bool { principal.holdsAny(of: actors) }
}
