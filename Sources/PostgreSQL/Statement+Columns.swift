internal import CPostgreSQL

/// Column readers over the binary result format, decoded by the column's type OID.
///
/// Integers (`int2`, `int4`, `int8`, `oid`), `bool`, `numeric` and `float8` read as numbers;
/// `text`, `varchar`, `char`, `name` and `bytea` as their bytes. Like SQLite, a reader converts
/// where it can (an integer column read as a string is its decimal text) and a NULL reads as
/// 0 / "" / no bytes; the `optional` readers tell NULL apart.
extension Statement {
    enum TypeOID {
        static let bool: UInt32 = 16, bytea: UInt32 = 17, name: UInt32 = 19, int8: UInt32 = 20
        static let int2: UInt32 = 21, int4: UInt32 = 23, text: UInt32 = 25, oid: UInt32 = 26
        static let float4: UInt32 = 700, float8: UInt32 = 701, bpchar: UInt32 = 1042
        static let varchar: UInt32 = 1043, numeric: UInt32 = 1700
    }

    /// The raw bytes of a column of the current row, and its type; `nil` for NULL or no row.
    private func cell(_ column: Int32) -> (bytes: UnsafeRawBufferPointer, type: UInt32)? {
        guard let result, row >= 0, row < PQntuples(result), column >= 0, column < PQnfields(result),
              PQgetisnull(result, row, column) == 0 else { return nil }
        let count = Int(PQgetlength(result, row, column))
        let base = UnsafeRawPointer(PQgetvalue(result, row, column))
        return (UnsafeRawBufferPointer(start: count == 0 ? nil : base, count: count), PQftype(result, column))
    }

    public func isNull(at column: Int32) -> Bool { cell(column) == nil }

    public func int64(at column: Int32) -> Int64 { optionalInt64(at: column) ?? 0 }

    public func optionalInt64(at column: Int32) -> Int64? {
        guard let (bytes, type) = cell(column) else { return nil }
        return BinaryValue.integer(bytes, type: type)
    }

    public func bool(at column: Int32) -> Bool { int64(at: column) != 0 }

    public func string(at column: Int32) -> String { optionalString(at: column) ?? "" }

    public func optionalString(at column: Int32) -> String? {
        guard let (bytes, type) = cell(column) else { return nil }
        return BinaryValue.text(bytes, type: type)
    }

    /// Lends the column's bytes (`bytea`'s bytes, or a text column's UTF-8) without copying;
    /// valid only inside `body`, before the next step or reset.
    public func withBytes<R, E: Error>(at column: Int32, _ body: (UnsafeRawBufferPointer) throws(E) -> R)
        throws(E) -> R {
        try body(cell(column)?.bytes ?? UnsafeRawBufferPointer(start: nil, count: 0))
    }
}

/// Decoding of PostgreSQL's binary wire format (big-endian integers, IEEE floats, base-10000
/// numerics). Pure, so it is tested with byte tables.
enum BinaryValue {
    typealias OID = Statement.TypeOID

    static func integer(_ bytes: UnsafeRawBufferPointer, type: UInt32) -> Int64? {
        switch type {
        case OID.int8 where bytes.count == 8: return Int64(bitPattern: bigEndian(bytes))
        case OID.int4 where bytes.count == 4: return Int64(Int32(bitPattern: UInt32(bigEndian(bytes))))
        case OID.int2 where bytes.count == 2: return Int64(Int16(bitPattern: UInt16(bigEndian(bytes))))
        case OID.oid where bytes.count == 4: return Int64(bigEndian(bytes))
        case OID.bool where bytes.count == 1: return bytes[0] == 0 ? 0 : 1
        case OID.float8 where bytes.count == 8:
            return Int64(exactly: Double(bitPattern: bigEndian(bytes)).rounded(.towardZero))
        case OID.float4 where bytes.count == 4:
            return Int64(exactly: Float(bitPattern: UInt32(bigEndian(bytes))).rounded(.towardZero))
        case OID.numeric: return numeric(bytes).flatMap { Int64($0.prefix { $0 != "." }) }
        default: return Int64(String(decoding: bytes, as: UTF8.self))
        }
    }

    static func text(_ bytes: UnsafeRawBufferPointer, type: UInt32) -> String {
        switch type {
        case OID.int8, OID.int4, OID.int2, OID.oid, OID.bool:
            return integer(bytes, type: type).map { String($0) } ?? ""
        case OID.float8 where bytes.count == 8: return String(Double(bitPattern: bigEndian(bytes)))
        case OID.float4 where bytes.count == 4: return String(Float(bitPattern: UInt32(bigEndian(bytes))))
        case OID.numeric: return numeric(bytes) ?? ""
        default: return String(decoding: bytes, as: UTF8.self)
        }
    }

    static func bigEndian(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// `numeric` as decimal text: ndigits, weight, sign, dscale, then base-10000 digits, the
    /// first of which is worth 10000^weight.
    static func numeric(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard bytes.count >= 8 else { return nil }
        func word(_ offset: Int) -> Int { Int(UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])) }
        let count = word(0), weight = Int(Int16(bitPattern: UInt16(word(2)))), sign = word(4), scale = word(6)
        guard bytes.count >= 8 + 2 * count else { return nil }
        if sign == 0xC000 { return "NaN" }
        let digits = (0..<count).map { word(8 + 2 * $0) }
        func digit(at position: Int) -> Int {
            let index = weight - position
            return index >= 0 && index < digits.count ? digits[index] : 0
        }
        var integerPart = ""
        if weight >= 0 {
            for position in stride(from: weight, through: 0, by: -1) {
                let group = String(digit(at: position))
                integerPart += integerPart.isEmpty ? group : String(repeating: "0", count: 4 - group.count) + group
            }
        }
        if integerPart.isEmpty { integerPart = "0" }
        var fraction = ""
        var position = -1
        while fraction.count < scale {
            let group = String(digit(at: position))
            fraction += String(repeating: "0", count: 4 - group.count) + group
            position -= 1
        }
        fraction = String(fraction.prefix(scale))
        let magnitude = scale > 0 ? integerPart + "." + fraction : integerPart
        let isZero = digits.allSatisfy { $0 == 0 }
        return sign == 0x4000 && !isZero ? "-" + magnitude : magnitude
    }
}
