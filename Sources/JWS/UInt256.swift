/// An unsigned 256-bit number in four 64-bit limbs, for one job: ``inverse(modulo:)``
/// (UInt256+Inverse.swift).
///
/// Why not BN_mod_inverse: inverting an ECDSA signature's s modulo the group order was a
/// quarter of ``ES256KeyTable``'s verification (~8 µs), most of it BN function calls made per
/// bit. On fixed limbs and by divsteps it takes ~1.5 µs.
struct UInt256: Equatable {
    /// Little-endian limbs: `limbs.0` holds the lowest 64 bits.
    var limbs: (UInt64, UInt64, UInt64, UInt64)

    static let zero = UInt256(limbs: (0, 0, 0, 0))
    static let one = UInt256(limbs: (1, 0, 0, 0))

    init(limbs: (UInt64, UInt64, UInt64, UInt64)) { self.limbs = limbs }

    /// Reads 32 big-endian bytes; nil for any other length.
    init?(bigEndian bytes: UnsafeRawBufferPointer) {
        guard bytes.count == 32 else { return nil }
        func word(_ index: Int) -> UInt64 {
            (0..<8).reduce(0) { $0 << 8 | UInt64(bytes[index * 8 + $1]) }
        }
        limbs = (word(3), word(2), word(1), word(0))
    }

    /// The 32 big-endian bytes.
    var bigEndianBytes: [UInt8] {
        let words = [limbs.3, limbs.2, limbs.1, limbs.0]
        return [UInt8](unsafeUninitializedCapacity: 32) { out, count in
            for index in 0..<32 {
                out[index] = UInt8(truncatingIfNeeded: words[index / 8] >> (56 - 8 * UInt64(index % 8)))
            }
            count = 32
        }
    }

    static func == (lhs: UInt256, rhs: UInt256) -> Bool {
        lhs.limbs.0 == rhs.limbs.0 && lhs.limbs.1 == rhs.limbs.1 && lhs.limbs.2 == rhs.limbs.2
            && lhs.limbs.3 == rhs.limbs.3
    }

    var isZero: Bool { self == .zero }
    var isOne: Bool { self == .one }
    var isEven: Bool { limbs.0 & 1 == 0 }

    static func >= (lhs: UInt256, rhs: UInt256) -> Bool {
        if lhs.limbs.3 != rhs.limbs.3 { return lhs.limbs.3 > rhs.limbs.3 }
        if lhs.limbs.2 != rhs.limbs.2 { return lhs.limbs.2 > rhs.limbs.2 }
        if lhs.limbs.1 != rhs.limbs.1 { return lhs.limbs.1 > rhs.limbs.1 }
        return lhs.limbs.0 >= rhs.limbs.0
    }
}
