/// Compares two secrets in time that depends only on their lengths, not on where they differ.
///
/// V1 notifications are authenticated solely by the shared secret in `password`; an early-exit
/// comparison would let an attacker recover it byte by byte from response timings. The length
/// of our own secret is not the secret.
public func constantTimeEquals(_ a: String, _ b: String) -> Bool {
    let lhs = Array(a.utf8)
    let rhs = Array(b.utf8)
    var difference: UInt8 = lhs.count == rhs.count ? 0 : 1
    for index in 0..<max(lhs.count, rhs.count) {
        let left = index < lhs.count ? lhs[index] : 0
        let right = index < rhs.count ? rhs[index] : 0
        difference |= left ^ right
    }
    return difference == 0
}
