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
    /// 8 or 16 bits a channel of the pixels (16 only from a 16-bit PNG decoded without
    /// CIMAGE_EIGHT_BIT). In a header: the bits the source has.
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
    /// From the header: bytes the decoder itself needs besides the RGBA pixels it returns (libjpeg's
    /// coefficient arrays for a progressive or multi-scan file, libwebp's ARGB image for lossless
    /// data and its alpha plane, the inflate buffer PNG's fast path keeps beyond the pixels), for the
    /// decode the flags describe: what ImageCodec counts against the memory cap before any of it exists.
    uint64_t work_bytes;
    /// As work_bytes, for a decode with CIMAGE_VALIDATE (no pixels kept).
    uint64_t validate_work_bytes;
} cimage_decoded;

/// Decoder flags.
enum {
    /// Read what precedes the pixels (size, ICC, EXIF, the work estimates) and allocate no pixels.
    CIMAGE_HEADER_ONLY = 1,
    /// 16-bit samples come back as 8 (each rounded, v * 255 / 65535 to the nearest: what
    /// RasterImage.eightBit() computes), decoded straight to 8 bits with no 16-bit buffer.
    CIMAGE_EIGHT_BIT = 2,
    /// Decode every byte of the image data as a full decode would, and keep no pixels: what a copy
    /// checks. Fails exactly where a full decode fails; memory is a few rows (plus what the format
    /// itself needs, validate_work_bytes).
    CIMAGE_VALIDATE = 4,
};

/// An encoded file: malloc'd bytes.
typedef struct {
    uint8_t *data;
    size_t size;
} cimage_buffer;

/// Decoders, with the CIMAGE_ flags above. Without CIMAGE_HEADER_ONLY they refuse, before allocating,
/// an image of more than max_pixels pixels (the memory cap is the caller's, from work_bytes).
/// On failure every out-buffer is NULL. Return the status code.
int cimage_png_decode(const uint8_t *data, size_t size, uint64_t max_pixels, int flags,
                      cimage_decoded *out, cimage_status *status);
int cimage_jpeg_decode(const uint8_t *data, size_t size, uint64_t max_pixels, int flags,
                       cimage_decoded *out, cimage_status *status);
/// Animated WebP: the first frame on its canvas (decoded into it where the frame lies, as libwebp's
/// animation decoder shows a key frame on a transparent canvas).
int cimage_webp_decode(const uint8_t *data, size_t size, uint64_t max_pixels, int flags,
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
/// Baseline JPEG (4:2:0 at quality below 90, 4:4:4 from 90) from 8-bit RGBA. With composite set, each
/// pixel is put over white as its rows are written (c·a + 255·(1 − a), rounded; 16 rows at a time, no
/// copy of the image); without it the fourth byte is ignored. The ICC profile, if any, goes into APP2.
int cimage_jpeg_encode(const uint8_t *rgba, uint32_t width, uint32_t height, int quality, int composite,
                       const uint8_t *icc, size_t icc_size, cimage_buffer *out, cimage_status *status);
/// WebP, lossy at quality or lossless (every pixel kept, RGB under transparent pixels too). The ICC
/// profile, if any, goes into an ICCP chunk (an extended VP8X file). With in_place set the caller gives
/// up its pixels: they are turned into libwebp's ARGB where they are (no copy of the image) and are
/// garbage afterwards.
int cimage_webp_encode(uint8_t *rgba, uint32_t width, uint32_t height, int quality, int lossless, int in_place,
                       const uint8_t *icc, size_t icc_size, cimage_buffer *out, cimage_status *status);

/// zlib-wrapped deflate (TIFF compression 8 and 32946) read a piece at a time: the whole stream is
/// never held (a TIFF strip is inflated a row at a time). NULL when out of memory.
typedef struct cimage_inflater cimage_inflater;
cimage_inflater *cimage_inflater_new(const uint8_t *src, size_t src_size);
/// Fills dst with the next dst_size bytes of output, fewer only where the stream or its input ends.
/// Returns CIMAGE_OK with *produced set (short output is the caller's judgement), or an error.
int cimage_inflater_read(cimage_inflater *inflater, uint8_t *dst, size_t dst_size, size_t *produced,
                         cimage_status *status);
void cimage_inflater_free(cimage_inflater *inflater);

#endif
