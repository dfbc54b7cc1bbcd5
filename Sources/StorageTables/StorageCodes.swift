import Entitlements

/// The small integers rows store for a closed vocabulary (one byte each in
/// SQLite instead of the names' 7 to 18): an event's kind, environment and source, and a
/// transaction's environment.
///
/// The numbers are part of the on-disk format, written by both engines' migrations
/// (`history_events_compact_codes`, `transactions_environment_code`): never renumber one, give
/// a new case the next number. A
/// code this binary does not know reads as ``HistoryEvent/Kind/other`` (kind), production
/// (environment) or receipt (source), as an unknown name did before.
package enum StorageCodes {
    package static func code(_ kind: HistoryEvent.Kind) -> Int64 {
        switch kind {
        case .other: 0
        case .purchase: 1
        case .renewal: 2
        case .expired: 3
        case .refund: 4
        case .revoke: 5
        case .autoRenewDisabled: 6
        case .autoRenewEnabled: 7
        case .billingRetry: 8
        case .gracePeriod: 9
        case .billingRecovered: 10
        case .productChange: 11
        case .ownershipTransfer: 12
        case .claimRefused: 13
        case .grant: 14
        case .grantRevoked: 15
        case .renewalExtended: 16
        case .consumptionRequest: 17
        case .refundDeclined: 18
        case .refreshed: 19
        }
    }

    package static func kind(_ code: Int64) -> HistoryEvent.Kind {
        kindsByCode[code] ?? .other
    }

    package static func code(_ environment: Environment) -> Int64 {
        switch environment {
        case .production: 0
        case .sandbox: 1
        }
    }

    package static func environment(_ code: Int64) -> Environment {
        code == 1 ? .sandbox : .production
    }

    package static func code(_ source: HistoryEvent.Source) -> Int64 {
        switch source {
        case .receipt: 0
        case .notificationV1: 1
        case .notificationV2: 2
        case .operator: 3
        }
    }

    package static func source(_ code: Int64) -> HistoryEvent.Source {
        switch code {
        case 1: .notificationV1
        case 2: .notificationV2
        case 3: .operator
        default: .receipt
        }
    }

    private static let kindsByCode = Dictionary(
        uniqueKeysWithValues: HistoryEvent.Kind.allCases.map { (code($0), $0) })
}
