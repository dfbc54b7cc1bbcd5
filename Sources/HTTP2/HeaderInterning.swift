internal import Glibc

/// Returns shared Strings for the header names and values every gRPC request repeats.
///
/// Creating a String per header field is a measurable share of the hot path (UTF-8
/// validation, and a heap allocation for anything over 15 bytes such as
/// "application/grpc"). Known fields are matched by bytes and answered with a String made once.
enum HeaderInterning {
    /// The known fields: raw literals (plain values: scanning them retains nothing), the Strings
    /// handed out (made once, in the same order) and where each length starts.
    ///
    /// The tables are buffers allocated once and never freed or written again (hence
    /// `nonisolated(unsafe)`): reading a global array retained and released its storage on
    /// every lookup, several times per request. One global for all three, because each global
    /// read is a `swift_once` check.
    struct Tables {
        /// Sorted by length, so a lookup compares only the literals of its own length.
        let literals: UnsafeBufferPointer<StaticString>
        let strings: UnsafeBufferPointer<String>
        /// `firstOfLength[n]`: the index of the first literal at least `n` bytes long, for
        /// every `n` up to one past the longest.
        let firstOfLength: UnsafeBufferPointer<Int>
    }

    nonisolated(unsafe) static let tables: Tables = {
        let literals = ([
            "content-type", "te", "trailers", "user-agent", "application/grpc", "grpc-timeout",
            "grpc-encoding", "grpc-accept-encoding", "authorization", "identity", "accept-encoding",
            "application/grpc+proto", "identity,deflate,gzip", "grpc-message-type", "content-length",
        ] as [StaticString]).sorted { $0.utf8CodeUnitCount < $1.utf8CodeUnitCount }
        let firstOfLength = (0...literals[literals.count - 1].utf8CodeUnitCount + 1).map { length in
            literals.firstIndex { $0.utf8CodeUnitCount >= length } ?? literals.count
        }
        return Tables(literals: permanentTable(literals), strings: permanentTable(literals.map { $0.description }),
                      firstOfLength: permanentTable(firstOfLength))
    }()

    private static func permanentTable<Element>(_ values: [Element]) -> UnsafeBufferPointer<Element> {
        let table = UnsafeMutableBufferPointer<Element>.allocate(capacity: values.count)
        _ = table.initialize(from: values)
        return UnsafeBufferPointer(table)
    }

    static func string(_ pointer: UnsafePointer<UInt8>, _ count: Int) -> String {
        knownString(pointer, count)
            ?? String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// The shared String for a field in ``literals``, or nil.
    static func knownString(_ pointer: UnsafePointer<UInt8>, _ count: Int) -> String? {
        let tables = Self.tables
        guard count + 1 < tables.firstOfLength.count else { return nil }
        for index in tables.firstOfLength[count]..<tables.firstOfLength[count + 1]
        where memcmp(pointer, tables.literals[index].utf8Start, count) == 0 {
            return tables.strings[index]
        }
        return nil
    }

    /// Whether the `count` bytes at `pointer` are `literal` (ASCII).
    static func equals(_ pointer: UnsafePointer<UInt8>, _ count: Int, _ literal: StaticString) -> Bool {
        count == literal.utf8CodeUnitCount && memcmp(pointer, literal.utf8Start, count) == 0
    }
}

/// The last few header strings one connection created that ``HeaderInterning`` does not know:
/// a client repeats its `:path` and `user-agent` on every call, so each call after the first
/// shares the String instead of validating and allocating a copy.
///
/// Per connection (one event-loop thread), a handful of entries replaced in turn, and only
/// strings too long to be stored inline (short ones cost no allocation): bounded memory, and
/// one peer's values never reach another's requests.
struct RecentHeaderStrings {
    private static let capacity = 8
    private var entries: [String] = []
    /// `entries[i].utf8.count`, kept beside them so a lookup touches (and retains) only an
    /// entry of the right length.
    private var lengths: [Int] = []
    private var next = 0

    mutating func string(_ pointer: UnsafePointer<UInt8>, _ count: Int) -> String {
        if let known = HeaderInterning.knownString(pointer, count) { return known }
        let bytes = UnsafeBufferPointer(start: pointer, count: count)
        // Smaller strings live inline in the String value: nothing to share.
        guard count > 15 else { return String(decoding: bytes, as: UTF8.self) }
        for index in lengths.indices where lengths[index] == count {
            let same = entries[index].utf8.withContiguousStorageIfAvailable {
                memcmp($0.baseAddress!, pointer, count) == 0
            }
            if same == true { return entries[index] }
        }
        let created = String(decoding: bytes, as: UTF8.self)
        if entries.count < Self.capacity {
            entries.append(created)
            lengths.append(created.utf8.count)
        } else {
            entries[next] = created
            lengths[next] = created.utf8.count
            next = (next + 1) % Self.capacity
        }
        return created
    }
}
