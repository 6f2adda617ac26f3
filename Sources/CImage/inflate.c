// zlib-wrapped deflate for TIFF strips (compression 8 and 32946). Here rather than in Swift because
// only Archive imports CZlib; the image codecs link zlib anyway, for libpng.

#include "common.h"

#include <string.h>
#include <zlib.h>

static uInt inflate_piece(size_t left) { return left > (1u << 30) ? (1u << 30) : (uInt)left; }

int cimage_inflate(const uint8_t *src, size_t src_size, uint8_t *dst, size_t dst_size, size_t *produced,
                   cimage_status *status) {
    cimage_ok(status);
    *produced = 0;
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (inflateInit(&stream) != Z_OK) return cimage_fail(status, CIMAGE_NO_MEMORY, "deflate: out of memory");
    size_t in_used = 0;
    int result = Z_OK;
    // zlib counts in uInt: input and output go in pieces of at most 1 GiB. inflate returns Z_OK only
    // when it made progress; anything else ends the loop.
    for (;;) {
        if (stream.avail_in == 0 && in_used < src_size) {
            stream.next_in = (Bytef *)(src + in_used);
            stream.avail_in = inflate_piece(src_size - in_used);
            in_used += stream.avail_in;
        }
        if (stream.avail_out == 0) {
            if (*produced == dst_size) break;
            stream.next_out = dst + *produced;
            stream.avail_out = inflate_piece(dst_size - *produced);
        }
        uInt before = stream.avail_out;
        result = inflate(&stream, Z_NO_FLUSH);
        *produced += before - stream.avail_out;
        if (result != Z_OK) break;
    }
    const char *message = stream.msg ? stream.msg : "zlib error";
    int full = *produced == dst_size;
    inflateEnd(&stream);
    if (result == Z_STREAM_END || full) return CIMAGE_OK;
    if (result == Z_BUF_ERROR) return cimage_fail(status, CIMAGE_TRUNCATED, "deflate data ends early");
    return cimage_fail(status, result == Z_MEM_ERROR ? CIMAGE_NO_MEMORY : CIMAGE_CORRUPT, "deflate data is corrupt (%s)", message);
}
