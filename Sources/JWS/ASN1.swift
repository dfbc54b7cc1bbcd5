internal import COpenSSL

/// OpenSSL's PKCS#7 and ASN.1 parsers, for the one ASN.1 document the service reads: Apple's
/// app receipt (PKCS#7 SignedData whose content is a SET of receipt attributes).
///
/// Everything is copied out of OpenSSL's structures before they are freed, and every input is
/// bounded by its own length, so hostile bytes end in an ``ASN1Error``, never a crash
/// (entitlementd-fuzz's `receipt` target holds it to that).
public enum ASN1 {
    /// One `ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`.
    public struct Attribute: Sendable, Equatable {
        public var type: Int64
        public var version: Int64
        public var value: [UInt8]
    }

    /// The content of a PKCS#7 SignedData (BER or DER), without checking its signature: the
    /// caller trusts what it looks up with it, not the envelope.
    public static func pkcs7SignedContent(_ der: [UInt8]) throws(ASN1Error) -> [UInt8] {
        let content: [UInt8]? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let p7 = d2i_PKCS7(nil, &cursor, buffer.count) else { return nil }
            defer { PKCS7_free(p7) }
            var length: Int32 = 0
            guard let data = copenssl_pkcs7_signed_data(p7, &length), length >= 0 else { return [] }
            return Array(UnsafeBufferPointer(start: data, count: Int(length)))
        }
        _ = OpenSSLErrorQueue.drain()
        guard let content else { throw ASN1Error("not a PKCS#7 structure") }
        guard !content.isEmpty else { throw ASN1Error("not a PKCS#7 SignedData with data content") }
        return content
    }

    /// A `SET OF ReceiptAttribute`; elements of another shape are skipped (Apple may add some).
    public static func attributeSet(_ der: [UInt8]) throws(ASN1Error) -> [Attribute] {
        guard let elements = elements(der, set: true) else { throw ASN1Error("not an ASN.1 SET") }
        var attributes: [Attribute] = []
        for element in elements where element.tag == V_ASN1_SEQUENCE {
            guard let fields = self.elements(element.bytes, set: false), fields.count == 3,
                  let type = fields[0].integer, let version = fields[1].integer,
                  fields[2].tag == V_ASN1_OCTET_STRING
            else { continue }
            attributes.append(Attribute(type: type, version: version, value: fields[2].bytes))
        }
        return attributes
    }

    /// The text of a DER UTF8String, IA5String or PrintableString (an attribute's value).
    public static func string(_ der: [UInt8]) throws(ASN1Error) -> String {
        let text: String? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let type = d2i_ASN1_TYPE(nil, &cursor, buffer.count) else { return nil }
            defer { ASN1_TYPE_free(type) }
            let tag = ASN1_TYPE_get(type)
            guard tag == V_ASN1_UTF8STRING || tag == V_ASN1_IA5STRING || tag == V_ASN1_PRINTABLESTRING,
                  let bytes = copy(copenssl_ASN1_TYPE_string(type))
            else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        }
        _ = OpenSSLErrorQueue.drain()
        guard let text else { throw ASN1Error("not an ASN.1 string") }
        return text
    }

    struct Element {
        var tag: Int32
        /// The contents for strings, the whole DER for constructed values.
        var bytes: [UInt8]
        /// An INTEGER's value when it fits 64 bits.
        var integer: Int64?
    }

    /// The elements of a SET (or SEQUENCE); nil when unparsable.
    private static func elements(_ der: [UInt8], set: Bool) -> [Element]? {
        let result: [Element]? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let parsed = set ? d2i_ASN1_SET_ANY(nil, &cursor, buffer.count)
                : d2i_ASN1_SEQUENCE_ANY(nil, &cursor, buffer.count)
            guard let stack = parsed else { return nil }
            defer { copenssl_sk_ASN1_TYPE_pop_free(stack) }
            var out: [Element] = []
            for index in 0..<copenssl_sk_ASN1_TYPE_num(stack) {
                guard let element = copenssl_sk_ASN1_TYPE_value(stack, index) else { return nil }
                let tag = ASN1_TYPE_get(element)
                let string = copenssl_ASN1_TYPE_string(element)
                var integer: Int64?
                if tag == V_ASN1_INTEGER, let string {
                    var value: Int64 = 0
                    if ASN1_INTEGER_get_int64(&value, string) == 1 { integer = value }
                }
                out.append(Element(tag: tag, bytes: copy(string) ?? [], integer: integer))
            }
            return out
        }
        _ = OpenSSLErrorQueue.drain()
        return result
    }

    private static func copy(_ string: UnsafePointer<ASN1_STRING>?) -> [UInt8]? {
        guard let string else { return nil }
        let length = Int(ASN1_STRING_length(string))
        guard length > 0, let data = ASN1_STRING_get0_data(string) else { return length == 0 ? [] : nil }
        return Array(UnsafeBufferPointer(start: data, count: length))
    }
}

/// Bytes that are not the ASN.1 expected; ``message`` says which structure failed.
public struct ASN1Error: Error, Sendable, CustomStringConvertible {
    public var message: String

    init(_ message: String) { self.message = message }

    public var description: String { message }
}
