import EntitlementAPI
import Foundation
import ServiceRuntime

/// Turns the contents of RECEIPT_FILE into the SubmitReceipt field it belongs in.
enum ReceiptInput {
    /// Reads `path` (`-` for stdin) and picks receipt_data or signed_transaction.
    static func request(user: String, path: String) throws(FlagError) -> EntitlementV1.SubmitReceiptRequest {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw FlagError("cannot read receipt file '\(path)': \(error.localizedDescription)")
            }
        }
        // Base64 tools wrap lines; neither base64 nor a JWS contains whitespace of its own.
        let text = String(decoding: data, as: UTF8.self).filter { !$0.isWhitespace }
        guard !text.isEmpty else {
            throw FlagError("receipt file '\(path)' is empty: it should hold base64 receipt data or a JWS")
        }
        if looksLikeJWS(text) {
            return EntitlementV1.SubmitReceiptRequest(userID: user, signedTransaction: text)
        }
        return EntitlementV1.SubmitReceiptRequest(userID: user, receiptData: text)
    }

    /// A JWS compact serialization is three non-empty base64url parts joined by dots; a
    /// base64 receipt never contains a dot.
    static func looksLikeJWS(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 3 && parts.allSatisfy { part in
            !part.isEmpty && part.utf8.allSatisfy { byte in
                (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
        }
    }
}
