/// An ordered list of header fields, as they arrived or will be sent.
///
/// Order and duplicates are kept (metadata can repeat). Names are lowercase: HTTP/2 requires it,
/// and the HTTP/1.1 parser lowercases on the way in, so lookups compare bytes, not cases.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Field = (name: String, value: String)

    @usableFromInline var fields: [Field]

    public init() { fields = [] }

    public init(_ fields: [Field]) { self.fields = fields }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    public var count: Int { fields.count }

    /// Takes its strings by `consuming`: the transport's header callback hands over strings it
    /// just made, which then move into the list instead of being retained and released.
    public mutating func add(name: consuming String, value: consuming String) {
        fields.append((name: name, value: value))
    }

    public mutating func reserveCapacity(_ n: Int) { fields.reserveCapacity(n) }

    /// The first value for `name` (lowercase), or nil.
    public subscript(name: String) -> String? {
        // By index: `for field in fields` copies every field it passes (a retain and release
        // per string), and gRPC calls look up several names that are usually absent. Lengths
        // first: two different strings are told apart without a call into String comparison.
        let length = name.utf8.count
        for index in fields.indices where fields[index].name.utf8.count == length && fields[index].name == name {
            return fields[index].value
        }
        return nil
    }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}
