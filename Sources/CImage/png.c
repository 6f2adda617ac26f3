// PNG through libpng. libpng reports errors with longjmp: each entry point below sets its setjmp
// before the first libpng call, and the error callback jumps back there, so no Swift frame is ever
// crossed. The state that must survive the jump lives in a heap context (not in locals the jump
// could leave indeterminate).

#include "common.h"

#include <libdeflate.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    jmp_buf jump;
    cimage_status *status;
    // Set when a callback chose the code (a truncated read) before libpng's own error.
    int status_set;
    const uint8_t *data;
    size_t size;
    size_t offset;
    png_structp png;
    png_infop info;
    uint8_t *pixels;
    size_t pixels_size;
    png_bytep *rows;
    cimage_growing output;
} png_context;

static void png_context_error(png_structp png, png_const_charp message) {
    png_context *context = png_get_error_ptr(png);
    if (!context->status_set) {
        cimage_fail(context->status, CIMAGE_CORRUPT, "PNG: %s", message);
        context->status_set = 1;
    }
    longjmp(context->jump, 1);
}

static void png_context_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

static void png_context_read(png_structp png, png_bytep bytes, size_t count) {
    png_context *context = png_get_io_ptr(png);
    if (count > context->size - context->offset) {
        cimage_fail(context->status, CIMAGE_TRUNCATED, "PNG ends after %zu bytes, inside the image data",
                    context->size);
        context->status_set = 1;
        png_error(png, "truncated");
    }
    memcpy(bytes, context->data + context->offset, count);
    context->offset += count;
}

static void png_context_write(png_structp png, png_bytep bytes, size_t count) {
    png_context *context = png_get_io_ptr(png);
    if (!cimage_growing_append(&context->output, bytes, count)) {
        cimage_fail(context->status, CIMAGE_NO_MEMORY, "PNG: out of memory for the encoded image");
        context->status_set = 1;
        png_error(png, "out of memory");
    }
}

static void png_context_flush(png_structp png) { (void)png; }

static uint32_t png_be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/// PNG's Paeth predictor: the neighbour (left, above, upper left) closest to left + above - upper left.
static inline uint8_t png_paeth(int a, int b, int c) {
    int p = b - c, q = a - c;
    int pa = p < 0 ? -p : p, pb = q < 0 ? -q : q, pc = p + q < 0 ? -(p + q) : p + q;
    return (uint8_t)(pa <= pb && pa <= pc ? a : (pb <= pc ? b : c));
}

/// Undoes one row's filter in place; prior is the row above, already unfiltered (NULL for the first).
static int png_unfilter(uint8_t *row, const uint8_t *prior, size_t length, size_t bpp, int filter) {
    size_t i;
    switch (filter) {
    case 0: return 1;
    case 1:
        for (i = bpp; i < length; i++) row[i] = (uint8_t)(row[i] + row[i - bpp]);
        return 1;
    case 2:
        if (prior) for (i = 0; i < length; i++) row[i] = (uint8_t)(row[i] + prior[i]);
        return 1;
    case 3:
        for (i = 0; i < bpp; i++) row[i] = (uint8_t)(row[i] + (prior ? prior[i] >> 1 : 0));
        for (; i < length; i++) row[i] = (uint8_t)(row[i] + ((row[i - bpp] + (prior ? prior[i] : 0)) >> 1));
        return 1;
    case 4:
        if (!prior) {
            for (i = bpp; i < length; i++) row[i] = (uint8_t)(row[i] + row[i - bpp]);
            return 1;
        }
        for (i = 0; i < bpp; i++) row[i] = (uint8_t)(row[i] + prior[i]);
        for (; i < length; i++) row[i] = (uint8_t)(row[i] + png_paeth(row[i - bpp], prior[i], prior[i - bpp]));
        return 1;
    default: return 0;
    }
}

/// The channels of a colour type the fast path reads (0: not one of them).
static int png_fast_channels(int color_type) {
    switch (color_type) {
    case PNG_COLOR_TYPE_GRAY: return 1;
    case PNG_COLOR_TYPE_GRAY_ALPHA: return 2;
    case PNG_COLOR_TYPE_RGB: return 3;
    case PNG_COLOR_TYPE_RGB_ALPHA: return 4;
    default: return 0;
    }
}

