/// s⁻¹ mod n for ECDSA verification by Bernstein–Yang divsteps (safegcd), variable-time.
///
/// Why: the binary extended Euclid it replaced walks one bit at a time, each step a 256-bit
/// halving modulo n behind an unpredictable branch (~10 µs, 6 % of V2 ingest). Divsteps decide
/// 62 steps at a time from the low 64 bits of f and g alone, into a 2×2 matrix of small
/// integers, and only then touch the full numbers: about eight matrix applications in all.
/// Variable time is fine here: s is part of a public signature. Reference: Bernstein and Yang,
/// "Fast constant-time gcd computation and modular inversion" (2019), §§8–11.
extension UInt256 {
    /// The x in [1, modulus) with self·x ≡ 1 (mod modulus); nil unless modulus is odd and
    /// self is in [1, modulus) and coprime to it.
    ///
    /// Keeps f ≡ d·self and g ≡ e·self (mod modulus), starting from f = modulus, g = self,
    /// until g = 0; f is then ±gcd, so d or -d is the inverse when the gcd is 1.
    func inverse(modulo modulus: UInt256) -> UInt256? {
        guard !modulus.isEven, !isZero, !(self >= modulus) else { return nil }
        let m = Limbs62(modulus)
        // modulus⁻¹ mod 2⁶⁴ by Newton's iteration (each round doubles the correct low bits;
        // an odd m is its own inverse mod 8).
        var mInverse = modulus.limbs.0
        for _ in 0..<5 { mInverse = mInverse &* (2 &- modulus.limbs.0 &* mInverse) }
        var f = m, g = Limbs62(self), d = Limbs62.zero, e = Limbs62.one
        var eta = -1  // -δ of the paper, starting from δ = 1
        repeat {
            let t = Transition(eta: &eta, f: f.low64, g: g.low64)
            t.apply(f: &f, g: &g)
            t.apply(d: &d, e: &e, modulus: m, modulusInverse: mInverse)
        } while !g.isZero
        if f.isNegative {
            f.negate()
            d.negate()
            d.reduce(modulo: m)
        }
        guard f.isOne else { return nil }
        return d.uint256
    }
}

/// 62 divsteps as the matrix [[u, v], [q, r]]: 2⁶²·(f', g') = (u·f + v·g, q·f + r·g).
private struct Transition {
    static let steps = 62
    var u: Int64 = 1, v: Int64 = 0, q: Int64 = 0, r: Int64 = 1

    /// Runs the divsteps on the low 64 bits of f and g, which decide the next 62 steps. A run
    /// of even g is one shift, and so is a run of steps that cannot swap. The entries stay
    /// within ±2⁶² (|u|+|v| and |q|+|r| at most double per step).
    init(eta etaInOut: inout Int, f f0: UInt64, g g0: UInt64) {
        var f = f0, g = g0, eta = etaInOut, left = Self.steps
        while true {
            // g even: g/2 (the f row doubles instead, keeping the common 2^k scale).
            let zeros = min(left, g.trailingZeroBitCount)
            g &>>= UInt64(zeros)
            u &<<= Int64(zeros)
            v &<<= Int64(zeros)
            eta -= zeros
            left -= zeros
            if left == 0 { break }
            // g odd and δ > 0: (f, g) becomes (g, -f) and δ becomes -δ, so that adding f below
            // makes g = (g - f)/2 as the paper's divstep does.
            if eta < 0 {
                eta = -eta
                (f, g) = (g, 0 &- f)
                (u, v, q, r) = (q, r, 0 &- u, 0 &- v)
            }
            // Now δ ≤ 0, and it stays so for the next eta + 1 steps: none of them swaps, each
            // adds f when g is odd, then halves. Together they add w·f, w < 2^limit making
            // g + w·f divisible by 2^limit; the shift above then does the halvings.
            let limit = min(eta + 1, left, 12)
            var fInverse = f  // f⁻¹ mod 2¹²: right mod 8 for odd f, each Newton step doubles that
            fInverse = fInverse &* (2 &- f &* fInverse)
            fInverse = fInverse &* (2 &- f &* fInverse)
            let w = (0 &- g &* fInverse) & (1 &<< UInt64(limit) &- 1)
            g = g &+ w &* f
            q = q &+ Int64(bitPattern: w) &* u
            r = r &+ Int64(bitPattern: w) &* v
        }
        etaInOut = eta
    }

    /// f and g become (u·f + v·g)/2⁶² and (q·f + r·g)/2⁶², exact divisions by construction.
    func apply(f: inout Limbs62, g: inout Limbs62) {
        (f, g) = (
            Limbs62.shiftedCombination(u, f, v, g, 0, .zero), Limbs62.shiftedCombination(q, f, r, g, 0, .zero)
        )
    }

    /// d and e (in [0, m)) become (u·d + v·e)/2⁶² and (q·d + r·e)/2⁶² mod m, back in [0, m):
    /// adding the multiple of m that clears the low 62 bits makes the division exact.
    ///
    /// With |u|+|v| ≤ 2⁶² and the added multiple below 2⁶²·m, the quotient lies in (-m, 2m),
    /// so one addition or subtraction of m brings it back.
    func apply(d: inout Limbs62, e: inout Limbs62, modulus m: Limbs62, modulusInverse: UInt64) {
        func multiple(_ low: Int64) -> Int64 {
            Int64(bitPattern: (0 &- UInt64(bitPattern: low) &* modulusInverse) & UInt64(Limbs62.mask))
        }
        let md = multiple(u &* d.limbs.0 &+ v &* e.limbs.0)
        let me = multiple(q &* d.limbs.0 &+ r &* e.limbs.0)
        (d, e) = (Limbs62.shiftedCombination(u, d, v, e, md, m), Limbs62.shiftedCombination(q, d, r, e, me, m))
        d.reduce(modulo: m)
        e.reduce(modulo: m)
    }
}

