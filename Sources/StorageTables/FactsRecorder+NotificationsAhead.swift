import EntitlementPorts
import Entitlements
import SQLDatabase

/// The first stages of a batch's next notifications, sent with the first stage of the one
/// before them: on a server a run of notifications then waits once for all of their source
/// marks and first lookups instead of once each (docs/storage.md, "Notifications ahead").
extension FactsRecorder {
    /// A notification's first stage run ahead: its source mark (read into ``tally``), its first
    /// chain as found or created, and whether any of its transactions is stored.
    package struct NotificationFirstStage {
        package enum FirstChain {
            case stored(StoredChain)
            /// Not stored: created without an owner by the insert sent with its lookup.
            case created(Int64)
        }

        let source: HistoryEvent.Source
        let sourceID: String
        /// Holds the source mark's result, which the flush that read it counted into it.
        let tally: Tally
        /// When the mark was made: the notification's time.
        let now: Int64
        /// Nil when it has none or neither statement answered (its own lookup then runs).
        let firstChain: FirstChain?
        /// Whether none of its transactions is stored; nil when they were not looked up.
        let noneStored: Bool?
    }

    /// The statements one notification's first stage reads ahead: the recorder's own ones
    /// stay free for the notification being applied, whose lookups go in the same pipeline.
    /// Each lane's SQL differs by a comment, so each is its own prepared statement.
    package struct AheadLane {
        let findChain, insertOwnerlessChain: DB.Statement
        let anyTransactionStored: [DB.Statement]

        init(_ db: DB, lane: Int, insertOwnerlessChainSQL: String) throws {
            let tag = " /* ahead \(lane) */"
            findChain = try db.prepare(FactsRecorderSQL.findChain + tag)
            insertOwnerlessChain = try db.prepare(insertOwnerlessChainSQL + tag)
            anyTransactionStored = try FactsRecorderSQL.lookupWidths.map {
                try db.prepare(FactsRecorderSQL.anyTransactionStored(width: $0) + tag)
            }
        }

        func reset() {
            findChain.reset()
            insertOwnerlessChain.reset()
            for find in anyTransactionStored { find.reset() }
        }
    }

    /// The chain a notification's first lookup is about.
    package static func firstChainID(of notification: NotificationWrite) -> String? {
        notification.transactions.first?.originalTransactionID
            ?? notification.renewalInfos.first?.originalTransactionID
            ?? notification.events.first?.originalTransactionID
    }

    /// The longest prefix of `following` (the notifications queued right after `first`, in
    /// order) whose first stages may be sent with `first`'s, before `first` writes anything.
    ///
    /// Sound only for notifications that share no source, chain or transaction id with any
    /// notification before them from `first` on: what their first stages read and write
    /// (`processed_sources`, their first chain's row, their transactions' existence) is then
    /// what those writes leave alone, so it reads the same ahead as in turn. Two writes of one
    /// source id are never in one run, so the later one's mark still finds the earlier's.
    /// Empty where the engine runs nothing ahead (no lanes: SQLite).
    package func notificationsAhead(of first: NotificationWrite, following: [NotificationWrite])
        -> ArraySlice<NotificationWrite> {
        guard !statements.aheadLanes.isEmpty, !Self.hasOrphanEvent(first) else { return [] }
        var sources: Set<ExactID> = [Self.sourceKey(first)]
        var ids = Self.footprint(first)
        var count = 0
        for notification in following.prefix(statements.aheadLanes.count) {
            let footprint = Self.footprint(notification)
            guard !Self.hasOrphanEvent(notification), sources.insert(Self.sourceKey(notification)).inserted,
                  ids.isDisjoint(with: footprint) else { break }
            ids.formUnion(footprint)
            count += 1
        }
        return following.prefix(count)
    }

    private static func hasOrphanEvent(_ notification: NotificationWrite) -> Bool {
        notification.events.contains { $0.originalTransactionID.isEmpty }
    }

    private static func sourceKey(_ notification: NotificationWrite) -> ExactID {
        ExactID("\(notification.source.rawValue)\u{0}\(notification.sourceID)")
    }

