// JPEG through libjpeg-turbo. libjpeg reports errors through error_exit, which must not return: ours
// longjmps to the setjmp of the entry point, inside C. Warnings that mean the data is damaged (the
// file ends early, a bad Huffman code, a segment cut short) are errors here: a clipboard image is
// whole or refused, never grey at the bottom.

#include "common.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

/// libjpeg-turbo's own advice for untrusted input: a progressive file with thousands of scans costs
/// time out of proportion to its size.
enum { jpeg_scan_limit = 500 };

typedef struct {
    struct jpeg_error_mgr manager;  // first: libjpeg hands back a pointer to it
    jmp_buf jump;
    cimage_status *status;
    int status_set;
    struct jpeg_progress_mgr progress;
    struct jpeg_decompress_struct decompress;
    struct jpeg_compress_struct compress;
    int decompress_created;
    int compress_created;
    uint8_t *pixels;
    size_t pixels_size;
    // The encoder's output: libjpeg fills the buffer, the callbacks move it into output.
    struct jpeg_destination_mgr destination;
    JOCTET buffer[65536];
    cimage_growing output;
} jpeg_context;

static void jpeg_context_fail(j_common_ptr common, int code) {
    jpeg_context *context = (jpeg_context *)common->err;
    if (!context->status_set) {
        char message[JMSG_LENGTH_MAX];
        common->err->format_message(common, message);
        cimage_fail(context->status, code, "JPEG: %s", message);
        context->status_set = 1;
    }
    longjmp(context->jump, 1);
}

static void jpeg_context_error_exit(j_common_ptr common) {
    switch (common->err->msg_code) {
    // Valid JPEG that libjpeg-turbo's 8-bit build does not read: 12-bit samples, the lossless process.
    case JERR_BAD_PRECISION:
    case JERR_SOF_UNSUPPORTED:
    case JERR_ARITH_NOTIMPL:
    case JERR_NOT_COMPILED:
        jpeg_context_fail(common, CIMAGE_UNSUPPORTED);
        break;
    default:
        jpeg_context_fail(common, CIMAGE_CORRUPT);
    }
}

static void jpeg_context_emit(j_common_ptr common, int level) {
    if (level != -1) return;  // trace messages
    switch (common->err->msg_code) {
    case JWRN_JPEG_EOF:
        jpeg_context_fail(common, CIMAGE_TRUNCATED);
        break;
    case JWRN_HUFF_BAD_CODE:
    case JWRN_ARITH_BAD_CODE:
    case JWRN_HIT_MARKER:
    case JWRN_MUST_RESYNC:
    case JWRN_BOGUS_PROGRESSION:
    case JWRN_NOT_SEQUENTIAL:
        jpeg_context_fail(common, CIMAGE_CORRUPT);
        break;
    default:
        // Extraneous bytes before a marker, an unknown JFIF revision or Adobe transform, a bad ICC
        // marker: the image itself is fine.
        break;
    }
}

static void jpeg_context_progress(j_common_ptr common) {
    if (common->is_decompressor) {
        j_decompress_ptr decompress = (j_decompress_ptr)common;
        if (decompress->input_scan_number > jpeg_scan_limit) {
            jpeg_context *context = (jpeg_context *)common->err;
            cimage_fail(context->status, CIMAGE_CORRUPT, "JPEG has more than %d scans", jpeg_scan_limit);
            context->status_set = 1;
            longjmp(context->jump, 1);
        }
    }
}

static jpeg_context *jpeg_context_new(cimage_status *status) {
    jpeg_context *context = calloc(1, sizeof *context);
    if (!context) return NULL;
    context->status = status;
    jpeg_std_error(&context->manager);
    context->manager.error_exit = jpeg_context_error_exit;
    context->manager.emit_message = jpeg_context_emit;
    context->progress.progress_monitor = jpeg_context_progress;
    return context;
}

