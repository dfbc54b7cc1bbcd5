import Testing
@testable import PostgreSQL

/// Values go in as text (bytea binary) and come back in binary, decoded by column type.
@Suite(.enabled(if: TestDatabase.isConfigured, TestDatabase.skipReason))
struct ValueTests {
    @Test func everyColumnTypeRoundTrips() async throws {
        try await withDatabase { database in
            let connection = try database.connect()
            try connection.execute("""
                CREATE TABLE v (id BIGSERIAL PRIMARY KEY, i2 SMALLINT, i4 INTEGER, i8 BIGINT, b BOOLEAN,
                                flag INTEGER, t TEXT, vc VARCHAR(40), bytes BYTEA)
                """)
            let rows: [(Int64, Int64, Int64, Bool, String, String, [UInt8])] = [
                (-32768, Int64(Int32.min), Int64.min, true, "", "a", []),
                (32767, Int64(Int32.max), Int64.max, false, "naïve ☃ 'quoted' ?", "ü", [0, 1, 255]),
                (0, 0, 1_700_000_000_123, true, String(repeating: "x", count: 10_000), "", Array(0...255)),
            ]
            let insert = try connection.prepare(
                "INSERT INTO v (i2, i4, i8, b, flag, t, vc, bytes) VALUES (?, ?, ?, ?, ?5, ?, ?, ?) RETURNING id")
            var ids: [Int64] = []
            for row in rows {
                insert.bind(row.0, at: 1)
                insert.bind(row.1, at: 2)
                insert.bind(row.2, at: 3)
                insert.bind(row.3, at: 4)
                insert.bind(row.3, at: 5)  // a Bool into an INTEGER column, as the SQLite schema has them
                insert.bind(row.4, at: 6)
                insert.bind(row.5, at: 7)
                insert.bind(blob: row.6, at: 8)
                #expect(try insert.step())
                ids.append(insert.int64(at: 0))
                #expect(try !insert.step())
                insert.reset()
            }
            #expect(ids == [1, 2, 3])
            let select = try connection.prepare("SELECT i2, i4, i8, b, flag, t, vc, bytes FROM v ORDER BY id")
            for row in rows {
                #expect(try select.step())
                #expect(select.int64(at: 0) == row.0)
                #expect(select.int64(at: 1) == row.1)
                #expect(select.int64(at: 2) == row.2)
                #expect(select.bool(at: 3) == row.3)
                #expect(select.bool(at: 4) == row.3)
                #expect(select.string(at: 5) == row.4)
                #expect(select.string(at: 6) == row.5)
                #expect(select.withBytes(at: 7) { Array($0) } == row.6)
                // Readers convert like SQLite's: numbers as decimal text, text as its bytes.
                #expect(select.string(at: 2) == String(row.2))
                #expect(select.withBytes(at: 5) { Array($0) } == Array(row.4.utf8))
                #expect(!select.isNull(at: 7))
            }
            #expect(try !select.step())
            select.reset()
        }
    }

    @Test func nullsAreDistinctFromEmptyAndZero() async throws {
        try await withDatabase { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE n (i BIGINT, t TEXT, bytes BYTEA)")
            let insert = try connection.prepare("INSERT INTO n VALUES (?, ?, ?)")
            insert.bind(nil as Int64?, at: 1)
            insert.bind(nil as String?, at: 2)
            insert.bindNull(at: 3)
            try insert.execute()
            insert.bind(0 as Int64?, at: 1)
            insert.bind("" as String?, at: 2)
            insert.bind(blob: [], at: 3)
            try insert.execute()
            // Unbound parameters are NULL, as in SQLite.
            try connection.prepare("INSERT INTO n VALUES (?, ?, ?)").execute()
            let select = try connection.prepare("SELECT i, t, bytes FROM n")
            var seen: [[Bool]] = []
            while try select.step() {
                seen.append((0..<3).map { select.isNull(at: Int32($0)) })
                if select.isNull(at: 0) {
                    #expect(select.optionalInt64(at: 0) == nil && select.optionalString(at: 1) == nil)
                    #expect(select.int64(at: 0) == 0 && select.string(at: 1) == "")
                } else {
                    #expect(select.optionalInt64(at: 0) == 0 && select.optionalString(at: 1) == "")
                }
                #expect(select.withBytes(at: 2) { $0.count } == 0)
            }
            select.reset()
            #expect(seen == [[true, true, true], [false, false, false], [true, true, true]])
            #expect(try connection.scalarInt64("SELECT count(*) FROM n WHERE bytes = ''::bytea") == 1)
            #expect(try connection.scalarString("SELECT t FROM n WHERE t IS NULL") == nil)
            #expect(try connection.scalarInt64("SELECT 1 WHERE false") == nil)
        }
    }

    @Test func computedColumnsDecodeByType() async throws {
        try await withDatabase { database in
            let connection = try database.connect()
            #expect(try connection.scalarInt64("SELECT count(*) FROM generate_series(1, 5)") == 5)
            #expect(try connection.scalarInt64("SELECT sum(x) FROM generate_series(1, 100000) x") == 5_000_050_000)
            #expect(try connection.scalarString("SELECT 12345678901234567890.05::numeric") == "12345678901234567890.05")
            #expect(try connection.scalarString("SELECT (-0.5)::numeric(4,3)") == "-0.500")
            #expect(try connection.scalarInt64("SELECT 2.75::float8") == 2)
            #expect(try connection.scalarString("SELECT 'abc'::name") == "abc")
            #expect(try connection.scalarString("SELECT 'ab'::char(4)") == "ab  ")
            #expect(try connection.scalarInt64("SELECT '42'::text") == 42)
            let echo = try connection.prepare("SELECT ?1::bigint + 1, ?2 || '!'")
            echo.bind(41, at: 1)
            echo.bind("hi", at: 2)
            #expect(try echo.step())
            #expect(echo.int64(at: 0) == 42 && echo.string(at: 1) == "hi!")
            echo.reset()
        }
    }

    @Test func numericDecodingTable() {
        // ndigits, weight, sign, dscale, base-10000 digits
        let cases: [([UInt16], String)] = [
            ([0, 0, 0, 0], "0"),
            ([1, 0, 0, 0, 7], "7"),
            ([2, 1, 0, 0, 1, 0], "10000"),
            ([2, 0, 0x4000, 2, 12, 5000], "-12.50"),
            ([1, 0xFFFF, 0, 4, 5], "0.0005"),
            ([0, 0, 0xC000, 0], "NaN"),
        ]
        for (words, expected) in cases {
            let bytes = words.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }
            #expect(bytes.withUnsafeBytes { BinaryValue.numeric($0) } == expected)
        }
    }
}
