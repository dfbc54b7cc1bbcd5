/// Who is calling: the name its tokens-file line gives it and the roles that line grants.
///
/// A value, not a session: the RPC layer hands one to every handler (``RPCContext/principal``)
/// and the admin listener's pages can ask ``BearerTokenAuthenticator`` for one, so both check
/// roles and record actors the same way. The token never travels with it: logs and history
/// name the caller by ``actor`` only.
public struct Principal: Sendable, Hashable {
    /// What a token may do. A line without `roles=` gets ``all``, the meaning tokens had before
    /// roles existed, so no deployment loses access by upgrading.
    public enum Role: String, Sendable, Hashable, CaseIterable, Comparable {
        /// Reads the console.
        case viewer
        /// Reads the console and acts in it; grants and revokes promotional entitlements.
        case support
        /// Everything: every RPC, the admin listener's operations, the console.
        case admin
        /// Calls the service's RPCs (apps' backends), but not the operator ones.
        case rpc

        public static func < (lhs: Role, rhs: Role) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// The `name=` of the token's line; nil when the line gave none.
    public var name: String?
    public var roles: Set<Role>

    public init(name: String?, roles: Set<Role>) {
        self.name = name
        self.roles = roles
    }

    /// Every role: what a token line without `roles=` grants.
    public static let allRoles = Set(Role.allCases)
    /// The roles that may call a service RPC unless its registration says otherwise.
    public static let serviceCallers: Set<Role> = [.rpc, .admin]
    /// The roles that may act on a customer's entitlements by hand (grants, revocations).
    public static let operators: Set<Role> = [.support, .admin]

    /// The caller when the server has no tokens file: nobody is checked, so everyone may do
    /// everything, as before roles existed.
    public static let unchecked = Principal(name: nil, roles: allRoles)
    /// The caller of a method that needs no token (health checks): no name, no roles.
    public static let anonymous = Principal(name: nil, roles: [])

    /// Whether this caller holds at least one of `roles`.
    public func holdsAny(of roles: Set<Role>) -> Bool { !self.roles.isDisjoint(with: roles) }

    /// How history and logs name this caller: the token's name, or a placeholder that says
    /// none was given (never anything derived from the token).
    public var actor: String { name ?? "unnamed" }

    /// The roles, comma-separated in a stable order, as the tokens file spells them.
    public var roleList: String { roles.sorted().map(\.rawValue).joined(separator: ",") }

    /// What a caller without the needed role is told: which roles would do and where to grant them.
    public static func refusal(_ principal: Principal, needs roles: Set<Role>) -> String {
        let held = principal.roles.isEmpty ? "no roles" : "roles " + principal.roleList
        let needed = roles.sorted().map(\.rawValue).joined(separator: " or ")
        return "token '\(principal.actor)' has \(held); this needs \(needed): "
            + "add the role to its roles= in the tokens file"
    }
}
