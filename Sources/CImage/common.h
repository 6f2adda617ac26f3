#ifndef CIMAGE_COMMON_H
#define CIMAGE_COMMON_H

#include "cimage.h"
#include <stdarg.h>

// Sets status (code and a formatted one-line message) and returns the code.
int cimage_fail(cimage_status *status, int code, const char *format, ...) __attribute__((format(printf, 3, 4)));
void cimage_ok(cimage_status *status);

// The pixel cap, checked from the header before any pixel buffer exists.
int cimage_check_pixels(uint64_t width, uint64_t height, uint64_t max_pixels, const char *format_name,
                        cimage_status *status);

// A growing malloc'd output buffer (libpng's write callback); a failed growth sets failed.
typedef struct {
    uint8_t *data;
    size_t size;
    size_t capacity;
    int failed;
} cimage_growing;

int cimage_growing_append(cimage_growing *buffer, const uint8_t *bytes, size_t count);

// A buffer from cimage_alloc(size) made one that cimage_release(…, smaller) frees: the tail of a
// mapping given back, or a mapping copied into a heap block. NULL when out of memory (the buffer is
// then gone).
void *cimage_shrink(void *pointer, size_t size, size_t smaller);

// A malloc'd copy of count bytes (NULL for none or when out of memory).
uint8_t *cimage_copy(const uint8_t *bytes, size_t count);

#endif
