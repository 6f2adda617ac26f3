// WebP through libwebp (decode, encode), libwebpdemux (animation, ICCP and EXIF chunks) and libwebpmux
// (an ICCP chunk on what the encoder wrote). libwebp reports errors as return values: no longjmp here.

#include "common.h"

#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

static int webp_status_code(VP8StatusCode code) {
    switch (code) {
    case VP8_STATUS_OK: return CIMAGE_OK;
    case VP8_STATUS_NOT_ENOUGH_DATA: return CIMAGE_TRUNCATED;
    case VP8_STATUS_OUT_OF_MEMORY: return CIMAGE_NO_MEMORY;
    case VP8_STATUS_UNSUPPORTED_FEATURE: return CIMAGE_UNSUPPORTED;
    default: return CIMAGE_CORRUPT;
    }
}

static const char *webp_status_text(VP8StatusCode code) {
    switch (code) {
    case VP8_STATUS_NOT_ENOUGH_DATA: return "the file ends inside the image";
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "a feature libwebp does not support";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "corrupt bitstream";
    default: return "corrupt data";
    }
}

static void webp_copy_chunk(WebPDemuxer *demux, const char *fourcc, uint8_t **bytes, size_t *size) {
    WebPChunkIterator chunk;
    if (WebPDemuxGetChunk(demux, fourcc, 1, &chunk)) {
        *bytes = cimage_copy(chunk.chunk.bytes, chunk.chunk.size);
        *size = *bytes ? chunk.chunk.size : 0;
        WebPDemuxReleaseChunkIterator(&chunk);
    }
}

/// What libwebp allocates to decode a frame of width × height besides the pixels it writes: lossless
/// data is held whole as ARGB (4 bytes a pixel: backward references reach anywhere above) with a
/// cache of rows; lossy data keeps a few macroblock rows and, with alpha, the whole alpha plane.
static uint64_t webp_work_bytes(uint64_t width, uint64_t height, int lossless, int alpha) {
    uint64_t work = (2u << 20) + 256 * width;
    if (lossless) work += 4 * width * height + 4 * 32 * width;
    if (alpha) work += width * height;
    return work;
}

/// Decodes one frame's bitstream into rgba (stride bytes a row, size bytes in all): whole, or with
/// validate to an eighth of its size (every byte of it decoded all the same) into scratch.
static int webp_decode_frame(const uint8_t *data, size_t size, uint32_t width, uint32_t height, uint8_t *rgba,
                             size_t stride, size_t buffer_size, int validate, cimage_status *status) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return cimage_fail(status, CIMAGE_UNSUPPORTED, "WebP: libwebp version mismatch");
    uint8_t *scratch = NULL;
    int expect_width = (int)width, expect_height = (int)height;
    if (validate) {
        config.options.use_scaling = 1;
        config.options.scaled_width = expect_width = (int)((width + 7) / 8);
        config.options.scaled_height = expect_height = (int)((height + 7) / 8);
        stride = (size_t)expect_width * 4;
        buffer_size = stride * (size_t)expect_height;
        scratch = cimage_alloc(buffer_size);
        if (!scratch) return cimage_fail(status, CIMAGE_NO_MEMORY, "WebP: out of memory");
        rgba = scratch;
    }
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = rgba;
    config.output.u.RGBA.stride = (int)stride;
    config.output.u.RGBA.size = buffer_size;
    VP8StatusCode code = WebPDecode(data, size, &config);
    WebPFreeDecBuffer(&config.output);
    cimage_release(scratch, buffer_size);
    if (code != VP8_STATUS_OK) return cimage_fail(status, webp_status_code(code), "WebP: %s", webp_status_text(code));
    if (config.output.width != expect_width || config.output.height != expect_height) {
        return cimage_fail(status, CIMAGE_CORRUPT, "WebP: the canvas and the image differ in size");
    }
    return CIMAGE_OK;
}

