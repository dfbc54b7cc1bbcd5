import EntitlementPorts
import Entitlements
import SQLDatabase

/// Applying a ``NotificationWrite``: facts per chain, for whoever owns it or for nobody yet.
extension FactsRecorder {
    /// Applies `notification` once per source id; adds the owners of the chains it is about to
    /// `affectedUsers`.
    ///
    /// Facts live per chain, so a chain no user owns yet simply gets a `chains` row without an
    /// owner: its transactions and renewal info are stored as usual (and become a user's the
    /// moment a receipt binds the chain), and its events wait in `pending_events`. Reversals
    /// are recorded first, so a cancellation in the same notification is judged against them.
    /// Events derived from its transactions carry its Apple type; the event of a happening it
    /// confirms (reported first by a receipt or another notification) gets the type in place.
    package func apply(_ notification: NotificationWrite, affectedUsers: inout Set<ExactID>) throws
        -> NotificationOutcome {
        let outcome = try applyLeavingResultsUnread(notification, affectedUsers: &affectedUsers)
        try db.flushDeferred()
        return outcome()
    }

    /// ``apply(_:affectedUsers:)`` without waiting for its deferred statements' results, as
    /// ``recordLeavingResultsUnread(_:affectedUsers:)`` records a write.
    ///
    /// `stage`: its first stage, already run ahead (``takeFirstStage(for:)``). `ahead`: the
    /// notifications after it whose first stages go with its own
    /// (``notificationsAhead(of:following:)``), kept in ``firstStagesAhead``.
    package func applyLeavingResultsUnread(
        _ notification: NotificationWrite, affectedUsers: inout Set<ExactID>,
        stage: NotificationFirstStage? = nil, ahead: ArraySlice<NotificationWrite> = []
    ) throws -> () -> NotificationOutcome {
        let tally = stage?.tally ?? Tally()
        self.tally = tally
        rowLists = RowLists()
        let outcome = try applyFacts(notification, affectedUsers: &affectedUsers, stage: stage, ahead: ahead)
        return {
            var complete = outcome
            complete.newEvents += tally.newEvents
            return complete
        }
    }

    private func applyFacts(
        _ notification: NotificationWrite, affectedUsers: inout Set<ExactID>,
        stage: NotificationFirstStage?, ahead: ArraySlice<NotificationWrite>
    ) throws -> NotificationOutcome {
        namesStoredThisWrite.removeAll(keepingCapacity: true)
        if let orphan = notification.events.first(where: { $0.originalTransactionID.isEmpty }) {
            throw StoreError.eventWithoutChain(sourceID: notification.sourceID, eventID: orphan.eventID)
        }
        let now = stage?.now ?? clock()
        defer { dropPrefetches() }
        let firstChain = Self.firstChainID(of: notification)
        var chainSent = false
        if stage == nil {
            // The source's mark and the first lookups go together, with the next notifications'
            // (``notificationsAhead(of:following:)``): one wait on a server for all of them.
            let mark = bindMarkProcessed(notification.source, notification.sourceID, userRow: nil, now: now)
            try db.executeDeferred(mark) { [tally] in tally.sourceWasProcessed = $0 == 0 }
            try prefetchFirstReads(userID: nil, chainID: firstChain,
                                   transactionIDs: notification.transactions.map(\.transactionID))
            chainSent = try firstChain.map(prefetchOwnerlessChain) ?? false
            let sentAhead = try sendFirstStages(of: ahead, now: now)
            try db.flushDeferred()
            firstStagesAhead = try readFirstStages(sentAhead, now: now)
        } else if tally.sourceWasProcessed == nil {
            try db.flushDeferred()
        }
        if tally.sourceWasProcessed == true { return NotificationOutcome(duplicate: true) }
        var outcome = NotificationOutcome()
        var owners = Set<ExactID>()
        for transactionID in notification.reversedRefunds {
            if let owner = try reverseRefund(of: transactionID, at: notification.signedDateMs) {
                owners.insert(ExactID(owner))
            }
        }

        var chains: [ExactID: StoredChain] = [:]
        var newChains = Set<ExactID>()
        let chainIDs = notification.transactions.map(\.originalTransactionID)
            + notification.renewalInfos.map(\.originalTransactionID)
            + notification.events.map(\.originalTransactionID)
        for chainID in chainIDs where chains[ExactID(chainID)] == nil {
            let isFirst = firstChain?.hasSameBytes(as: chainID) == true
            // The first chain as its first stage found or created it, when that ran ahead.
            let known = isFirst ? stage?.firstChain : nil
            let found: StoredChain
            if case let .stored(stored)? = known {
                found = stored
            } else if known == nil, let stored = try findChain(chainID) {
                found = stored
            } else {
                let created: Int64? = if case let .created(row)? = known { row } else { nil }
                let row = try created ?? ownerlessChainRow(chainID, sent: chainSent && isFirst, now: now)
                found = StoredChain(row: row)
                newChains.insert(ExactID(chainID))
                // Created just now, so it contributed nothing: no read of it before COMMIT's.
                try noteRollupChain(found.row, isNew: true)
            }
            let chain = try bindByToken(found, chainID: chainID, transactions: notification.transactions,
                                        source: notification.source, now: now, outcome: &outcome,
                                        affectedUsers: &affectedUsers)
            if let ownerID = chain.ownerID { owners.insert(ExactID(ownerID)) }
            chains[ExactID(chainID)] = chain
        }
        // As ``record(_:affectedUsers:)`` does for the transactions of chains it created.
        let inNewChains = notification.transactions.filter { newChains.contains(ExactID($0.originalTransactionID)) }
        var absent = Set<ExactID>()
        // None of all its transactions stored (looked up ahead) means none of these either.
        if !inNewChains.isEmpty, try stage?.noneStored == true || noneStored(inNewChains.map(\.transactionID)) {
            absent = Set(inNewChains.map { ExactID($0.transactionID) })
        }
        for transaction in notification.transactions {
            let (chainKey, chain) = chains[chains.index(forKey: ExactID(transaction.originalTransactionID))!]
            let isAbsent = newChains.contains(chainKey) && absent.remove(ExactID(transaction.transactionID)) != nil
            let stored = try store(transaction, chainRow: chain.row, chainID: chainKey.text,
                                   source: notification.source, notification: notification.report, isAbsent: isAbsent)
            if stored.isNew { outcome.newTransactions += 1 }
            for event in stored.events { try insertDeferred(event, into: chain, target: stored.target) }
            if let confirmation = stored.confirmation { try confirm(confirmation) }
        }
        try flushRowLists()
        try recordPrices(notification.prices)
        try recordUpgrade(notification, chains: chains, outcome: &outcome)
        for info in notification.renewalInfos {
            try upsert(info, chainRow: chains[ExactID(info.originalTransactionID)]!.row)
        }
        for event in notification.events {
            try insertDeferred(event, into: chains[ExactID(event.originalTransactionID)]!)
        }
        try flushRowLists()
        outcome.ownerUserIDs = owners.sorted().map(\.text)
        affectedUsers.formUnion(owners)
        return outcome
    }