/// The IDAT chunks from where libpng stopped (right after the first IDAT's length and type): their
/// total length and how many, each inside the file. 0 when the layout is not that.
static size_t png_idat_total(const png_context *context, size_t *end, int *chunks) {
    const uint8_t *data = context->data;
    size_t size = context->size, offset = context->offset;
    *chunks = 0;
    if (offset < 8 || memcmp(data + offset - 4, "IDAT", 4) != 0) return 0;
    size_t total = 0, position = offset - 8;
    while (size - position >= 12 && memcmp(data + position + 4, "IDAT", 4) == 0) {
        size_t length = png_be32(data + position);
        if (length > size - position - 12) return 0;
        total += length;
        position += 12 + length;
        (*chunks)++;
    }
    *end = position;
    return total;
}

/// Whether the fast path below takes the image: non-interlaced 8- or 16-bit gray, gray + alpha, RGB or
/// RGBA without tRNS, decoded at the depth it has.
static int png_fast_eligible(png_context *context, int bit_depth, int color_type, int interlace, int eight_bit) {
    if (interlace != PNG_INTERLACE_NONE || png_get_valid(context->png, context->info, PNG_INFO_tRNS)) return 0;
    if (!png_fast_channels(color_type) || (bit_depth != 8 && bit_depth != 16)) return 0;
    return !(bit_depth == 16 && eight_bit);
}

/// The buffer the fast path decodes in: the raw rows (a filter byte each) inflated into the end of the
/// pixel buffer and expanded in place, so the buffer is the larger of the two, never both.
static size_t png_fast_buffer(png_uint_32 width, png_uint_32 height, int bit_depth, int color_type) {
    size_t sample_bytes = (size_t)bit_depth / 8;
    size_t raw_row = (size_t)width * (size_t)png_fast_channels(color_type) * sample_bytes + 1;
    size_t out_row = (size_t)width * 4 * sample_bytes;
    return (raw_row > out_row ? raw_row : out_row) * height;
}

