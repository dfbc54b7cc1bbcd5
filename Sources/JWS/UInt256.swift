/// An unsigned 256-bit number in four 64-bit limbs, for one job: ``inverse(modulo:)``.
///
/// Why not BN_mod_inverse: inverting an ECDSA signature's s modulo the group order was a
/// quarter of ``ES256KeyTable``'s verification (~8 µs), most of it BN function calls made per
/// bit. The same binary extended Euclid on fixed limbs runs about three times faster. It is
/// variable-time, which is fine for its use: s is part of a public signature.
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

    /// Adds in place; returns the carry out of bit 255.
    @discardableResult
    mutating func add(_ other: UInt256) -> UInt64 {
        var carry: UInt64 = 0
        func step(_ a: inout UInt64, _ b: UInt64) {
            let (sum, overflow1) = a.addingReportingOverflow(b)
            let (total, overflow2) = sum.addingReportingOverflow(carry)
            a = total
            carry = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
        }
        step(&limbs.0, other.limbs.0)
        step(&limbs.1, other.limbs.1)
        step(&limbs.2, other.limbs.2)
        step(&limbs.3, other.limbs.3)
        return carry
    }

    /// Subtracts in place (wrapping); returns the borrow out of bit 255.
    @discardableResult
    mutating func subtract(_ other: UInt256) -> UInt64 {
        var borrow: UInt64 = 0
        func step(_ a: inout UInt64, _ b: UInt64) {
            let (difference, overflow1) = a.subtractingReportingOverflow(b)
            let (total, overflow2) = difference.subtractingReportingOverflow(borrow)
            a = total
            borrow = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
        }
        step(&limbs.0, other.limbs.0)
        step(&limbs.1, other.limbs.1)
        step(&limbs.2, other.limbs.2)
        step(&limbs.3, other.limbs.3)
        return borrow
    }

    /// Shifts right by one, `topBit` (0 or 1) entering as bit 255.
    mutating func shiftRight(topBit: UInt64) {
        limbs.0 = limbs.0 >> 1 | limbs.1 << 63
        limbs.1 = limbs.1 >> 1 | limbs.2 << 63
        limbs.2 = limbs.2 >> 1 | limbs.3 << 63
        limbs.3 = limbs.3 >> 1 | topBit << 63
    }

    /// `self / 2 (mod modulus)` for `self` in [0, modulus), modulus odd.
    private mutating func halve(modulo modulus: UInt256) {
        let carry = isEven ? 0 : add(modulus)
        shiftRight(topBit: carry)
    }

    /// `self - other (mod modulus)` for both in [0, modulus).
    private mutating func subtract(_ other: UInt256, modulo modulus: UInt256) {
        if subtract(other) != 0 { add(modulus) }
    }

    /// The x in [1, modulus) with self·x ≡ 1 (mod modulus); nil unless modulus is odd and
    /// self is in [1, modulus) and coprime to it.
    ///
    /// Binary extended Euclid, keeping x1·self ≡ u and x2·self ≡ v (mod modulus) while u and v
    /// shrink towards their gcd.
    func inverse(modulo modulus: UInt256) -> UInt256? {
        guard !modulus.isEven, !isZero, !(self >= modulus) else { return nil }
        var u = self, v = modulus, x1 = UInt256.one, x2 = UInt256.zero
        while !u.isOne && !v.isOne {
            // u or v reaching 0 means gcd > 1 (the other holds it): no inverse.
            guard !u.isZero, !v.isZero else { return nil }
            while u.isEven {
                u.shiftRight(topBit: 0)
                x1.halve(modulo: modulus)
            }
            while v.isEven {
                v.shiftRight(topBit: 0)
                x2.halve(modulo: modulus)
            }
            if u >= v {
                u.subtract(v)
                x1.subtract(x2, modulo: modulus)
            } else {
                v.subtract(u)
                x2.subtract(x1, modulo: modulus)
            }
        }
        return u.isOne ? x1 : x2
    }
}
