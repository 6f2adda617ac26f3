// PNG through libpng. libpng reports errors with longjmp: each entry point below sets its setjmp
// before the first libpng call, and the error callback jumps back there, so no Swift frame is ever
// crossed. The state that must survive the jump lives in a heap context (not in locals the jump
// could leave indeterminate).

#include "common.h"

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

static void png_decode_body(png_context *context, uint64_t max_pixels, int header_only, cimage_decoded *out) {
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
    out->width = width;
    out->height = height;
    out->bits = bit_depth == 16 ? 16 : 8;
    out->frame_count = 1;
    out->lossless = 1;

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
    if (header_only) return;
    if (cimage_check_pixels(width, height, max_pixels, "PNG", context->status) != CIMAGE_OK) {
        context->status_set = 1;
        png_error(png, "too many pixels");
    }

    // Every variant to RGBA of its own depth: palette and low-depth gray expanded, tRNS to alpha,
    // gray to RGB, an opaque alpha added where there is none.
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    int has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    if (has_trns) png_set_tRNS_to_alpha(png);
    if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    if (!(color_type & PNG_COLOR_MASK_ALPHA) && !has_trns) {
        png_set_filler(png, bit_depth == 16 ? 0xffff : 0xff, PNG_FILLER_AFTER);
    }
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (bit_depth == 16) png_set_swap(png);
#endif
    png_set_interlace_handling(png);
    png_read_update_info(png, info);

    size_t row_bytes = png_get_rowbytes(png, info);
    size_t expected = (size_t)width * (out->bits == 16 ? 8 : 4);
    if (row_bytes != expected) {
        cimage_fail(context->status, CIMAGE_UNSUPPORTED, "PNG: a row of %zu bytes where RGBA needs %zu", row_bytes, expected);
        context->status_set = 1;
        png_error(png, "unexpected row size");
    }
    context->pixels = malloc(row_bytes * height);
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

int cimage_png_decode(const uint8_t *data, size_t size, uint64_t max_pixels, int header_only,
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
        png_decode_body(context, max_pixels, header_only, out);
    } else {
        cimage_decoded_free(out);
    }
    png_destroy_read_struct(&context->png, &context->info, NULL);
    free(context->pixels);
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