static void jpeg_context_free(jpeg_context *context) {
    if (context->decompress_created) jpeg_destroy_decompress(&context->decompress);
    if (context->compress_created) jpeg_destroy_compress(&context->compress);
    cimage_release(context->pixels, context->pixels_size);
    free(context->output.data);
    free(context);
}

static void jpeg_context_set(jpeg_context *context, int code, const char *message, uint32_t a, uint32_t b) {
    cimage_fail(context->status, code, message, a, b);
    context->status_set = 1;
    longjmp(context->jump, 1);
}

/// CMYK samples to RGB in place (4 bytes a pixel both). Adobe's files (an APP14 marker) store the
/// samples inverted, as Photoshop writes them; libjpeg has already turned YCCK into CMYK.
static void jpeg_cmyk_to_rgba(uint8_t *row, uint32_t width, int inverted) {
    for (uint32_t x = 0; x < width; x++) {
        uint8_t *p = row + 4 * (size_t)x;
        unsigned c = p[0], m = p[1], y = p[2], k = p[3];
        if (!inverted) {
            c = 255 - c;
            m = 255 - m;
            y = 255 - y;
            k = 255 - k;
        }
        p[0] = (uint8_t)((c * k + 127) / 255);
        p[1] = (uint8_t)((m * k + 127) / 255);
        p[2] = (uint8_t)((y * k + 127) / 255);
        p[3] = 255;
    }
}

/// What libjpeg allocates for a decode besides the pixels, from the header: a progressive or multi-scan
/// file keeps every coefficient of the image (64 two-byte values a block, each component's blocks
/// rounded up to its sampling factors), any file a few rows of samples for upsampling and colour
/// conversion. The first scan's header has been read, so whether there are several scans is known.
static uint64_t jpeg_work_bytes(j_decompress_ptr cinfo, int scale) {
    uint64_t work = 1u << 20;
    int multi_scan = cinfo->progressive_mode || cinfo->comps_in_scan < cinfo->num_components;
    for (int c = 0; c < cinfo->num_components; c++) {
        jpeg_component_info *component = &cinfo->comp_info[c];
        uint64_t columns = ((uint64_t)component->width_in_blocks + (uint64_t)cinfo->max_h_samp_factor - 1) /
                           (uint64_t)cinfo->max_h_samp_factor * (uint64_t)cinfo->max_h_samp_factor;
        uint64_t rows = ((uint64_t)component->height_in_blocks + (uint64_t)cinfo->max_v_samp_factor - 1) /
                        (uint64_t)cinfo->max_v_samp_factor * (uint64_t)cinfo->max_v_samp_factor;
        if (multi_scan) work += columns * rows * 64 * sizeof(JCOEF);
        // A band of samples (two of the tallest MCU rows) a component, at the output's scale.
        work += 2 * columns * 8 / (uint64_t)scale * (uint64_t)cinfo->max_v_samp_factor * 8 / (uint64_t)scale + 64;
    }
    // Upsampled and colour-converted rows: at most a band of 4-byte pixels.
    work += (uint64_t)cinfo->image_width * 4 * 16 * 2 / (uint64_t)scale + 64;
    return work;
}

