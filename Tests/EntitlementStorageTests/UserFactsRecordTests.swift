import Entitlements
import SeededRandom
@testable import SQLiteStore
@testable import StorageCore
import StorageTables
import Testing

/// The read model's record format: every field round-trips, corrupt bytes are refused, never
/// misread, and an unknown version reads as "no record".
struct UserFactsRecordTests {
    static let full = Transaction(
        transactionID: "2000000123456789", originalTransactionID: "2000000123456700", productID: "pro.monthly",
        purchaseDateMs: 1_700_000_000_000, originalPurchaseDateMs: 1_690_000_000_000,
        expiresDateMs: 1_702_592_000_000, cancellationDateMs: 1_701_000_000_000, isTrialPeriod: true,
        isInIntroOfferPeriod: true, isUpgraded: true, subscriptionGroupIdentifier: "grp.pro",
        webOrderLineItemID: "2000000054321", inAppOwnershipType: "FAMILY_SHARED",
        appAccountToken: "5e5c4ea0-7a7b-4b5e-9c3e-6f6b6e6d6c6b", environment: .sandbox,
        declaredProductType: .nonRenewing)
    static let bare = Transaction(transactionID: "1", originalTransactionID: "1", productID: "coins.100",
                                  purchaseDateMs: -5)
    static let renewal = RenewalInfo(
        originalTransactionID: "2000000123456700", autoRenewStatus: true, autoRenewProductID: "pro.yearly",
        isInBillingRetryPeriod: true, gracePeriodExpiresDateMs: 1_703_000_000_000, expirationIntent: 2,
        signedDateMs: 1_702_000_000_000)
    static let quietRenewal = RenewalInfo(originalTransactionID: "1", autoRenewStatus: false, signedDateMs: 0)

    static let samples: [UserFacts] = [
        UserFacts(),
        UserFacts(transactions: [bare]),
        UserFacts(transactions: [full], renewalInfos: [full.originalTransactionID: renewal]),
        UserFacts(transactions: [full, bare, Transaction(
            transactionID: "2000000123456790", originalTransactionID: "2000000123456700", productID: "pro.monthly",
            purchaseDateMs: Int64.max, expiresDateMs: Int64.min, declaredProductType: .consumable)],
                  renewalInfos: ["2000000123456700": renewal, "1": quietRenewal]),
        // A chain known only by its renewal info.
        UserFacts(renewalInfos: ["1": quietRenewal]),
    ]

    @Test(arguments: samples)
    func roundTrips(_ facts: UserFacts) throws {
        let bytes = UserFactsRecord.encode(facts)
        let decoded = try bytes.withUnsafeBytes { try UserFactsRecord.decode($0) }
        #expect(decoded == facts)
        #expect(UserFactsRecord.encode(decoded!) == bytes, "equal facts encode to equal bytes")
    }