/// The common case without libpng's row loop: a non-interlaced 8- or 16-bit RGB, RGBA, gray or
/// gray + alpha image without tRNS, its IDAT data inflated by libdeflate in one call (several times
/// zlib's speed, which bounds libpng here) into the end of the pixel buffer, then unfiltered and
/// expanded to RGBA row by row in place: no buffer the size of the image but the pixels. libpng has
/// read and checked everything before the first IDAT; the IDAT chunks' CRCs are checked here. Any
/// surprise (a bad CRC, a stream of the wrong length, an unknown filter) returns 0 with nothing
/// changed, and libpng decodes the file from where it stopped, reporting the error its own way.
static int png_decode_fast(png_context *context, png_uint_32 width, png_uint_32 height, int bit_depth, int color_type,
                           cimage_decoded *out) {
    int channels = png_fast_channels(color_type);
    const uint8_t *data = context->data;
    size_t offset = context->offset, position = 0;
    int chunks;
    size_t total = png_idat_total(context, &position, &chunks);
    if (total == 0) return 0;
    size_t first_length = png_be32(data + offset - 8);
    for (size_t chunk = offset - 8; chunk < position;) {
        size_t length = png_be32(data + chunk);
        uint32_t crc = (uint32_t)libdeflate_crc32(0, data + chunk + 4, length + 4);
        if (crc != png_be32(data + chunk + 8 + length)) return 0;
        chunk += 12 + length;
    }
    // The IDAT data in one buffer only when there are several chunks.
    uint8_t *joined = NULL;
    const uint8_t *stream = data + offset;
    if (total != first_length) {
        joined = malloc(total);
        if (!joined) return 0;
        size_t at = 0;
        for (size_t chunk = offset - 8; chunk < position;) {
            size_t length = png_be32(data + chunk);
            memcpy(joined + at, data + chunk + 8, length);
            at += length;
            chunk += 12 + length;
        }
        stream = joined;
    }
    size_t sample_bytes = (size_t)bit_depth / 8, bpp = (size_t)channels * sample_bytes;
    size_t raw_row = (size_t)width * bpp, raw_size = (raw_row + 1) * height;
    size_t out_row = (size_t)width * 4 * sample_bytes, out_size = out_row * height;
    size_t buffer_size = png_fast_buffer(width, height, bit_depth, color_type);
    // Two rows: the row above, unfiltered (its place in the buffer may be written over by then), and
    // the current one, copied out before its pixels are written.
    uint8_t *scratch = malloc(2 * raw_row);
    uint8_t *buffer = scratch ? cimage_alloc(buffer_size) : NULL;
    uint8_t *raw = buffer ? buffer + (buffer_size - raw_size) : NULL;
    struct libdeflate_decompressor *inflater = buffer ? libdeflate_alloc_decompressor() : NULL;
    int ok = inflater && libdeflate_zlib_decompress(inflater, stream, total, raw, raw_size, NULL) == LIBDEFLATE_SUCCESS;
    if (inflater) libdeflate_free_decompressor(inflater);
    free(joined);
    if (!ok) {
        free(scratch);
        cimage_release(buffer, buffer_size);
        return 0;
    }
    uint8_t *prior = NULL, *current = scratch, *spare = scratch + raw_row;
    for (png_uint_32 y = 0; y < height && ok; y++) {
        uint8_t *row = raw + y * (raw_row + 1);
        memcpy(current, row + 1, raw_row);
        ok = png_unfilter(current, prior, raw_row, bpp, row[0]);
        // The output row ends before the next raw row starts (buffer_size is the larger of the two
        // layouts): the rows below are intact, the one above is in `prior`.
        uint8_t *target = buffer + out_row * y;
        if (bit_depth == 8) {
            if (channels == 4) {
                memcpy(target, current, raw_row);
            } else {
                for (png_uint_32 x = 0; x < width; x++) {
                    const uint8_t *p = current + x * bpp;
                    uint8_t *q = target + 4 * (size_t)x;
                    switch (channels) {
                    case 1: q[0] = q[1] = q[2] = p[0]; q[3] = 255; break;
                    case 2: q[0] = q[1] = q[2] = p[0]; q[3] = p[1]; break;
                    default: q[0] = p[0]; q[1] = p[1]; q[2] = p[2]; q[3] = 255; break;
                    }
                }
            }
        } else {
            // Big-endian samples to uint16_t in the machine's order.
            uint16_t *q = (uint16_t *)target;
            for (png_uint_32 x = 0; x < width; x++) {
                const uint8_t *p = current + x * bpp;
                uint16_t s[4];
                for (int c = 0; c < channels; c++) s[c] = (uint16_t)(p[2 * c] << 8 | p[2 * c + 1]);
                switch (channels) {
                case 1: q[0] = q[1] = q[2] = s[0]; q[3] = 0xffff; break;
                case 2: q[0] = q[1] = q[2] = s[0]; q[3] = s[1]; break;
                case 3: q[0] = s[0]; q[1] = s[1]; q[2] = s[2]; q[3] = 0xffff; break;
                default: q[0] = s[0]; q[1] = s[1]; q[2] = s[2]; q[3] = s[3]; break;
                }
                q += 4;
            }
        }
        prior = current;
        current = spare;
        spare = prior;
    }
    free(scratch);
    if (!ok) {
        // An unknown filter: libpng reads the file again and says so. Nothing here was kept.
        cimage_release(buffer, buffer_size);
        return 0;
    }
    buffer = cimage_shrink(buffer, buffer_size, out_size);
    if (!buffer) return 0;
    out->pixels = buffer;
    out->pixels_size = out_size;
    return 1;
}

/// CIMAGE_VALIDATE: every row read through libpng (inflated, CRC-checked, unfiltered) into one row
/// buffer, nothing kept: the checks a decode makes, without its pixels.
static void png_validate_rows(png_context *context, png_uint_32 height) {
    png_structp png = context->png;
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, context->info);
    size_t row_bytes = png_get_rowbytes(png, context->info);
    context->rows = malloc(sizeof(png_bytep));
    context->pixels_size = row_bytes;
    context->pixels = cimage_alloc(row_bytes);
    if (!context->pixels || !context->rows) {
        cimage_fail(context->status, CIMAGE_NO_MEMORY, "PNG: out of memory for a row of %zu bytes", row_bytes);
        context->status_set = 1;
        png_error(png, "out of memory");
    }
    for (int pass = 0; pass < passes; pass++) {
        for (png_uint_32 y = 0; y < height; y++) png_read_row(png, context->pixels, NULL);
    }
}

