/// The singleton lease of the replicas sharing this database.
extension PostgresEntitlementStore {
    /// A lease on a connection of its own, named `entitlementd-lease` in `pg_stat_activity`
    /// (unless the URL names one), which is how an operator finds the holder: the backend
    /// holding the advisory lock.
    public func makeSingletonLease(onChange: @escaping @Sendable (SingletonLease.Change) -> Void) -> SingletonLease? {
        let named = url["application_name"] == nil ? url.setting("application_name", to: "entitlementd-lease") : url
        return SingletonLease(configuration: .init(url: named), onChange: onChange)
    }
}