    @Test(arguments: samples)
    func everyTruncationIsRefused(_ facts: UserFacts) {
        let bytes = UserFactsRecord.encode(facts)
        for length in 0..<bytes.count {
            #expect(throws: UserFactsRecord.Malformed.self) {
                _ = try Array(bytes[..<length]).withUnsafeBytes { try UserFactsRecord.decode($0) }
            }
        }
        #expect(throws: UserFactsRecord.Malformed.self) {
            _ = try (bytes + [0]).withUnsafeBytes { try UserFactsRecord.decode($0) }
        }
    }

    @Test func anOutOfRangeReferenceIsRefused() {
        let bytes: [UInt8] = [3, 0, 0, 0, 1, 0, 0]
        // No strings, one transaction whose transaction id refers to string 0.
        #expect(throws: UserFactsRecord.Malformed.self) {
            _ = try bytes.withUnsafeBytes { try UserFactsRecord.decode($0) }
        }
    }

    /// A varint longer than 64 bits is corruption, read with ten bytes or more left in the
    /// record (the decoder's unchecked path) as near its end (byte by byte, where running out
    /// is the truncation ``everyTruncationIsRefused(_:)`` covers).
    @Test(arguments: [0, 16])
    func aVarintLongerThan64BitsIsRefused(trailingBytes: Int) {
        let bytes: [UInt8] = [3] + Array(repeating: 0x80, count: 10) + [1] + Array(repeating: 0, count: trailingBytes)
        #expect(throws: UserFactsRecord.Malformed.self) {
            _ = try bytes.withUnsafeBytes { try UserFactsRecord.decode($0) }
        }
    }

    /// The longest varints (10 bytes) read back on both paths: with room to spare and as the
    /// record's last bytes.
    @Test(arguments: [UInt64.max, 1 << 63, 1 << 56 - 1, 300] as [UInt64])
    func longVarintsReadBack(_ value: UInt64) throws {
        var encoded: [UInt8] = []
        encoded.appendVarint(value)
        try Self.expectReadBack(value, from: encoded) { try $0.varint() }
    }

    /// `read` gives `value` back from `encoded`, consuming exactly it, both with room to spare
    /// after it and as the record's last bytes.
    static func expectReadBack<Value: Equatable>(
        _ value: Value, from encoded: [UInt8],
        _ read: (inout RecordReader) throws -> Value
    ) throws {
        for padding in [0, 16] {
            let bytes = encoded + Array(repeating: 0, count: padding)
            let result = try bytes.withUnsafeBytes { raw in
                var reader = RecordReader(raw)
                return (try read(&reader), reader.offset)
            }
            #expect(result.0 == value)
            #expect(result.1 == encoded.count)
        }
    }

    /// Invalid UTF-8 (no version writes it) comes back repaired as `String(decoding:as:)`
    /// repairs it, never as bytes a String must not hold.
    @Test func invalidUTF8InAStringIsRepaired() throws {
        let bytes: [UInt8] = [0x61, 0xFF, 0x62, 0xE2, 0x82]
        let read = try bytes.withUnsafeBytes { raw in
            var reader = RecordReader(raw)
            return (try reader.string(length: bytes.count), reader.isAtEnd)
        }
        #expect(read.0 == String(decoding: bytes, as: UTF8.self))
        #expect(read.0.utf8.elementsEqual(String(decoding: bytes, as: UTF8.self).utf8))
        #expect(read.1)
    }

    /// Version 3's numbers are a running sum: one at 10^18 or past it, alone or as the sum of
    /// two steps, is corruption (the sum cannot wrap around either).
    @Test(arguments: [
        [1_000_000_000_000_000_000], [500_000_000_000_000_000, 500_000_000_000_000_000], [1, UInt64.max],
    ] as [[UInt64]])
    func aVersion3NumberAtOrPastTheLimitIsRefused(_ steps: [UInt64]) {
        var bytes: [UInt8] = [3]
        bytes.appendVarint(UInt64(steps.count))
        bytes.appendVarint(UInt64(steps.count))
        for step in steps { bytes.appendVarint(step) }
        bytes += [0, 0]
        #expect(throws: UserFactsRecord.Malformed.self) {
            _ = try bytes.withUnsafeBytes { try UserFactsRecord.decode($0) }
        }
    }

    /// The largest number the format holds, as one step and as the sum of several, reads back.
    @Test func version3NumbersUpToTheLimitReadBack() throws {
        let largest = "999999999999999999"
        let facts = UserFacts(transactions: [
            Transaction(transactionID: largest, originalTransactionID: "1", productID: "0", purchaseDateMs: 0),
        ])
        let bytes = UserFactsRecord.encode(facts)
        #expect(bytes[2] == 3, "three numbers")
        #expect(try bytes.withUnsafeBytes { try UserFactsRecord.decode($0) } == facts)
    }

    /// A span comes back exactly in every unit and at every edge, takes the largest unit that
    /// divides it, and a whole month of days fits in two bytes.
    @Test(arguments: [
        (0, 3, 1), (1, 0, 1), (-1, 0, 1), (1_000, 1, 1), (300_000, 2, 1), (86_400_000, 3, 1),
        (31 * 86_400_000, 3, 2), (-365 * 86_400_000, 3, 2), (2_678_400_001, 0, 5), (1_790_910_263_515, 0, 7),
        (Int64.max, 0, 10), (Int64.min, 0, 10), (Int64.max / 86_400_000 * 86_400_000, 3, 6),
        (Int64.min / 1_000 * 1_000, 1, 9),
    ] as [(Int64, UInt8, Int)])
    func spansReadBackInTheirUnit(_ milliseconds: Int64, unit: UInt8, size: Int) throws {
        var encoded: [UInt8] = []
        encoded.appendSpan(milliseconds)
        #expect(encoded.count == size)
        #expect(encoded[0] & 3 == unit)
        try Self.expectReadBack(milliseconds, from: encoded) { try $0.span() }
    }

    /// A span whose count needs more than 64 bits, or whose milliseconds overflow an Int64, is
    /// corruption.
    @Test(arguments: [
        // In milliseconds, a count of 2^64: the rest after the first byte's 5 bits is 2^59.
        [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x08],
        // In days, a count of about -2^56: 2^56 days are not an Int64 of milliseconds.
        [0x80 | 3 | 0x7c, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x07],
    ] as [[UInt8]])
    func aSpanTooLargeIsRefused(_ bytes: [UInt8]) {
        #expect(throws: UserFactsRecord.Malformed.self) {
            _ = try bytes.withUnsafeBytes { raw in
                var reader = RecordReader(raw)
                return try reader.span()
            }
        }
    }

    /// Version 3 codes the two ownership types Apple sends and keeps every other text, byte
    /// for byte: other cases, spaces, a canonically equivalent spelling are not the codes.
    @Test(arguments: ["PURCHASED", "FAMILY_SHARED", "purchased", "PURCHASED ", "FAMILY_SHARED\u{301}", "", "="])
    func ownershipTypesReadBackExactly(_ ownership: String) throws {
        let facts = UserFacts(transactions: [Transaction(
            transactionID: "1", originalTransactionID: "1", productID: "p", purchaseDateMs: 0,
            inAppOwnershipType: ownership)])
        let bytes = UserFactsRecord.encode(facts)
        let decoded = try #require(try bytes.withUnsafeBytes { try UserFactsRecord.decode($0) })
        #expect(decoded == facts)
        #expect(decoded.transactions[0].inAppOwnershipType.map { Array($0.utf8) } == Array(ownership.utf8))
        // The codes cost no string at all: only the table's two ids and the product remain.
        let coded = ownership == "PURCHASED" || ownership == "FAMILY_SHARED"
        #expect(bytes[1] == (coded ? 2 : 3))
    }

    /// The shape version 3 was made for: a monthly subscription renewed by Apple (16-digit
    /// transaction and web order ids from Apple's counters, each renewal starting where the
    /// last period ended, PURCHASED; its product id has `product_names` row 1): its 12 ids alone
    /// would take 96 bytes as plain 8-byte numbers (version 2's), its renewals' purchase dates 5
    /// bytes each; the whole record takes 130 bytes.
    @Test func aRenewedSubscriptionIsCompact() throws {
        let start: Int64 = 1_790_000_000_000
        let periods: [Int64] = [31, 30, 31, 31, 28, 31].map { $0 * 86_400_000 }
        var purchase = start
        var transactions: [Transaction] = []
        for (renewal, period) in periods.enumerated() {
            transactions.append(Transaction(
                transactionID: String(2_000_001_234_567_890 + renewal * 734_219),
                originalTransactionID: "2000001234567890",
                productID: "pro.monthly", purchaseDateMs: purchase, originalPurchaseDateMs: start,
                expiresDateMs: purchase + period, subscriptionGroupIdentifier: "21482456",
                webOrderLineItemID: String(2_000_000_098_765_432 + renewal * 412_907), inAppOwnershipType: "PURCHASED"))
            purchase += period
        }
        let facts = UserFacts(transactions: transactions, renewalInfos: ["2000001234567890": RenewalInfo(
            originalTransactionID: "2000001234567890", autoRenewStatus: true, autoRenewProductID: "pro.monthly",
            signedDateMs: purchase - 86_400_000)])
        let bytes = UserFactsRecord.encode(facts) { $0 == "pro.monthly" ? 1 : nil }
        #expect(try bytes.withUnsafeBytes { try UserFactsRecord.decode($0) { $0 == 1 ? "pro.monthly" : nil } } == facts)
        #expect(bytes.count <= 130, "\(bytes.count) bytes")
    }

    /// Product and group ids with a `product_names` row are stored as the row (ascending, as
    /// differences) and read back through it; numbers stay numbers, other strings text, and a
    /// string that is a product id here and an account token there is still one entry.
    @Test func namesAreStoredAsTheirRows() throws {
        let rows: [String: Int64] = ["pro.monthly": 7, "grp.pro": 3, "pro.yearly": 1_000_000, "tok": 12]
        let facts = UserFacts(transactions: [
            Transaction(transactionID: "10", originalTransactionID: "10", productID: "pro.monthly", purchaseDateMs: 0,
                        subscriptionGroupIdentifier: "grp.pro", appAccountToken: "pro.yearly"),
            Transaction(transactionID: "11", originalTransactionID: "10", productID: "21482456", purchaseDateMs: 5,
                        subscriptionGroupIdentifier: "unlisted", appAccountToken: "tok"),
        ], renewalInfos: ["10": RenewalInfo(originalTransactionID: "10", autoRenewStatus: true,
                                            autoRenewProductID: "pro.yearly", signedDateMs: 9)])
        let bytes = UserFactsRecord.encode(facts) { rows[$0] }
        // 3 numbers (10, 11, 21482456), 3 names (rows 3, 7, 1,000,000; "tok" is only a token),
        // 2 texts ("unlisted", "tok").
        #expect(Array(bytes[1...3]) == [8, 3, 3])
        #expect(!bytes.containsSubsequence(Array("pro.".utf8)), "no product id's text")
        let names = Dictionary(uniqueKeysWithValues: rows.map { ($0.value, $0.key) })
        let decoded = try bytes.withUnsafeBytes { try UserFactsRecord.decode($0) { names[$0] } }
        #expect(decoded == facts)
        #expect(decoded.map(Self.stringBytes) == Self.stringBytes(facts))
        // A row the reader cannot find makes the record malformed (the tables answer), never
        // another string.
        #expect(throws: UserFactsRecord.Malformed.self) {
            _ = try bytes.withUnsafeBytes { try UserFactsRecord.decode($0) { $0 == 7 ? nil : names[$0] } }
        }
    }

    /// Which strings become numbers: exactly those `String(value)` writes back byte for byte.
    @Test(arguments: [
        ("0", 0), ("7", 7), ("10", 10), ("2000000123456789", 2_000_000_123_456_789),
        ("999999999999999999", 999_999_999_999_999_999),
        ("1000000000000000000", nil), ("0123", nil), ("00", nil), ("", nil), ("+1", nil), ("-1", nil),
        (" 1", nil), ("1 ", nil), ("1.0", nil), ("1e3", nil), ("\u{FF11}", nil), ("\u{0661}", nil), ("12a", nil),
    ] as [(String, UInt64?)])
    func decimalText(_ text: String, _ value: UInt64?) {
        #expect(DecimalText.value(text) == value)
        // The same answer from the generic walk (the path of a string without contiguous bytes).
        #expect(DecimalText.value(utf8: text.utf8) == value)
        if let value { #expect(String(value) == text) }
    }

    /// Decoding a number writes exactly `String(value)`: every digit count, every digit in
    /// every place, and the edges of each power of ten.
    @Test func numbersReadBackAsTheirDecimalText() {
        var values: [UInt64] = [0, 999_999_999_999_999_999]
        var power: UInt64 = 1
        for _ in 0..<18 {
            values += [power - 1, power, power + 1, 2 * power - 1]
            for digit: UInt64 in 1...9 { values.append(digit * power) }
            power *= 10
        }
        var random = SplitMix64(seed: 18)
        for _ in 0..<10_000 { values.append(random.next() % 1_000_000_000_000_000_000) }
        for value in values {
            #expect(DecimalText.text(value) == String(value))
            #expect(DecimalText.text(value).utf8.elementsEqual(String(value).utf8))
        }
    }

    /// Random facts (ids numeric or not, leading zeros, non-ASCII, dates anywhere in Int64,
    /// transactions in any order) come back exactly and re-encode to the same bytes.
    @Test func randomFactsRoundTrip() throws {
        var random = SplitMix64(seed: 14)
        let ids = ["0", "1", "0123", "PURCHASED", "FAMILY_SHARED",
                   "2000000123456789", "99999999999999999999", "1000000000000000000",
                   "999999999999999999", "pro.monthly", "grp", "é", "e\u{301}", "", " 7", "7 "]
        let dates: [Int64] = [0, 1, -1, Int64.max, Int64.min, 1_700_000_000_000, -1_700_000_000_000, 86_400_000]
        func id() -> String { ids[Int(random.next() % UInt64(ids.count))] }
        func date() -> Int64 {
            random.next() % 3 == 0 ? Int64(bitPattern: random.next()) : dates[Int(random.next() % 8)]
        }
        func maybe<T>(_ value: @autoclosure () -> T) -> T? { random.next() % 2 == 0 ? value() : nil }
        for _ in 0..<2_000 {
            var facts = UserFacts()
            for _ in 0..<Int(random.next() % 5) {
                facts.transactions.append(Transaction(
                    transactionID: id(), originalTransactionID: id(), productID: id(), purchaseDateMs: date(),
                    originalPurchaseDateMs: date(), expiresDateMs: maybe(date()), cancellationDateMs: maybe(date()),
                    isTrialPeriod: random.next() % 2 == 0, isInIntroOfferPeriod: random.next() % 2 == 0,
                    isUpgraded: random.next() % 2 == 0, subscriptionGroupIdentifier: maybe(id()),
                    webOrderLineItemID: maybe(id()), inAppOwnershipType: maybe(id()), appAccountToken: maybe(id()),
                    environment: random.next() % 2 == 0 ? .production : .sandbox,
                    declaredProductType: maybe(ProductType.allCases[Int(random.next() % 4)])))
            }
            for _ in 0..<Int(random.next() % 3) {
                let chain = id()
                facts.renewalInfos[chain] = RenewalInfo(
                    originalTransactionID: chain, autoRenewStatus: random.next() % 2 == 0,
                    autoRenewProductID: maybe(id()), isInBillingRetryPeriod: random.next() % 2 == 0,
                    gracePeriodExpiresDateMs: maybe(date()), expirationIntent: maybe(Int(random.next() % 7)),
                    signedDateMs: date())
            }
            let bytes = UserFactsRecord.encode(facts)
            let decoded = try bytes.withUnsafeBytes { try UserFactsRecord.decode($0) }
            #expect(decoded == facts)
            // String equality is Unicode equivalence ("é" == "e\u{301}"): compare the bytes too.
            #expect(decoded.map(Self.stringBytes) == Self.stringBytes(facts), "every string byte for byte")
            #expect(decoded.map { UserFactsRecord.encode($0) } == bytes)
        }
    }

    /// Every string field of `facts`, as UTF-8 bytes, in a fixed order.
    static func stringBytes(_ facts: UserFacts) -> [[UInt8]] {
        let transactions = facts.transactions.flatMap { transaction in
            [transaction.transactionID, transaction.originalTransactionID, transaction.productID,
             transaction.subscriptionGroupIdentifier ?? "nil", transaction.webOrderLineItemID ?? "nil",
             transaction.inAppOwnershipType ?? "nil", transaction.appAccountToken ?? "nil"]
        }
        let infos = facts.renewalInfos.values.sorted {
            Array($0.originalTransactionID.utf8).lexicographicallyPrecedes(Array($1.originalTransactionID.utf8))
        }.flatMap { [$0.originalTransactionID, $0.autoRenewProductID ?? "nil"] }
        return (transactions + infos).map { Array($0.utf8) }
    }

    /// A newer binary's version, and versions 1 and 2 (migration `user_facts_drop_formats_1_and_2`
    /// deletes those records; one copied in later is still never misread).
    @Test(arguments: [UserFactsRecord.version + 1, 1, 2])
    func anUnknownVersionIsNoRecord(_ version: UInt8) throws {
        var bytes = UserFactsRecord.encode(Self.samples[2])
        bytes[0] = version
        #expect(try bytes.withUnsafeBytes { try UserFactsRecord.decode($0) } == nil)
    }

    /// The record stores these enums by position: reordering or inserting a case silently
    /// changes old records' meaning, so it must come with a new record version.
    @Test func theEnumOrderTheFormatDependsOnIsPinned() {
        #expect(Environment.allCases == [.production, .sandbox])
        // Promotional was appended (grants): the positions before it are unchanged, no transaction
        // declares it, and an older binary reads an index past its cases as malformed (the tables answer).
        #expect(ProductType.allCases == [.autoRenewable, .nonRenewing, .nonConsumable, .consumable, .promotional])
    }
}


