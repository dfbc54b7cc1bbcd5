// nghttp2 1.52 (Debian 12): only the ssize_t-based APIs exist (no mem_recv2/data_provider2).
#ifndef CNGHTTP2_SHIM_H
#define CNGHTTP2_SHIM_H
#include <nghttp2/nghttp2.h>
#include <malloc.h>

// The usable size of a block from glibc's malloc, which Glibc's Swift overlay does not expose:
// the nghttp2 allocator (HTTP2/ChunkCache) files a freed block by it, so it needs no header.
static inline size_t cnghttp2_usable_size(void *block) { return malloc_usable_size(block); }
#endif
