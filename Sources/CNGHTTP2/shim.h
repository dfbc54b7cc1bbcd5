// nghttp2 1.52 (Debian 12): only the ssize_t-based APIs exist (no mem_recv2/data_provider2).
#ifndef CNGHTTP2_SHIM_H
#define CNGHTTP2_SHIM_H
#include <nghttp2/nghttp2.h>
#endif