    /// Records the PRODUCT_CHANGE of a V2 upgrade against the plan it replaced, found among
    /// the chain's stored transactions (``HistoryDerivation/upgrade(to:chain:source:notification:)``),
    /// or names it when a receipt or V1 CANCEL recorded it first.
    private func recordUpgrade(_ notification: NotificationWrite, chains: [ExactID: StoredChain],
                               outcome: inout NotificationOutcome) throws {
        guard let report = notification.report, report.happening == .upgrade,
              let newPlan = notification.transactions.first(where: {
                  $0.transactionID == report.subjectTransactionID
              }),
              let chain = chains[ExactID(newPlan.originalTransactionID)],
              let upgrade = HistoryDerivation.upgrade(
                  to: newPlan, chain: try storedTransactions(chainRow: chain.row),
                  source: notification.source, notification: report)
        else { return }
        if try insert(upgrade.event, into: chain) { outcome.newEvents += 1 }
        try confirm(upgrade.confirmation)
    }

    /// Applies `confirmation` to the event it names, owned or still waiting for an owner (ids
    /// are unique across both tables); its id, date and source stay, so it remains one event.
    package func confirm(_ confirmation: HistoryConfirmation) throws {
        guard !confirmation.eventIDs.isEmpty else { return }
        try flushRowLists()
        let ids = Array(repeating: "?", count: confirmation.eventIDs.count).joined(separator: ", ")
        for table in ["history_events", "pending_events"] {
            let update = try db.prepare("""
                UPDATE \(table) SET apple_notification_type = ?1, kind = COALESCE(?2, kind)
                WHERE (CAST(?3 AS BIGINT) IS NULL OR occurred_at_ms = ?3) AND event_id IN (\(ids))
                """)
            update.bind(confirmation.appleNotificationType, at: 1)
            update.bind(confirmation.kind.map(StorageCodes.code), at: 2)
            update.bind(confirmation.occurredAtMs, at: 3)
            for (index, id) in confirmation.eventIDs.enumerated() {
                if table == "history_events" {
                    DB.bindHistoryEventID(id, at: Int32(index + 4), of: update)
                } else {
                    update.bind(id, at: Int32(index + 4))
                }
            }
            try update.execute()
        }
    }
}
