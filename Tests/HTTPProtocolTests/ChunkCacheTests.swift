internal import CNGHTTP2
internal import Glibc
@testable import HTTP2
import XCTest

/// nghttp2's per-thread block cache must hand out blocks that hold what was asked for, reuse
/// what was freed, zero what calloc returns and never keep more than its limit.
final class ChunkCacheTests: XCTestCase {
    func testEveryCachedSizeGetsABlockHoldingItFreshAndRecycled() {
        let cache = ChunkCache()
        for size in 0...ChunkCache.largestCachedSize + 64 {
            let fresh = cache.allocate(size)!
            XCTAssertGreaterThanOrEqual(cnghttp2_usable_size(fresh), size, "fresh block for \(size) bytes")
            cache.deallocate(fresh)
            // Whatever block the cache kept (this one or an earlier one of the class) must hold `size`.
            let recycled = cache.allocate(size)!
            XCTAssertGreaterThanOrEqual(cnghttp2_usable_size(recycled), size, "recycled block for \(size) bytes")
            recycled.initializeMemory(as: UInt8.self, repeating: 0xAB, count: size)
            cache.deallocate(recycled)
        }
    }

    func testAFreedBlockServesTheNextRequestOfItsSizeAndNoSmallerClass() {
        let cache = ChunkCache()
        let block = cache.allocate(300)!
        let usable = cnghttp2_usable_size(block)
        cache.deallocate(block)
        XCTAssertEqual(cache.cachedBytes, (usable + 8) & ~15)
        let smaller = cache.allocate(usable - 40)!   // another size class: a new block
        XCTAssertNotEqual(smaller, block)
        XCTAssertEqual(cache.allocate(usable), block, "a request of the block's whole usable size")
        XCTAssertEqual(cache.cachedBytes, 0)
        cache.deallocate(smaller)
        cache.deallocate(block)
    }

    func testLargeBlocksAndBlocksOverTheLimitGoBackToMalloc() {
        let cache = ChunkCache(byteLimit: 1_024)
        let large = cache.allocate(ChunkCache.largestCachedSize + 100)!
        cache.deallocate(large)
        XCTAssertEqual(cache.cachedBytes, 0, "a block over the largest cached size is freed")
        let blocks = (0..<100).map { _ in cache.allocate(100)! }
        for block in blocks { cache.deallocate(block) }
        XCTAssertGreaterThan(cache.cachedBytes, 0)
        XCTAssertLessThanOrEqual(cache.cachedBytes, 1_024)
        // What was kept is handed out again.
        let before = cache.cachedBytes
        let again = cache.allocate(100)!
        XCTAssertTrue(blocks.contains(again))
        XCTAssertEqual(before - cache.cachedBytes, 112, "one 112-byte class block left the cache")
        cache.deallocate(again)
    }

    func testTheNGHTTP2AllocatorZeroesWhatCallocReturnsEvenARecycledBlock() throws {
        let mem = ChunkCache.nghttp2Allocator
        let block = try XCTUnwrap(mem.malloc(200, mem.mem_user_data))
        block.initializeMemory(as: UInt8.self, repeating: 0xFF, count: 200)
        mem.free(block, mem.mem_user_data)
        let zeroed = try XCTUnwrap(mem.calloc(20, 10, mem.mem_user_data))
        XCTAssertEqual(zeroed, block, "the freed block is recycled")
        XCTAssertTrue(UnsafeRawBufferPointer(start: zeroed, count: 200).allSatisfy { $0 == 0 })
        XCTAssertNil(mem.calloc(Int.max, 2, mem.mem_user_data), "an overflowing calloc fails instead of allocating")
        let grown = try XCTUnwrap(mem.realloc(zeroed, 4_000, mem.mem_user_data))
        XCTAssertTrue(UnsafeRawBufferPointer(start: grown, count: 200).allSatisfy { $0 == 0 })
        mem.free(grown, mem.mem_user_data)
        mem.free(nil, mem.mem_user_data)
    }

    func testAFrameBufferIsKeptForTheNextFrameBufferOnlyItsFirstPageResident() throws {
        let cache = ChunkCache()
        let buffer = try XCTUnwrap(cache.allocate(16_394))   // nghttp2 1.52's frame buffer request
        XCTAssertGreaterThanOrEqual(cnghttp2_usable_size(buffer), ChunkCache.frameBufferSize)
        buffer.initializeMemory(as: UInt8.self, repeating: 0xAB, count: 16_394)
        cache.deallocate(buffer)
        XCTAssertEqual(cache.cachedFrameBuffers, 1)
        XCTAssertEqual(cache.cachedBytes, 0, "not counted against the small blocks' limit")
        // The pages wholly inside it went back to the kernel: they read as zero again.
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let interior = (Int(bitPattern: buffer) + 8 + page - 1) & ~(page - 1)
        XCTAssertEqual(UnsafeRawPointer(bitPattern: interior)!.load(as: UInt8.self), 0)
        let other = try XCTUnwrap(cache.allocate(2_000))
        XCTAssertNotEqual(other, buffer, "a frame buffer serves only frame buffer requests")
        XCTAssertEqual(cache.allocate(16_400), buffer)
        XCTAssertEqual(cache.cachedFrameBuffers, 0)
        cache.deallocate(other)
        cache.deallocate(buffer)
    }

    func testNGHTTP2sBuffersAllocatedAsAReallocOfNilComeFromTheCache() throws {
        let mem = ChunkCache.nghttp2Allocator
        let kept = { ChunkCache.current._withUnsafeGuaranteedRef { $0.cachedFrameBuffers } }
        let buffer = try XCTUnwrap(mem.realloc(nil, 16_394, mem.mem_user_data))
        let before = kept()
        mem.free(buffer, mem.mem_user_data)
        XCTAssertEqual(kept(), before + 1, "the frame buffer is kept, not freed")
        XCTAssertEqual(mem.realloc(nil, 16_394, mem.mem_user_data), buffer)
        XCTAssertEqual(kept(), before)
        mem.free(buffer, mem.mem_user_data)
        let small = try XCTUnwrap(mem.realloc(nil, 100, mem.mem_user_data))
        mem.free(small, mem.mem_user_data)
        XCTAssertEqual(mem.malloc(100, mem.mem_user_data), small)
        mem.free(small, mem.mem_user_data)
    }

    func testEachThreadHasItsOwnCache() {
        let here = ChunkCache.current.toOpaque()
        XCTAssertEqual(ChunkCache.current.toOpaque(), here)
        final class Seen: @unchecked Sendable { var cache: UnsafeMutableRawPointer? }
        let seen = Seen()
        let done = DispatchSemaphore(value: 0)
        Thread { seen.cache = ChunkCache.current.toOpaque(); done.signal() }.start()
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        let there = seen.cache
        XCTAssertNotNil(there)
        XCTAssertNotEqual(there, here)
    }
}
