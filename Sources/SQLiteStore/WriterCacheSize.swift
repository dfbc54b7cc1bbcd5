import StorageCore
/// How big the SQLite writer connection's page cache is: small while the file is under 1 GiB.
///
/// Why not always the configured size: SQLite's default page cache (pcache1) drops pages past
/// the end of the file at every COMMIT, and it scans its whole hash table to do so whenever it
/// has ever held a page number beyond the file's end since the last COMMIT. A B-tree balance
/// that reorders sibling pages parks one of them at a temporary number, the page that holds
/// the lock bytes at offset 1 GiB (`PENDING_BYTE / page size + 1`); with 1 KiB pages and random
/// keys that happens in nearly every group commit. While the file is smaller than 1 GiB that
/// number is past its end, so every COMMIT walked all ~32k pages of a 32 MiB cache: profiled,
/// 17 % of the writer thread's time on V2 notification ingest (a 25 MB file). The scan costs
/// in proportion to the pages cached, so a 4 MiB cache cuts it eightfold for a few more reads
/// from the OS page cache. Once the file is past 1 GiB the parked page number lies inside it,
/// no scan happens, and the configured (larger) cache pays off, as it does for bulk seeding.
/// Decided when the store opens: a file that grows past 1 GiB gets the larger cache at the next
/// start.
package enum WriterCacheSize {
    /// Where SQLite's lock bytes begin, and so the temporary page number of a B-tree balance.
    package static let pendingByteOffset: Int64 = 0x4000_0000
    /// The cache while the file is under ``pendingByteOffset``.
    package static let smallFileKiB = 4_096
    /// Below this SQLite's cache is too small to hold one write's pages.
    package static let minimumKiB = 2_000

    /// The cache size in KiB for a writer on a file of `fileBytes` with `configuredKiB` asked for.
    package static func kibibytes(configured configuredKiB: Int, fileBytes: Int64) -> Int {
        let configured = max(minimumKiB, configuredKiB)
        guard fileBytes < pendingByteOffset else { return configured }
        return min(configured, max(minimumKiB, smallFileKiB))
    }
}