static void png_decode_body(png_context *context, uint64_t max_pixels, int flags, cimage_decoded *out) {
    png_structp png = context->png;
    png_infop info = context->info;
    png_set_read_fn(png, context, png_context_read);
    // The pixel cap is ours (checked below with its own message); libpng's default limits of one
    // million rows or columns would refuse valid panoramas first.
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    // Ancillary chunks: at most 1000 kept, none over 16 MiB decompressed (iCCP, zTXt, iTXt).
    png_set_chunk_cache_max(png, 1000);
    png_set_chunk_malloc_max(png, 16u << 20);
    png_read_info(png, info);

    png_uint_32 width, height;
    int bit_depth, color_type, interlace;
    png_get_IHDR(png, info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
    int eight_bit = (flags & CIMAGE_EIGHT_BIT) != 0;
    int out_bits = bit_depth == 16 && !eight_bit ? 16 : 8;
    out->width = width;
    out->height = height;
    out->bits = (flags & CIMAGE_HEADER_ONLY) ? (bit_depth == 16 ? 16 : 8) : (uint32_t)out_bits;
    out->frame_count = 1;
    out->lossless = 1;
    // What each kind of decode needs besides the pixels (png_get_rowbytes is the file's row, before
    // any transformation; libpng keeps two of those and one of the transformed row, up to 8 bytes a
    // pixel, and an array of row pointers).
    size_t file_row = png_get_rowbytes(png, info) + 1;
    uint64_t libpng_rows = 2 * (uint64_t)file_row + 8 * (uint64_t)width + 8 * (uint64_t)height + (256u << 10);
    out->validate_work_bytes = 2 * (uint64_t)file_row + (256u << 10);
    if (png_fast_eligible(context, bit_depth, color_type, interlace, eight_bit)) {
        size_t idat_end;
        int chunks;
        size_t total = png_idat_total(context, &idat_end, &chunks);
        uint64_t pixels = (uint64_t)width * height * (out_bits == 16 ? 8 : 4);
        out->work_bytes = png_fast_buffer(width, height, bit_depth, color_type) - pixels + (chunks > 1 ? total : 0) +
                          2 * (uint64_t)file_row + (64u << 10);
    } else {
        out->work_bytes = libpng_rows;
    }

    png_charp name;
    int compression;
    png_bytep profile;
    png_uint_32 profile_size;
    if (png_get_iCCP(png, info, &name, &compression, &profile, &profile_size) && profile_size > 0) {
        out->icc = cimage_copy(profile, profile_size);
        out->icc_size = out->icc ? profile_size : 0;
    }
#ifdef PNG_eXIf_SUPPORTED
    png_uint_32 exif_size;
    png_bytep exif;
    if (png_get_eXIf_1(png, info, &exif_size, &exif) && exif_size > 0) {
        out->exif = cimage_copy(exif, exif_size);
        out->exif_size = out->exif ? exif_size : 0;
    }
#endif
    if (flags & CIMAGE_HEADER_ONLY) return;
    if (cimage_check_pixels(width, height, max_pixels, "PNG", context->status) != CIMAGE_OK) {
        context->status_set = 1;
        png_error(png, "too many pixels");
    }
    if (flags & CIMAGE_VALIDATE) {
        png_validate_rows(context, height);
        return;
    }

    if (png_fast_eligible(context, bit_depth, color_type, interlace, eight_bit) &&
        png_decode_fast(context, width, height, bit_depth, color_type, out)) {
        return;
    }

    // Every variant to RGBA of its own depth: palette and low-depth gray expanded, tRNS to alpha,
    // gray to RGB, an opaque alpha added where there is none; 16 bits scaled to 8 when asked (libpng's
    // scaling rounds v * 255 / 65535 to the nearest, as RasterImage.eightBit() does).
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    int has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    if (has_trns) png_set_tRNS_to_alpha(png);
    if (bit_depth == 16 && eight_bit) png_set_scale_16(png);
    if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    if (!(color_type & PNG_COLOR_MASK_ALPHA) && !has_trns) {
        png_set_filler(png, out_bits == 16 ? 0xffff : 0xff, PNG_FILLER_AFTER);
    }
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (out_bits == 16) png_set_swap(png);
#endif
    png_set_interlace_handling(png);
    png_read_update_info(png, info);

    size_t row_bytes = png_get_rowbytes(png, info);
    size_t expected = (size_t)width * (out_bits == 16 ? 8 : 4);
    if (row_bytes != expected) {
        cimage_fail(context->status, CIMAGE_UNSUPPORTED, "PNG: a row of %zu bytes where RGBA needs %zu", row_bytes, expected);
        context->status_set = 1;
        png_error(png, "unexpected row size");
    }
    context->pixels_size = row_bytes * height;
    context->pixels = cimage_alloc(context->pixels_size);
    context->rows = malloc(sizeof(png_bytep) * height);
    if (!context->pixels || !context->rows) {
        cimage_fail(context->status, CIMAGE_NO_MEMORY, "PNG: out of memory for %ux%u pixels", width, height);
        context->status_set = 1;
        png_error(png, "out of memory");
    }
    for (png_uint_32 y = 0; y < height; y++) context->rows[y] = context->pixels + row_bytes * y;
    png_read_image(png, context->rows);
    out->pixels = context->pixels;
    out->pixels_size = row_bytes * height;
    context->pixels = NULL;
}

int cimage_png_decode(const uint8_t *data, size_t size, uint64_t max_pixels, int flags,
                      cimage_decoded *out, cimage_status *status) {
    memset(out, 0, sizeof *out);
    cimage_ok(status);
    png_context *context = calloc(1, sizeof *context);
    if (!context) return cimage_fail(status, CIMAGE_NO_MEMORY, "PNG: out of memory");
    context->status = status;
    context->data = data;
    context->size = size;
    if (size < 8 || png_sig_cmp(data, 0, 8) != 0) {
        free(context);
        return cimage_fail(status, size < 8 ? CIMAGE_TRUNCATED : CIMAGE_CORRUPT, "not a PNG file (no PNG signature)");
    }
    context->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, context, png_context_error, png_context_warning);
    if (context->png) context->info = png_create_info_struct(context->png);
    if (!context->png || !context->info) {
        png_destroy_read_struct(context->png ? &context->png : NULL, NULL, NULL);
        free(context);
        return cimage_fail(status, CIMAGE_NO_MEMORY, "PNG: out of memory");
    }
    if (setjmp(context->jump) == 0) {
        png_decode_body(context, max_pixels, flags, out);
    } else {
        cimage_decoded_free(out);
    }
    png_destroy_read_struct(&context->png, &context->info, NULL);
    cimage_release(context->pixels, context->pixels_size);
    free(context->rows);
    free(context);
    return status->code;
}

