// Debian's libhttp-parser (2.9.x): Node's well-fuzzed HTTP/1.1 request parser.
#ifndef CHTTPPARSER_SHIM_H
#define CHTTPPARSER_SHIM_H
#include <http_parser.h>

static inline enum http_errno chttp_parser_errno(const http_parser *p) {
    return HTTP_PARSER_ERRNO(p);
}
#endif
