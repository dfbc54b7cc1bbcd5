@testable import JWS

/// The arithmetic and binary extended Euclid that ``UInt256/inverse(modulo:)`` used before
/// divsteps, kept as the reference the new inverse must agree with (UInt256Tests).
extension UInt256 {
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
    mutating func halve(modulo modulus: UInt256) {
        let carry = isEven ? 0 : add(modulus)
        shiftRight(topBit: carry)
    }

    /// `self - other (mod modulus)` for both in [0, modulus).
    mutating func subtract(_ other: UInt256, modulo modulus: UInt256) {
        if subtract(other) != 0 { add(modulus) }
    }

    /// The inverse as ``UInt256/inverse(modulo:)`` computed it before divsteps (same contract).
    ///
    /// Binary extended Euclid, keeping x1·self ≡ u and x2·self ≡ v (mod modulus) while u and v
    /// shrink towards their gcd.
    func binaryEuclidInverse(modulo modulus: UInt256) -> UInt256? {
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
