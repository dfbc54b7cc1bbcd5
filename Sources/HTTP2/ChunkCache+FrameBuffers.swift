internal import Glibc

/// nghttp2's frame buffers, kept for the next session instead of going back to glibc.
///
/// Every session allocates one 16 KiB chunk for the frames it sends and writes each frame at its
/// start, so a small answer touches only its first page. Freed with its connection, such a chunk
/// was merged with its neighbours and carved up for the next connections' small blocks, which
/// then touched its other pages too: nothing leaked (glibc held it all as free), yet each
/// reconnection of 10,000 held clients grew the RSS, 206 -> 286 -> 302 -> 309 MiB. Kept here, a
/// frame buffer is only ever reused as one, and the pages wholly inside it go back to the kernel
/// while it waits (`MADV_DONTNEED`), so a closed connection's buffer costs no resident memory.
/// How many are kept is bounded by the most sessions this thread has had open at once.
extension ChunkCache {
    /// The sizes nghttp2 asks for a frame buffer chunk: 16,394 bytes in 1.52 (a 16 KiB payload,
    /// the 9-byte frame header, one byte of padding length), with room for a few more.
    static let frameBufferRequests = 16_385...frameBufferSize
    /// What a frame buffer is allocated with, so that any request in the range fits any kept one.
    static let frameBufferSize = 16_448

    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Whether a freed block of `usable` bytes can be kept as a frame buffer: one from
    /// ``takeFrameBuffer()`` (glibc rounds `frameBufferSize` up to its next block size), or any
    /// other block of that size class, which holds a frame buffer as well.
    @inline(__always)
    static func isFrameBuffer(usable: Int) -> Bool {
        usable >= frameBufferSize && usable < frameBufferSize + 32
    }

    /// A kept frame buffer, or a new one.
    func takeFrameBuffer() -> UnsafeMutableRawPointer? {
        guard let block = frameBuffers else { return malloc(Self.frameBufferSize) }
        frameBuffers = block.load(as: UnsafeMutableRawPointer?.self)
        cachedFrameBuffers -= 1
        return block
    }

    /// Keeps a frame buffer, its whole pages (past the link word) handed back to the kernel.
    func keepFrameBuffer(_ block: UnsafeMutableRawPointer, usable: Int) {
        let mask = ~(Self.pageSize - 1)
        let start = (Int(bitPattern: block) + MemoryLayout<UnsafeMutableRawPointer?>.size + Self.pageSize - 1) & mask
        let end = (Int(bitPattern: block) + usable) & mask
        if end > start { madvise(UnsafeMutableRawPointer(bitPattern: start), end - start, MADV_DONTNEED) }
        block.storeBytes(of: frameBuffers, as: UnsafeMutableRawPointer?.self)
        frameBuffers = block
        cachedFrameBuffers += 1
    }
}
