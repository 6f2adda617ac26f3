#ifndef CZLIB_SHIMS_H
#define CZLIB_SHIMS_H

#include <zlib.h>

// deflateInit2 is a macro (it passes ZLIB_VERSION and sizeof(z_stream)); Swift cannot call it.
// Raw deflate (windowBits -15, no zlib header), as ZIP's method 8 stores it.
static inline int czlib_deflate_init_raw(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
}

// inflateInit2 is a macro too; raw inflate for ZIP's method 8.
static inline int czlib_inflate_init_raw(z_stream *stream) {
    return inflateInit2(stream, -15);
}

#endif
