/// How a transaction's `in_app_ownership_type` is stored: Apple sends one of
/// two names on nearly every transaction, 9 and 13 bytes repeated on every row, so the two
/// known names are stored as the shortest texts that cannot mean anything else: PURCHASED as
/// the empty text (no payload bytes in SQLite) and FAMILY_SHARED as "F". Every other value is
/// kept exactly, behind a "=" marker, so no text Apple may send is lost or read back as
/// another; nil stays NULL. Text on both engines (no per-engine SQL): the shared statements
/// bind ``stored(_:)`` and decode with ``ownershipType(stored:)``.
///
/// Part of the on-disk format, written by both engines' migration
/// `transactions_ownership_type_text` (``Schema/ownershipTypeText``): never change a mapping.
package enum OwnershipTypeText {
    package static let purchased = "PURCHASED"
    package static let familyShared = "FAMILY_SHARED"

    /// The column value for `ownershipType`.
    package static func stored(_ ownershipType: String?) -> String? {
        switch ownershipType {
        case nil: nil
        case purchased: ""
        case familyShared: "F"
        case let other?: "=" + other
        }
    }

    /// The ownership type a column value stands for (the inverse of ``stored(_:)``). A value
    /// this mapping never writes (no "=" and neither known code) reads as itself.
    package static func ownershipType(stored: String?) -> String? {
        guard let stored else { return nil }
        switch stored {
        case "": return purchased
        case "F": return familyShared
        default: return stored.hasPrefix("=") ? String(stored.dropFirst()) : stored
        }
    }
}