static void jpeg_decode_body(jpeg_context *context, const uint8_t *data, size_t size, uint64_t max_pixels,
                             int flags, cimage_decoded *out) {
    j_decompress_ptr cinfo = &context->decompress;
    cinfo->err = &context->manager;
    jpeg_create_decompress(cinfo);
    context->decompress_created = 1;
    cinfo->progress = &context->progress;
    // Buffers beyond this (a huge progressive image's coefficients) fail instead of growing.
    cinfo->mem->max_memory_to_use = 1536L << 20;
    jpeg_mem_src(cinfo, data, (unsigned long)size);
    jpeg_save_markers(cinfo, JPEG_APP0 + 1, 0xffff);
    jpeg_save_markers(cinfo, JPEG_APP0 + 2, 0xffff);
    if (jpeg_read_header(cinfo, TRUE) != JPEG_HEADER_OK) {
        jpeg_context_set(context, CIMAGE_CORRUPT, "JPEG has no image", 0, 0);
    }
    out->width = cinfo->image_width;
    out->height = cinfo->image_height;
    out->bits = 8;
    out->frame_count = 1;
    out->lossless = 0;
    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1 && marker->data_length > 6 && memcmp(marker->data, "Exif\0\0", 6) == 0) {
            out->exif = cimage_copy(marker->data + 6, marker->data_length - 6);
            out->exif_size = out->exif ? marker->data_length - 6 : 0;
            break;
        }
    }
    JOCTET *icc = NULL;
    unsigned int icc_size = 0;
    if (jpeg_read_icc_profile(cinfo, &icc, &icc_size) && icc) {
        out->icc = icc;
        out->icc_size = icc_size;
    }
    out->work_bytes = jpeg_work_bytes(cinfo, 1);
    out->validate_work_bytes = jpeg_work_bytes(cinfo, 8);
    if (flags & CIMAGE_HEADER_ONLY) return;
    if (cimage_check_pixels(cinfo->image_width, cinfo->image_height, max_pixels, "JPEG", context->status) != CIMAGE_OK) {
        context->status_set = 1;
        longjmp(context->jump, 1);
    }
    int cmyk = 0;
    switch (cinfo->jpeg_color_space) {
    case JCS_GRAYSCALE:
    case JCS_YCbCr:
    case JCS_RGB:
        cinfo->out_color_space = JCS_EXT_RGBA;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        cinfo->out_color_space = JCS_CMYK;
        cmyk = 1;
        break;
    default:
        jpeg_context_set(context, CIMAGE_UNSUPPORTED, "JPEG in an unknown colour space (%u components)",
                         (uint32_t)cinfo->num_components, 0);
    }
    if (flags & CIMAGE_VALIDATE) {
        // Every scan entropy-decoded as a full decode does (every error it finds, found), the pixels at
        // an eighth of the size (libjpeg's scaled IDCT keeps only each block's mean) into one row.
        cinfo->scale_num = 1;
        cinfo->scale_denom = 8;
    }
    jpeg_start_decompress(cinfo);
    if (cinfo->output_components != 4) {
        jpeg_context_set(context, CIMAGE_UNSUPPORTED, "JPEG decoded to %u components", (uint32_t)cinfo->output_components, 0);
    }
    if (flags & CIMAGE_VALIDATE) {
        context->pixels_size = (size_t)cinfo->output_width * 4;
        context->pixels = cimage_alloc(context->pixels_size);
        if (!context->pixels) jpeg_context_set(context, CIMAGE_NO_MEMORY, "JPEG: out of memory for a row", 0, 0);
        while (cinfo->output_scanline < cinfo->output_height) {
            JSAMPROW row = context->pixels;
            JDIMENSION first = cinfo->output_scanline;
            if (jpeg_read_scanlines(cinfo, &row, 1) == 0) {
                jpeg_context_set(context, CIMAGE_TRUNCATED, "JPEG ends at row %u of %u", first * 8, cinfo->image_height);
            }
        }
        jpeg_finish_decompress(cinfo);
        return;
    }
    size_t row_bytes = (size_t)cinfo->output_width * 4;
    context->pixels_size = row_bytes * cinfo->output_height;
    context->pixels = cimage_alloc(context->pixels_size);
    if (!context->pixels) {
        jpeg_context_set(context, CIMAGE_NO_MEMORY, "JPEG: out of memory for %ux%u pixels", cinfo->output_width,
                         cinfo->output_height);
    }
    while (cinfo->output_scanline < cinfo->output_height) {
        JSAMPROW rows[16];
        JDIMENSION first = cinfo->output_scanline;
        int count = 0;
        for (; count < 16 && first + (JDIMENSION)count < cinfo->output_height; count++) {
            rows[count] = context->pixels + row_bytes * (first + (JDIMENSION)count);
        }
        JDIMENSION read = jpeg_read_scanlines(cinfo, rows, (JDIMENSION)count);
        // With the whole file in memory a read that makes no progress means the data ran out.
        if (read == 0) jpeg_context_set(context, CIMAGE_TRUNCATED, "JPEG ends at row %u of %u", first, cinfo->output_height);
        if (cmyk) {
            for (JDIMENSION r = 0; r < read; r++) jpeg_cmyk_to_rgba(rows[r], cinfo->output_width, cinfo->saw_Adobe_marker);
        }
    }
    jpeg_finish_decompress(cinfo);
    out->width = cinfo->output_width;
    out->height = cinfo->output_height;
    out->pixels = context->pixels;
    out->pixels_size = row_bytes * cinfo->output_height;
    context->pixels = NULL;
}

