import Entitlements
import Foundation

/// The content of an App Store app receipt, DER-encoded the way Apple's is: a SET of
/// attributes `SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`, where type 17 is
/// one in-app purchase receipt whose value is itself such a SET (1701 quantity, 1702 product_id,
/// 1703 transaction_id, 1704 purchase_date, 1705 original_transaction_id, 1706
/// original_purchase_date, 1708 expires_date, 1711 web_order_line_item_id, 1712
/// cancellation_date).
///
/// So the simulator's receipts are what a service migrating off verifyReceipt reads locally
/// (Apple's ReceiptUtility reads 1703/1705 to ask the App Store Server API); wrapped in PKCS#7
/// SignedData by the simulator's PKI. Pure: bytes in, bytes out.
enum AppReceiptPayload {
    static func encode(
        bundleID: String, bundleVersion: String, createdAtMs: Int64, inApp: [Transaction],
        nonce: [UInt8]
    ) -> [UInt8] {
        var attributes = [
            attribute(2, utf8(bundleID)), attribute(3, utf8(bundleVersion)), attribute(19, utf8(bundleVersion)),
            attribute(12, ia5(date(createdAtMs))), attribute(4, DER.octetString(nonce)),
        ]
        for transaction in inApp {
            var fields = [
                attribute(1701, DER.integer(1)), attribute(1702, utf8(transaction.productID)),
                attribute(1703, utf8(transaction.transactionID)),
                attribute(1705, utf8(transaction.originalTransactionID)),
                attribute(1704, ia5(date(transaction.purchaseDateMs))),
                attribute(1706, ia5(date(transaction.originalPurchaseDateMs))),
            ]
            if let expires = transaction.expiresDateMs { fields.append(attribute(1708, ia5(date(expires)))) }
            if let cancelled = transaction.cancellationDateMs {
                fields.append(attribute(1712, ia5(date(cancelled))))
            }
            if let line = transaction.webOrderLineItemID.flatMap({ Int64($0) }) {
                fields.append(attribute(1711, DER.integer(line)))
            }
            attributes.append(attribute(17, DER.set(fields)))
        }
        return DER.set(attributes)
    }

    private static func attribute(_ type: Int64, _ value: [UInt8]) -> [UInt8] {
        DER.sequence([DER.integer(type), DER.integer(1), DER.octetString(value)])
    }

    private static func utf8(_ text: String) -> [UInt8] { DER.element(0x0C, Array(text.utf8)) }
    private static func ia5(_ text: String) -> [UInt8] { DER.element(0x16, Array(text.utf8)) }

    /// Apple's receipt dates: RFC 3339 in UTC, whole seconds.
    private static func date(_ unixMs: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: Double(unixMs) / 1000))
    }
}

/// The few DER encodings a receipt needs (X.690): definite lengths, minimal integers, and SET
/// OF elements sorted by their encodings.
enum DER {
    static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        [tag] + length(content.count) + content
    }

    static func sequence(_ elements: [[UInt8]]) -> [UInt8] { element(0x30, elements.flatMap { $0 }) }

    static func set(_ elements: [[UInt8]]) -> [UInt8] {
        element(0x31, elements.sorted { $0.lexicographicallyPrecedes($1) }.flatMap { $0 })
    }

    static func octetString(_ bytes: [UInt8]) -> [UInt8] { element(0x04, bytes) }

    /// A non-negative INTEGER in the fewest bytes, with a leading zero when the top bit is set.
    static func integer(_ value: Int64) -> [UInt8] {
        var bytes = withUnsafeBytes(of: value.bigEndian, Array.init)
        while bytes.count > 1, bytes[0] == 0, bytes[1] & 0x80 == 0 { bytes.removeFirst() }
        return element(0x02, bytes)
    }

    static func length(_ count: Int) -> [UInt8] {
        guard count >= 0x80 else { return [UInt8(count)] }
        var bytes = withUnsafeBytes(of: UInt64(count).bigEndian, Array.init)
        while bytes.first == 0 { bytes.removeFirst() }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}
