import StorageTables

/// The users a batch of writes touched, each once, in the order they first appeared.
///
/// The writer refreshes `user_facts` records in this order because it is the order the users'
/// `users` rows (and so the records' row ids) were created: a new user's record is then an
/// append, not an insert into the middle of the table that splits a page half empty.
package struct UsersInFirstSeenOrder {
    /// The same users as ``inOrder``, for membership and cache invalidation.
    private(set) var users = Set<ExactID>()
    private(set) var inOrder: [ExactID] = []

    /// Adds the users one write touched; those already present keep their place.
    package mutating func add(_ touched: Set<ExactID>) {
        for user in touched where users.insert(user).inserted { inOrder.append(user) }
    }
}