int cimage_jpeg_decode(const uint8_t *data, size_t size, uint64_t max_pixels, int flags,
                       cimage_decoded *out, cimage_status *status) {
    memset(out, 0, sizeof *out);
    cimage_ok(status);
    if (size < 3 || data[0] != 0xff || data[1] != 0xd8) {
        return cimage_fail(status, size < 3 ? CIMAGE_TRUNCATED : CIMAGE_CORRUPT, "not a JPEG file (no SOI marker)");
    }
    jpeg_context *context = jpeg_context_new(status);
    if (!context) return cimage_fail(status, CIMAGE_NO_MEMORY, "JPEG: out of memory");
    if (setjmp(context->jump) == 0) {
        jpeg_decode_body(context, data, size, max_pixels, flags, out);
    } else {
        cimage_decoded_free(out);
    }
    jpeg_context_free(context);
    return status->code;
}

static void jpeg_destination_init(j_compress_ptr cinfo) {
    jpeg_context *context = (jpeg_context *)cinfo->err;
    context->destination.next_output_byte = context->buffer;
    context->destination.free_in_buffer = sizeof context->buffer;
}

static void jpeg_destination_flush(jpeg_context *context, size_t count) {
    if (!cimage_growing_append(&context->output, context->buffer, count)) {
        jpeg_context_set(context, CIMAGE_NO_MEMORY, "JPEG: out of memory for the encoded image", 0, 0);
    }
}

static boolean jpeg_destination_empty(j_compress_ptr cinfo) {
    jpeg_context *context = (jpeg_context *)cinfo->err;
    jpeg_destination_flush(context, sizeof context->buffer);
    jpeg_destination_init(cinfo);
    return TRUE;
}

static void jpeg_destination_term(j_compress_ptr cinfo) {
    jpeg_context *context = (jpeg_context *)cinfo->err;
    jpeg_destination_flush(context, sizeof context->buffer - context->destination.free_in_buffer);
}

/// One row of 8-bit RGBA put over white into RGBX: c·a + 255·(1 − a), rounded (what ImageCodec did to a
/// copy of the whole image before).
static void jpeg_composite_row(const uint8_t *source, uint8_t *target, uint32_t width) {
    for (uint32_t x = 0; x < width; x++) {
        const uint8_t *p = source + 4 * (size_t)x;
        uint8_t *q = target + 4 * (size_t)x;
        uint32_t alpha = p[3], white = 255 * (255 - alpha) + 127;
        q[0] = (uint8_t)((p[0] * alpha + white) / 255);
        q[1] = (uint8_t)((p[1] * alpha + white) / 255);
        q[2] = (uint8_t)((p[2] * alpha + white) / 255);
        q[3] = 255;
    }
}

