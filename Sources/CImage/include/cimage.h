#ifndef CIMAGE_H
#define CIMAGE_H

// The C side of pbctl's image codecs: libpng, libjpeg-turbo and libwebp behind functions that never
// longjmp into their caller. libpng and libjpeg report errors with longjmp; every entry point here
// sets its own setjmp, so a failure unwinds only C frames and comes back as a status code and a
// one-line message. Only Sources/Images calls these (scripts/check-source.sh).
//
// Pixels are RGBA, rows top-down without padding: 4 bytes a pixel (8 bits a channel) or 8 bytes a
// pixel (16 bits a channel, each sample a uint16_t in the machine's byte order). Every buffer these
// functions hand back belongs to the caller: pixels from cimage_alloc (cimage_release frees them),
// everything else from malloc (free).

#include <stddef.h>
#include <stdint.h>

typedef enum {
    CIMAGE_OK = 0,
    /// The input ends before the image does.
    CIMAGE_TRUNCATED = 1,
    /// The input is not a valid image of the format.
    CIMAGE_CORRUPT = 2,
    /// The declared size is over the caller's pixel cap (checked before any pixel is allocated).
    CIMAGE_TOO_MANY_PIXELS = 3,
    /// A valid image of a kind the codec does not handle.
    CIMAGE_UNSUPPORTED = 4,
    CIMAGE_NO_MEMORY = 5,
    /// The encoder refused the image (libpng, libjpeg or libwebp said why in the message).
    CIMAGE_ENCODE_FAILED = 6,
} cimage_code;

typedef struct {
    int code;           // a cimage_code
    char message[160];  // one line, NUL-terminated; empty when code is CIMAGE_OK
} cimage_status;

/// What a decoder found. Owned buffers are NULL or allocated: pixels with cimage_alloc (pixels_size
/// bytes), icc and exif with malloc.
typedef struct {
    uint32_t width;
    uint32_t height;
    /// 8 or 16 bits a channel (16 only from 16-bit PNG).
    uint32_t bits;
    /// Frames in the file (animated GIF and WebP); the pixels are the first.
    uint32_t frame_count;
    /// 1 when the source is lossless (WebP: VP8L; PNG: always), 0 when lossy.
    uint32_t lossless;
    uint8_t *pixels;
    size_t pixels_size;
    uint8_t *icc;
    size_t icc_size;
    /// The EXIF block as stored (a TIFF structure, "Exif\0\0" removed), for the orientation.
    uint8_t *exif;
    size_t exif_size;
} cimage_decoded;

/// An encoded file: malloc'd bytes.
typedef struct {
    uint8_t *data;
    size_t size;
} cimage_buffer;

/// Decoders. With header_only set, they read what precedes the pixels (size, ICC, EXIF) and allocate
/// no pixels; otherwise they refuse, before allocating, an image of more than max_pixels pixels.
/// On failure every out-buffer is NULL. Return the status code.
int cimage_png_decode(const uint8_t *data, size_t size, uint64_t max_pixels, int header_only,
                      cimage_decoded *out, cimage_status *status);
int cimage_jpeg_decode(const uint8_t *data, size_t size, uint64_t max_pixels, int header_only,
                       cimage_decoded *out, cimage_status *status);
/// Animated WebP: the first frame on its canvas (libwebpdemux's animation decoder).
int cimage_webp_decode(const uint8_t *data, size_t size, uint64_t max_pixels, int header_only,
                       cimage_decoded *out, cimage_status *status);

/// free(), for Swift code that imports no C library module.
void cimage_free(void *pointer);

/// A zeroed buffer for pixels. From 8 MiB it is its own mapping, advised into transparent huge pages:
/// a 4K screenshot's 33 MB would otherwise cost some 8,000 page faults, most of a conversion's time.
/// Decoders return pixels allocated here; release them with cimage_release and the same size.
void *cimage_alloc(size_t size);
void cimage_release(void *pointer, size_t size);

/// Frees every owned buffer of a cimage_decoded and zeroes it.
void cimage_decoded_free(cimage_decoded *decoded);

/// PNG from RGBA (bits 8 or 16). with_alpha 0 writes RGB (the caller found every pixel opaque).
/// The ICC profile, if any, goes into iCCP.
int cimage_png_encode(const uint8_t *rgba, uint32_t width, uint32_t height, uint32_t bits, int with_alpha,
                      const uint8_t *icc, size_t icc_size, cimage_buffer *out, cimage_status *status);
/// Baseline JPEG (4:2:0 at quality below 90, 4:4:4 from 90) from RGBX: the fourth byte is ignored, the
/// caller has composited alpha. The ICC profile, if any, goes into APP2 markers.
int cimage_jpeg_encode(const uint8_t *rgbx, uint32_t width, uint32_t height, int quality,
                       const uint8_t *icc, size_t icc_size, cimage_buffer *out, cimage_status *status);
/// WebP, lossy at quality or lossless (every pixel kept, RGB under transparent pixels too). The ICC
/// profile, if any, goes into an ICCP chunk (an extended VP8X file).
int cimage_webp_encode(const uint8_t *rgba, uint32_t width, uint32_t height, int quality, int lossless,
                       const uint8_t *icc, size_t icc_size, cimage_buffer *out, cimage_status *status);

/// zlib-wrapped deflate (TIFF compression 8 and 32946) into dst: at most dst_size bytes, never more.
/// Returns CIMAGE_OK with *produced set (short output is the caller's judgement), or an error.
int cimage_inflate(const uint8_t *src, size_t src_size, uint8_t *dst, size_t dst_size, size_t *produced,
                   cimage_status *status);

#endif
