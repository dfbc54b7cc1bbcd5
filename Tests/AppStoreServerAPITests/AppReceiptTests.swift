@testable import AppStoreServerAPI
import Foundation
import JWS
import Testing

/// Transaction ids out of app receipts: receipts the tests build and sign (openssl CLI, a
/// throwaway P-256 key), a real App Store receipt, and bytes that are not receipts at all.
struct AppReceiptTests {
    @Test func aRealAppStoreReceiptYieldsItsInAppPurchase() throws {
        #expect(try AppReceipt.inAppPurchases(der: RealAppStoreReceipt.der)
                == [.init(transactionID: "1000000225325901", originalTransactionID: "1000000225325901")])
    }

    @Test func receiptsBuiltAndSignedByTheTestsYieldEveryInAppPurchaseInOrder() throws {
        let payload = ReceiptDER.payload([("1000", "1000"), ("1001", "1000"), ("2000", nil)])
        let purchases = try AppReceipt.inAppPurchases(der: try ReceiptDER.signed(payload))
        #expect(purchases == [.init(transactionID: "1000", originalTransactionID: "1000"),
                              .init(transactionID: "1001", originalTransactionID: "1000"),
                              .init(transactionID: "2000", originalTransactionID: "2000")])
    }

    @Test func aReceiptWithoutInAppPurchasesYieldsNone() throws {
        #expect(try AppReceipt.inAppPurchases(der: try ReceiptDER.signed(ReceiptDER.payload([]))) == [])
    }

    @Test(arguments: [
        [UInt8](), Array("not a receipt".utf8), [0x30, 0x03, 0x02, 0x01, 0x01], [0x30, 0x80, 0x30, 0x80],
        Array(RealAppStoreReceipt.der.prefix(600)),
    ])
    func bytesThatAreNotAReceiptThrow(_ bytes: [UInt8]) {
        #expect(throws: ASN1Error.self) { try AppReceipt.inAppPurchases(der: bytes) }
    }

    @Test func aPayloadThatIsNotASetThrows() throws {
        #expect(throws: ASN1Error.self) {
            try AppReceipt.inAppPurchases(der: try ReceiptDER.signed(ReceiptDER.utf8("hello")))
        }
    }
}

/// DER as Apple's receipt uses it, written out by hand so the tests do not share the parser's
/// code: ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }.
enum ReceiptDER {
    static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var length: [UInt8]
        if content.count < 0x80 {
            length = [UInt8(content.count)]
        } else {
            var n = content.count
            var bytes: [UInt8] = []
            while n > 0 { bytes.insert(UInt8(n & 0xff), at: 0); n >>= 8 }
            length = [0x80 | UInt8(bytes.count)] + bytes
        }
        return [tag] + length + content
    }

    static func integer(_ value: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var n = value
        repeat { bytes.insert(UInt8(n & 0xff), at: 0); n >>= 8 } while n > 0
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return tlv(0x02, bytes)
    }

    static func utf8(_ text: String) -> [UInt8] { tlv(0x0c, Array(text.utf8)) }

    static func attribute(_ type: Int, _ value: [UInt8]) -> [UInt8] {
        tlv(0x30, integer(type) + integer(1) + tlv(0x04, value))
    }

    static func payload(_ purchases: [(String, String?)]) -> [UInt8] {
        var attributes = [attribute(2, utf8("com.example.app"))]
        for (transaction, original) in purchases {
            var fields = [attribute(1702, utf8("com.example.app.pro")), attribute(1703, utf8(transaction))]
            if let original { fields.append(attribute(1705, utf8(original))) }
            attributes.append(attribute(17, tlv(0x31, fields.flatMap { $0 })))
        }
        return tlv(0x31, attributes.flatMap { $0 })
    }

    /// PKCS#7 SignedData over `content`, signed by a throwaway P-256 key with the openssl CLI.
    static func signed(_ content: [UInt8]) throws -> [UInt8] {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("receipt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                     "-subj", "/CN=Receipt Test", "-days", "1", "-keyout", "key.pem", "-out", "cert.pem"],
                    in: directory)
        try Data(content).write(to: directory.appendingPathComponent("payload.der"))
        return [UInt8](try openssl(["smime", "-sign", "-binary", "-nodetach", "-outform", "DER", "-signer", "cert.pem",
                                    "-inkey", "key.pem", "-in", "payload.der"], in: directory))
    }

    @discardableResult
    static func openssl(_ arguments: [String], in directory: URL) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.currentDirectoryURL = directory
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ASN1TestFailure(description: "openssl \(arguments.joined(separator: " ")) failed")
        }
        return output
    }
}

struct ASN1TestFailure: Error, CustomStringConvertible {
    var description: String
}