static void jpeg_encode_body(jpeg_context *context, const uint8_t *rgbx, uint32_t width, uint32_t height, int quality,
                             int composite, const uint8_t *icc, size_t icc_size) {
    j_compress_ptr cinfo = &context->compress;
    cinfo->err = &context->manager;
    jpeg_create_compress(cinfo);
    context->compress_created = 1;
    context->destination.init_destination = jpeg_destination_init;
    context->destination.empty_output_buffer = jpeg_destination_empty;
    context->destination.term_destination = jpeg_destination_term;
    cinfo->dest = &context->destination;
    cinfo->image_width = width;
    cinfo->image_height = height;
    cinfo->input_components = 4;
    cinfo->in_color_space = JCS_EXT_RGBX;
    jpeg_set_defaults(cinfo);
    jpeg_set_quality(cinfo, quality, TRUE);
    // From quality 90 chroma keeps full resolution (as ImageMagick and libjpeg-turbo's cjpeg choose):
    // coloured text on a screenshot stays sharp.
    if (quality >= 90) {
        cinfo->comp_info[0].h_samp_factor = 1;
        cinfo->comp_info[0].v_samp_factor = 1;
    }
    // No optimize_coding: fitted Huffman tables make a 4K screenshot's JPEG 18% smaller, but libjpeg
    // then keeps every coefficient of the image for a second pass (46 ms and 61 MiB became 78 ms and
    // 86 MiB). A clipboard's JPEG travels between local processes; time and memory count more.
    jpeg_start_compress(cinfo, TRUE);
    if (icc && icc_size > 0 && icc_size <= 0xffffffffu) jpeg_write_icc_profile(cinfo, icc, (unsigned int)icc_size);
    size_t row_bytes = (size_t)width * 4;
    if (composite) {
        // A band of 16 composited rows at a time, never the whole image.
        context->pixels_size = row_bytes * 16;
        context->pixels = cimage_alloc(context->pixels_size);
        if (!context->pixels) jpeg_context_set(context, CIMAGE_NO_MEMORY, "JPEG: out of memory for %ux%u pixels", width, 16);
    }
    while (cinfo->next_scanline < cinfo->image_height) {
        JSAMPROW rows[16];
        JDIMENSION first = cinfo->next_scanline;
        int count = 0;
        for (; count < 16 && first + (JDIMENSION)count < height; count++) {
            const uint8_t *source = rgbx + row_bytes * (first + (JDIMENSION)count);
            if (composite) {
                uint8_t *band = context->pixels + row_bytes * (size_t)count;
                jpeg_composite_row(source, band, width);
                rows[count] = band;
            } else {
                rows[count] = (JSAMPROW)source;
            }
        }
        jpeg_write_scanlines(cinfo, rows, (JDIMENSION)count);
    }
    jpeg_finish_compress(cinfo);
}

int cimage_jpeg_encode(const uint8_t *rgbx, uint32_t width, uint32_t height, int quality, int composite,
                       const uint8_t *icc, size_t icc_size, cimage_buffer *out, cimage_status *status) {
    out->data = NULL;
    out->size = 0;
    cimage_ok(status);
    if (width == 0 || height == 0 || width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION) {
        return cimage_fail(status, CIMAGE_ENCODE_FAILED, "JPEG cannot hold a %ux%u image (at most %d a side)", width, height,
                           (int)JPEG_MAX_DIMENSION);
    }
    if (quality < 1) quality = 1;
    if (quality > 100) quality = 100;
    jpeg_context *context = jpeg_context_new(status);
    if (!context) return cimage_fail(status, CIMAGE_NO_MEMORY, "JPEG: out of memory");
    if (setjmp(context->jump) == 0) {
        jpeg_encode_body(context, rgbx, width, height, quality, composite, icc, icc_size);
        out->data = context->output.data;
        out->size = context->output.size;
        context->output.data = NULL;
    } else if (status->code == CIMAGE_CORRUPT) {
        status->code = CIMAGE_ENCODE_FAILED;
    }
    jpeg_context_free(context);
    return status->code;
}