/// The record's string table: each byte sequence once, canonically equivalent spellings apart.
struct UserFactsRecordStringTableTests {
    @Test func eachByteSequenceIsStoredOnce() throws {
        let products = ["é", "e\u{301}", "é", "e\u{301}", "pro.monthly", "pro.monthly"]
        let facts = UserFacts(transactions: products.enumerated().map { offset, product in
            Transaction(transactionID: "tx\(offset)", originalTransactionID: "chain", productID: product,
                        purchaseDateMs: Int64(offset))
        })
        let bytes = UserFactsRecord.encode(facts)
        // version, then the string count (a one-byte varint here): 6 transaction ids, "chain",
        // and the three distinct product spellings.
        #expect(bytes[0] == UserFactsRecord.version)
        #expect(bytes[1] == 6 + 1 + 3)
        let decoded = try bytes.withUnsafeBytes { try UserFactsRecord.decode($0) }
        let transactions = try #require(decoded).transactions
        #expect(transactions.map { Array($0.productID.utf8) } == products.map { Array($0.utf8) })
    }
}

extension [UInt8] {
    func containsSubsequence(_ other: [UInt8]) -> Bool {
        guard other.count <= count else { return false }
        return (0...(count - other.count)).contains { Array(self[$0..<($0 + other.count)]) == other }
    }
}