int cimage_webp_decode(const uint8_t *data, size_t size, uint64_t max_pixels, int flags,
                       cimage_decoded *out, cimage_status *status) {
    memset(out, 0, sizeof *out);
    cimage_ok(status);
    int header_only = (flags & CIMAGE_HEADER_ONLY) != 0, validate = (flags & CIMAGE_VALIDATE) != 0;
    WebPBitstreamFeatures features;
    VP8StatusCode code = WebPGetFeatures(data, size, &features);
    if (code != VP8_STATUS_OK) return cimage_fail(status, webp_status_code(code), "WebP: %s", webp_status_text(code));
    out->width = (uint32_t)features.width;
    out->height = (uint32_t)features.height;
    out->bits = 8;
    out->frame_count = 1;
    out->lossless = features.format == 2;
    // The declared size first: nothing below allocates pixels before this check.
    if (!header_only && cimage_check_pixels(out->width, out->height, max_pixels, "WebP", status) != CIMAGE_OK) {
        return status->code;
    }

    // The extended format (VP8X): the canvas, the frames, the ICC profile and EXIF, from the demuxer.
    // A file cut short parses partially: that is a truncation, not corruption.
    WebPData whole = {data, size};
    WebPDemuxState state;
    WebPDemuxer *demux = WebPDemuxPartial(&whole, &state);
    WebPIterator frame;
    int have_frame = 0;
    if (demux && state == WEBP_DEMUX_DONE) {
        out->width = WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH);
        out->height = WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT);
        uint32_t frames = WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT);
        out->frame_count = frames > 0 ? frames : 1;
        uint32_t flags_ = WebPDemuxGetI(demux, WEBP_FF_FORMAT_FLAGS);
        if (flags_ & ICCP_FLAG) webp_copy_chunk(demux, "ICCP", &out->icc, &out->icc_size);
        if (flags_ & EXIF_FLAG) webp_copy_chunk(demux, "EXIF", &out->exif, &out->exif_size);
        have_frame = WebPDemuxGetFrame(demux, 1, &frame);
    }
    // An animation's first frame may be either kind: counted as lossless with alpha, the most it costs.
    int animated = features.has_animation != 0;
    out->work_bytes = webp_work_bytes(out->width, out->height, animated || features.format == 2, animated || features.has_alpha);
    out->validate_work_bytes = out->work_bytes;
    if (header_only || !demux || state != WEBP_DEMUX_DONE || !have_frame) {
        int truncated = state == WEBP_DEMUX_PARSING_HEADER || state == WEBP_DEMUX_PARSED_HEADER;
        int failed = !header_only && (!demux || state != WEBP_DEMUX_DONE || !have_frame);
        if (have_frame) WebPDemuxReleaseIterator(&frame);
        if (demux) WebPDemuxDelete(demux);
        if (!failed) return CIMAGE_OK;
        cimage_decoded_free(out);
        return cimage_fail(status, truncated ? CIMAGE_TRUNCATED : CIMAGE_CORRUPT,
                           truncated ? "WebP: the file ends inside the image" : "WebP: corrupt container");
    }
    if (cimage_check_pixels(out->width, out->height, max_pixels, "WebP", status) != CIMAGE_OK) {
        WebPDemuxReleaseIterator(&frame);
        WebPDemuxDelete(demux);
        cimage_decoded_free(out);
        return status->code;
    }
    size_t pixels_size = (size_t)out->width * out->height * 4;
    if (!validate) {
        out->pixels = cimage_alloc(pixels_size);
        out->pixels_size = pixels_size;
        if (!out->pixels) {
            WebPDemuxReleaseIterator(&frame);
            WebPDemuxDelete(demux);
            cimage_decoded_free(out);
            return cimage_fail(status, CIMAGE_NO_MEMORY, "WebP: out of memory for %ux%u pixels", out->width, out->height);
        }
    }
    int result;
    if (features.has_animation) {
        // The first frame as it shows: a key frame on a transparent canvas, decoded where it lies on
        // the canvas (what libwebpdemux's animation decoder does, without its two canvases).
        if (frame.x_offset < 0 || frame.y_offset < 0 || frame.width <= 0 || frame.height <= 0 ||
            (uint64_t)frame.x_offset + (uint64_t)frame.width > out->width ||
            (uint64_t)frame.y_offset + (uint64_t)frame.height > out->height) {
            result = cimage_fail(status, CIMAGE_CORRUPT, "WebP: the animation's first frame lies outside the canvas");
        } else {
            size_t stride = (size_t)out->width * 4;
            size_t start = (size_t)frame.y_offset * stride + (size_t)frame.x_offset * 4;
            result = webp_decode_frame(frame.fragment.bytes, frame.fragment.size, (uint32_t)frame.width, (uint32_t)frame.height,
                                       out->pixels ? out->pixels + start : NULL, stride, pixels_size - start, validate, status);
            if (result != CIMAGE_OK && status->code == CIMAGE_CORRUPT) {
                cimage_fail(status, CIMAGE_CORRUPT, "WebP: the animation's first frame does not decode");
            }
        }
    } else {
        result = webp_decode_frame(data, size, out->width, out->height, out->pixels, (size_t)out->width * 4, pixels_size,
                                   validate, status);
    }
    WebPDemuxReleaseIterator(&frame);
    WebPDemuxDelete(demux);
    if (result != CIMAGE_OK) {
        cimage_decoded_free(out);
        return result;
    }
    return CIMAGE_OK;
}