/// A signed integer as five limbs of 62 bits, limb 0 lowest: limbs 0–3 in [0, 2⁶²), limb 4
/// signed, 310 bits in all, room for the signed intermediates of 256-bit divsteps.
private struct Limbs62 {
    static let mask: Int64 = 1 << 62 - 1
    static let zero = Limbs62(limbs: (0, 0, 0, 0, 0))
    static let one = Limbs62(limbs: (1, 0, 0, 0, 0))

    var limbs: (Int64, Int64, Int64, Int64, Int64)

    init(limbs: (Int64, Int64, Int64, Int64, Int64)) { self.limbs = limbs }

    init(_ value: UInt256) {
        let (w0, w1, w2, w3) = value.limbs
        let mask = UInt64(Self.mask)
        limbs = (
            Int64(w0 & mask), Int64((w0 >> 62 | w1 << 2) & mask), Int64((w1 >> 60 | w2 << 4) & mask),
            Int64((w2 >> 58 | w3 << 6) & mask), Int64(w3 >> 56)
        )
    }

    /// The value as a UInt256; only for values in [0, 2²⁵⁶).
    var uint256: UInt256 {
        let (l0, l1, l2) = (UInt64(bitPattern: limbs.0), UInt64(bitPattern: limbs.1), UInt64(bitPattern: limbs.2))
        let (l3, l4) = (UInt64(bitPattern: limbs.3), UInt64(bitPattern: limbs.4))
        return UInt256(limbs: (l0 | l1 << 62, l1 >> 2 | l2 << 60, l2 >> 4 | l3 << 58, l3 >> 6 | l4 << 56))
    }

    /// The low 64 bits in two's complement, what the divsteps look at.
    var low64: UInt64 { UInt64(bitPattern: limbs.0) | UInt64(bitPattern: limbs.1) << 62 }

    var isNegative: Bool { limbs.4 < 0 }
    var isZero: Bool { limbs.0 | limbs.1 | limbs.2 | limbs.3 | limbs.4 == 0 }
    var isOne: Bool { limbs.0 == 1 && limbs.1 | limbs.2 | limbs.3 | limbs.4 == 0 }

    /// (a·x + b·y + c·z)/2⁶², for sums whose low 62 bits are zero; carries propagated.
    @inline(__always)
    static func shiftedCombination(
        _ a: Int64, _ x: Limbs62, _ b: Int64, _ y: Limbs62, _ c: Int64, _ z: Limbs62
    ) -> Limbs62 {
        let (a, b, c) = (Int128(a), Int128(b), Int128(c))
        func term(_ xi: Int64, _ yi: Int64, _ zi: Int64) -> Int128 {
            a &* Int128(xi) &+ b &* Int128(yi) &+ c &* Int128(zi)
        }
        func low(_ carry: Int128) -> Int64 { Int64(truncatingIfNeeded: carry) & mask }
        var carry = term(x.limbs.0, y.limbs.0, z.limbs.0) >> 62
        carry &+= term(x.limbs.1, y.limbs.1, z.limbs.1)
        let l0 = low(carry)
        carry >>= 62
        carry &+= term(x.limbs.2, y.limbs.2, z.limbs.2)
        let l1 = low(carry)
        carry >>= 62
        carry &+= term(x.limbs.3, y.limbs.3, z.limbs.3)
        let l2 = low(carry)
        carry >>= 62
        carry &+= term(x.limbs.4, y.limbs.4, z.limbs.4)
        let l3 = low(carry)
        carry >>= 62
        return Limbs62(limbs: (l0, l1, l2, l3, Int64(truncatingIfNeeded: carry)))
    }

    /// `a·x + b·y` for small a, b (here ±1 and 0), carries propagated.
    private static func sum(_ a: Int64, _ x: Limbs62, _ b: Int64, _ y: Limbs62) -> Limbs62 {
        var carry = a * x.limbs.0 + b * y.limbs.0
        let l0 = carry & mask
        carry = carry >> 62 + a * x.limbs.1 + b * y.limbs.1
        let l1 = carry & mask
        carry = carry >> 62 + a * x.limbs.2 + b * y.limbs.2
        let l2 = carry & mask
        carry = carry >> 62 + a * x.limbs.3 + b * y.limbs.3
        let l3 = carry & mask
        carry = carry >> 62 + a * x.limbs.4 + b * y.limbs.4
        return Limbs62(limbs: (l0, l1, l2, l3, carry))
    }

    mutating func negate() { self = Self.sum(-1, self, 0, .zero) }

    /// Brings a value in (-m, 2m) into [0, m).
    mutating func reduce(modulo m: Limbs62) {
        if isNegative {
            self = Self.sum(1, self, 1, m)
        } else {
            let less = Self.sum(1, self, -1, m)
            if !less.isNegative { self = less }
        }
    }
}