static void png_encode_body(png_context *context, const uint8_t *rgba, uint32_t width, uint32_t height, uint32_t bits,
                            int with_alpha, const uint8_t *icc, size_t icc_size) {
    png_structp png = context->png;
    png_infop info = context->info;
    png_set_write_fn(png, context, png_context_write, png_context_flush);
    // A profile libpng finds wrong is dropped with a warning rather than failing the copy.
    png_set_benign_errors(png, 1);
    png_set_IHDR(png, info, width, height, (int)bits, with_alpha ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (icc && icc_size > 0 && icc_size <= 0x7fffffff) {
        png_set_iCCP(png, info, "ICC Profile", PNG_COMPRESSION_TYPE_BASE, icc, (png_uint_32)icc_size);
    }
    png_write_info(png, info);
    // The input is RGBA: the fourth sample is dropped when the image is written as RGB.
    if (!with_alpha) png_set_filler(png, 0, PNG_FILLER_AFTER);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (bits == 16) png_set_swap(png);
#endif
    size_t row_bytes = (size_t)width * (bits == 16 ? 8 : 4);
    for (uint32_t y = 0; y < height; y++) png_write_row(png, rgba + row_bytes * y);
    png_write_end(png, info);
}

int cimage_png_encode(const uint8_t *rgba, uint32_t width, uint32_t height, uint32_t bits, int with_alpha,
                      const uint8_t *icc, size_t icc_size, cimage_buffer *out, cimage_status *status) {
    out->data = NULL;
    out->size = 0;
    cimage_ok(status);
    if (width == 0 || height == 0 || width > 0x7fffffff || height > 0x7fffffff || (bits != 8 && bits != 16)) {
        return cimage_fail(status, CIMAGE_ENCODE_FAILED, "PNG cannot hold a %ux%u image of %u bits", width, height, bits);
    }
    png_context *context = calloc(1, sizeof *context);
    if (!context) return cimage_fail(status, CIMAGE_NO_MEMORY, "PNG: out of memory");
    context->status = status;
    context->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, context, png_context_error, png_context_warning);
    if (context->png) context->info = png_create_info_struct(context->png);
    if (!context->png || !context->info) {
        png_destroy_write_struct(context->png ? &context->png : NULL, NULL);
        free(context);
        return cimage_fail(status, CIMAGE_NO_MEMORY, "PNG: out of memory");
    }
    if (setjmp(context->jump) == 0) {
        png_encode_body(context, rgba, width, height, bits, with_alpha, icc, icc_size);
        out->data = context->output.data;
        out->size = context->output.size;
        context->output.data = NULL;
    } else if (status->code == CIMAGE_CORRUPT) {
        // libpng's own refusal while writing: the encoder failed, the input was not corrupt.
        status->code = CIMAGE_ENCODE_FAILED;
    }
    png_destroy_write_struct(&context->png, &context->info);
    free(context->output.data);
    free(context);
    return status->code;
}
