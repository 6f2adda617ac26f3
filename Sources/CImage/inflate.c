// zlib-wrapped deflate for TIFF strips (compression 8 and 32946), read a piece at a time so a strip's
// output never exists whole. Here rather than in Swift because only Archive imports CZlib; the image
// codecs link zlib anyway, for libpng.

#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct cimage_inflater {
    z_stream stream;
    const uint8_t *src;
    size_t src_size;
    size_t in_used;
    // Z_STREAM_END seen, or an error kept for every later read.
    int ended;
    int error;
    char message[96];
};

static uInt inflate_piece(size_t left) { return left > (1u << 30) ? (1u << 30) : (uInt)left; }

cimage_inflater *cimage_inflater_new(const uint8_t *src, size_t src_size) {
    cimage_inflater *inflater = calloc(1, sizeof *inflater);
    if (!inflater) return NULL;
    if (inflateInit(&inflater->stream) != Z_OK) {
        free(inflater);
        return NULL;
    }
    inflater->src = src;
    inflater->src_size = src_size;
    return inflater;
}

int cimage_inflater_read(cimage_inflater *inflater, uint8_t *dst, size_t dst_size, size_t *produced,
                         cimage_status *status) {
    cimage_ok(status);
    *produced = 0;
    if (inflater->error) return cimage_fail(status, inflater->error, "%s", inflater->message);
    z_stream *stream = &inflater->stream;
    // zlib counts in uInt: input and output go in pieces of at most 1 GiB. inflate returns Z_OK only
    // when it made progress; anything else ends the loop.
    while (!inflater->ended && *produced < dst_size) {
        if (stream->avail_in == 0 && inflater->in_used < inflater->src_size) {
            stream->next_in = (Bytef *)(inflater->src + inflater->in_used);
            stream->avail_in = inflate_piece(inflater->src_size - inflater->in_used);
            inflater->in_used += stream->avail_in;
        }
        stream->next_out = dst + *produced;
        stream->avail_out = inflate_piece(dst_size - *produced);
        uInt before = stream->avail_out;
        int result = inflate(stream, Z_NO_FLUSH);
        *produced += before - stream->avail_out;
        if (result == Z_STREAM_END) {
            inflater->ended = 1;
        } else if (result == Z_BUF_ERROR && stream->avail_in == 0 && inflater->in_used == inflater->src_size) {
            // The input ran out before the stream's end: what came out is all there is.
            inflater->ended = 1;
        } else if (result != Z_OK) {
            inflater->error = result == Z_MEM_ERROR ? CIMAGE_NO_MEMORY : CIMAGE_CORRUPT;
            snprintf(inflater->message, sizeof inflater->message, "deflate data is corrupt (%s)",
                     stream->msg ? stream->msg : "zlib error");
            return cimage_fail(status, inflater->error, "%s", inflater->message);
        }
    }
    return CIMAGE_OK;
}

void cimage_inflater_free(cimage_inflater *inflater) {
    if (!inflater) return;
    inflateEnd(&inflater->stream);
    free(inflater);
}
