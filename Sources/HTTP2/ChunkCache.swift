internal import CNGHTTP2
internal import Glibc

/// Small blocks nghttp2 freed on this thread, kept for its next allocations of the same size.
///
/// Every request opens a stream and queues a HEADERS item, a DATA item and a trailer item, each
/// a small `malloc` freed when the stream closes: ~8 of a CheckEntitlement call's 16 mallocs.
/// A connection answers a whole read's requests (32 at 4x32) before their streams close, so
/// glibc's per-thread cache (7 blocks per size) overflows on every read and both malloc and
/// free take the arena's slow path. This cache is the same idea without the small count: blocks
/// of up to ``largestCachedSize`` bytes, kept in one free list per 16-byte size class, up to
/// ``byteLimit`` bytes in all per thread.
///
/// Blocks are ordinary glibc blocks (a block's size class is its `malloc_usable_size`, so no
/// header is added and a connection's long-lived nghttp2 memory is the same size as before);
/// larger blocks and everything over the limit go straight back to `free`, except nghttp2's
/// frame buffers, which are kept apart for the next session (``ChunkCache+FrameBuffers.swift``).
/// One cache per thread (a `pthread_key_t`): a session is used by one event-loop thread, but
/// whichever thread frees a block files it in its own cache, so no cache is ever shared. A
/// thread's cache is freed when the thread exits. Not Sendable: one thread only.
final class ChunkCache {
    /// Blocks up to this usable size are cached (nghttp2's stream object and queue items are
    /// 100–400 bytes; its frame buffers, 16 KiB, are not).
    static let largestCachedSize = 1_016
    /// What one thread keeps at most: a few reads' worth of streams, small next to the
    /// connections' own memory (10,000 idle connections hold ~190 MiB).
    static let byteLimit = 256 << 10
    /// Smaller blocks are not cached: no request class is served from them, and one under 8
    /// bytes has no room for the free-list link. glibc never makes one (its smallest holds 24),
    /// but allocators that report the size asked for (AddressSanitizer's, musl's) do.
    static let smallestCachedSize = 24

    private static let classCount = (largestCachedSize + 8) >> 4 + 1
    /// Free blocks by size class, linked through their first word.
    private let heads: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private(set) var cachedBytes = 0
    private let limit: Int
    /// Freed frame buffers (``takeFrameBuffer()``), linked through their first word.
    var frameBuffers: UnsafeMutableRawPointer?
    var cachedFrameBuffers = 0

    init(byteLimit: Int = ChunkCache.byteLimit) {
        heads = .allocate(capacity: Self.classCount)
        heads.initialize(repeating: nil, count: Self.classCount)
        limit = byteLimit
    }

    deinit {
        for index in 0..<Self.classCount {
            var block = heads[index]
            while let current = block {
                block = current.load(as: UnsafeMutableRawPointer?.self)
                free(current)
            }
        }
        heads.deallocate()
        while let current = frameBuffers {
            frameBuffers = current.load(as: UnsafeMutableRawPointer?.self)
            free(current)
        }
    }

    /// The class whose blocks all hold at least `size` bytes (glibc's block sizes step by 16
    /// and hold 8 bytes less than the step: 24, 40, 56 ...).
    @inline(__always)
    private static func requestClass(_ size: Int) -> Int { max(size + 23, 32) >> 4 }

    /// The class a block of `usable` bytes serves: the largest whose requests all fit in it.
    @inline(__always)
    private static func blockClass(_ usable: Int) -> Int { (usable + 8) >> 4 }

    /// A block of at least `size` bytes, uninitialized; nil only when malloc fails.
    @inline(__always)
    func allocate(_ size: Int) -> UnsafeMutableRawPointer? {
        if size <= Self.largestCachedSize {
            let index = Self.requestClass(size)
            if let block = heads[index] {
                heads[index] = block.load(as: UnsafeMutableRawPointer?.self)
                cachedBytes -= index << 4
                return block
            }
        } else if Self.frameBufferRequests.contains(size) {
            return takeFrameBuffer()
        }
        return malloc(size)
    }

    /// Takes back a block from ``allocate(_:)`` (or any glibc malloc).
    @inline(__always)
    func deallocate(_ block: UnsafeMutableRawPointer) {
        let usable = cnghttp2_usable_size(block)
        let index = Self.blockClass(usable)
        guard usable >= Self.smallestCachedSize, usable <= Self.largestCachedSize, cachedBytes + index << 4 <= limit
        else {
            if Self.isFrameBuffer(usable: usable) { return keepFrameBuffer(block, usable: usable) }
            free(block)
            return
        }
        block.storeBytes(of: heads[index], as: UnsafeMutableRawPointer?.self)
        heads[index] = block
        cachedBytes += index << 4
    }
}

@available(*, unavailable)
extension ChunkCache: Sendable {}

extension ChunkCache {
    /// The calling thread's cache, made on first use.
    @inline(__always)
    static var current: Unmanaged<ChunkCache> { current(threadKey) }

    /// The cache `key` holds for the calling thread. The nghttp2 callbacks pass the key they
    /// carry in `mem_user_data`: reading ``threadKey`` costs a `swift_once` check per call.
    @inline(__always)
    static func current(_ key: pthread_key_t) -> Unmanaged<ChunkCache> {
        if let raw = pthread_getspecific(key) { return Unmanaged.fromOpaque(raw) }
        let cache = Unmanaged.passRetained(ChunkCache())
        pthread_setspecific(key, cache.toOpaque())
        return cache
    }

    /// The calling thread's cache, for an allocator whose `mem_user_data` carries the key.
    @inline(__always)
    fileprivate static func cache(_ userData: UnsafeMutableRawPointer?) -> Unmanaged<ChunkCache> {
        current(pthread_key_t(truncatingIfNeeded: UInt(bitPattern: userData)))
    }

    /// Frees a thread's cache when the thread exits.
    private static let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { raw in
            if let raw { Unmanaged<ChunkCache>.fromOpaque(raw).release() }
        }
        precondition(status == 0, "pthread_key_create failed (\(status)): too many thread-local keys")
        return key
    }()

    /// The allocator handed to `nghttp2_session_server_new3`: nghttp2 copies it into the
    /// session, and every allocation of the session goes through the calling thread's cache.
    static var nghttp2Allocator: nghttp2_mem {
        nghttp2_mem(
            mem_user_data: UnsafeMutableRawPointer(bitPattern: UInt(threadKey)),
            malloc: { size, userData in
                ChunkCache.cache(userData)._withUnsafeGuaranteedRef { $0.allocate(size) }
            },
            free: { block, userData in
                guard let block else { return }
                ChunkCache.cache(userData)._withUnsafeGuaranteedRef { $0.deallocate(block) }
            },
            calloc: { count, size, userData in
                let (bytes, overflow) = count.multipliedReportingOverflow(by: size)
                guard !overflow,
                      let block = ChunkCache.cache(userData)._withUnsafeGuaranteedRef({ $0.allocate(bytes) })
                else { return nil }
                block.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
                return block
            },
            realloc: { block, size, userData in
                // nghttp2 allocates its buffers (the frame buffer among them) as a realloc of nil.
                guard let block else {
                    return ChunkCache.cache(userData)._withUnsafeGuaranteedRef { $0.allocate(size) }
                }
                return realloc(block, size)
            }
        )
    }
}