    /// Every chain and transaction id a notification reads or writes (one set: a chain's id is
    /// its first transaction's, so a shared set only ever stops a run early).
    private static func footprint(_ notification: NotificationWrite) -> Set<ExactID> {
        var ids = Set<ExactID>()
        for transaction in notification.transactions {
            ids.insert(ExactID(transaction.transactionID))
            ids.insert(ExactID(transaction.originalTransactionID))
        }
        for info in notification.renewalInfos { ids.insert(ExactID(info.originalTransactionID)) }
        for event in notification.events {
            ids.insert(ExactID(event.originalTransactionID))
            ids.insert(ExactID(event.transactionID))
        }
        for id in notification.reversedRefunds { ids.insert(ExactID(id)) }
        for price in notification.prices { ids.insert(ExactID(price.transactionID)) }
        return ids
    }

    /// Sends the first stage of each of `notifications` on its own lane (marks through the
    /// recorder's statement, which holds no result), before the flush that reads them all.
    func sendFirstStages(of notifications: ArraySlice<NotificationWrite>, now: Int64) throws
        -> [(NotificationWrite, Tally)] {
        var sent: [(NotificationWrite, Tally)] = []
        for (notification, lane) in zip(notifications, statements.aheadLanes) {
            let tally = Tally()
            let mark = bindMarkProcessed(notification.source, notification.sourceID, userRow: nil, now: now)
            try db.executeDeferred(mark) { [tally] in tally.sourceWasProcessed = $0 == 0 }
            if let chainID = Self.firstChainID(of: notification) {
                DB.bindDecimalID(chainID, at: 1, of: lane.findChain)
                try db.prefetch(lane.findChain)
                DB.bindDecimalID(chainID, at: 1, of: lane.insertOwnerlessChain)
                try db.prefetch(lane.insertOwnerlessChain)
            }
            let ids = notification.transactions.map(\.transactionID)
            if !ids.isEmpty, ids.count <= FactsRecorderSQL.lookupWidths.last! {
                try db.prefetch(bindLookup(ids[...], in: lane.anyTransactionStored).0)
            }
            sent.append((notification, tally))
        }
        return sent
    }

    /// Reads what ``sendFirstStages(of:now:)`` sent, after the flush that answered it, binding
    /// each statement as it was sent (so its rows are the ones sent ahead); a statement the
    /// engine had not prepared yet runs now, still before any of those notifications writes.
    func readFirstStages(_ sent: [(NotificationWrite, Tally)], now: Int64) throws -> [NotificationFirstStage] {
        var stages: [NotificationFirstStage] = []
        for ((notification, tally), lane) in zip(sent, statements.aheadLanes) {
            defer { lane.reset() }
            var firstChain: NotificationFirstStage.FirstChain?
            if let chainID = Self.firstChainID(of: notification) {
                // Both stepped, lookup first, whatever it finds: so both are always prepared
                // together and the lookup never runs after the insert.
                DB.bindDecimalID(chainID, at: 1, of: lane.findChain)
                let stored = try lane.findChain.step()
                    ? StoredChain(row: lane.findChain.int64(at: 0), ownerRow: lane.findChain.optionalInt64(at: 1),
                                  ownerID: lane.findChain.optionalString(at: 2))
                    : nil
                DB.bindDecimalID(chainID, at: 1, of: lane.insertOwnerlessChain)
                let created = try lane.insertOwnerlessChain.step() ? lane.insertOwnerlessChain.int64(at: 0) : nil
                firstChain = stored.map(NotificationFirstStage.FirstChain.stored)
                    ?? created.map(NotificationFirstStage.FirstChain.created)
            }
            var noneStored: Bool?
            let ids = notification.transactions.map(\.transactionID)
            if !ids.isEmpty, ids.count <= FactsRecorderSQL.lookupWidths.last! {
                noneStored = try !bindLookup(ids[...], in: lane.anyTransactionStored).0.step()
            }
            stages.append(NotificationFirstStage(source: notification.source, sourceID: notification.sourceID,
                                                 tally: tally, now: now, firstChain: firstChain,
                                                 noneStored: noneStored))
        }
        return stages
    }

    /// The first stage sent ahead for `notification`, the next one kept (the writer applies
    /// notifications in the order their stages were sent); nil when it has none.
    package func takeFirstStage(for notification: NotificationWrite) -> NotificationFirstStage? {
        guard let stage = firstStagesAhead.first else { return nil }
        guard stage.source == notification.source, stage.sourceID.hasSameBytes(as: notification.sourceID) else {
            firstStagesAhead = []
            return nil
        }
        firstStagesAhead.removeFirst()
        return stage
    }
}