static const char *webp_encoding_error(WebPEncodingError error) {
    switch (error) {
    case VP8_ENC_ERROR_OUT_OF_MEMORY:
    case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: return "out of memory";
    case VP8_ENC_ERROR_BAD_DIMENSION: return "the image is larger than WebP allows (16383 a side)";
    case VP8_ENC_ERROR_PARTITION0_OVERFLOW:
    case VP8_ENC_ERROR_PARTITION_OVERFLOW: return "a partition overflowed (try a lower quality)";
    case VP8_ENC_ERROR_FILE_TOO_BIG: return "the file would be over 4 GiB";
    default: return "the encoder failed";
    }
}

int cimage_webp_encode(uint8_t *rgba, uint32_t width, uint32_t height, int quality, int lossless, int in_place,
                       const uint8_t *icc, size_t icc_size, cimage_buffer *out, cimage_status *status) {
    out->data = NULL;
    out->size = 0;
    cimage_ok(status);
    if (width == 0 || height == 0 || width > WEBP_MAX_DIMENSION || height > WEBP_MAX_DIMENSION) {
        return cimage_fail(status, CIMAGE_ENCODE_FAILED, "WebP cannot hold a %ux%u image (at most %d a side)", width, height,
                           WEBP_MAX_DIMENSION);
    }
    if (quality < 0) quality = 0;
    if (quality > 100) quality = 100;
    WebPConfig config;
    WebPPicture picture;
    if (!WebPConfigInit(&config) || !WebPPictureInit(&picture)) {
        return cimage_fail(status, CIMAGE_ENCODE_FAILED, "WebP: libwebp version mismatch");
    }
    config.quality = (float)quality;
    config.lossless = lossless ? 1 : 0;
    // Lossless means every pixel: libwebp would otherwise change the colour under transparent pixels.
    config.exact = lossless ? 1 : 0;
    // Lossy WebP halves chroma resolution: the sharp RGB to YUV conversion keeps coloured edges (text
    // on a screenshot) from bleeding, for a little more encoding time.
    config.use_sharp_yuv = lossless ? 0 : 1;
    picture.width = (int)width;
    picture.height = (int)height;
    // ARGB for both: a lossy encode then converts to YUV itself, with use_sharp_yuv.
    picture.use_argb = 1;
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    if (in_place) {
        // RGBA bytes become the words libwebp's import would make (A << 24 | R << 16 | G << 8 | B) where
        // they are: the picture borrows them (WebPPictureFree frees only what libwebp allocated).
        uint32_t *argb = (uint32_t *)(void *)rgba;
        size_t count = (size_t)width * height;
        for (size_t i = 0; i < count; i++) {
            const uint8_t *p = rgba + 4 * i;
            argb[i] = (uint32_t)p[3] << 24 | (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
        }
        picture.argb = argb;
        picture.argb_stride = (int)width;
    } else if (!WebPPictureImportRGBA(&picture, rgba, (int)width * 4)) {
        WebPPictureFree(&picture);
        return cimage_fail(status, CIMAGE_NO_MEMORY, "WebP: out of memory importing %ux%u pixels", width, height);
    }
    int encoded = WebPEncode(&config, &picture);
    WebPEncodingError error = picture.error_code;
    WebPPictureFree(&picture);
    if (!encoded) {
        WebPMemoryWriterClear(&writer);
        return cimage_fail(status, error == VP8_ENC_ERROR_OUT_OF_MEMORY ? CIMAGE_NO_MEMORY : CIMAGE_ENCODE_FAILED, "WebP: %s",
                           webp_encoding_error(error));
    }
    if (icc && icc_size > 0) {
        WebPData bitstream = {writer.mem, writer.size};
        WebPMux *mux = WebPMuxCreate(&bitstream, 0);
        WebPData profile = {icc, icc_size};
        WebPData assembled = {NULL, 0};
        int ok = mux && WebPMuxSetChunk(mux, "ICCP", &profile, 0) == WEBP_MUX_OK &&
                 WebPMuxAssemble(mux, &assembled) == WEBP_MUX_OK;
        if (ok) {
            // Copied into a malloc'd buffer: the caller frees with free(), not WebPFree.
            out->data = cimage_copy(assembled.bytes, assembled.size);
            out->size = out->data ? assembled.size : 0;
        }
        WebPDataClear(&assembled);
        if (mux) WebPMuxDelete(mux);
        WebPMemoryWriterClear(&writer);
        if (!ok) return cimage_fail(status, CIMAGE_ENCODE_FAILED, "WebP: the ICC profile could not be added");
        if (!out->data) return cimage_fail(status, CIMAGE_NO_MEMORY, "WebP: out of memory");
        return CIMAGE_OK;
    }
    out->data = cimage_copy(writer.mem, writer.size);
    out->size = out->data ? writer.size : 0;
    WebPMemoryWriterClear(&writer);
    if (!out->data) return cimage_fail(status, CIMAGE_NO_MEMORY, "WebP: out of memory");
    return CIMAGE_OK;
}
