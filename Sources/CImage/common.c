#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int cimage_fail(cimage_status *status, int code, const char *format, ...) {
    status->code = code;
    va_list args;
    va_start(args, format);
    vsnprintf(status->message, sizeof status->message, format, args);
    va_end(args);
    // One line: libraries' messages may carry a newline.
    for (char *c = status->message; *c; c++) {
        if (*c == '\n' || *c == '\r') *c = ' ';
    }
    return code;
}

void cimage_ok(cimage_status *status) {
    status->code = CIMAGE_OK;
    status->message[0] = 0;
}

int cimage_check_pixels(uint64_t width, uint64_t height, uint64_t max_pixels, const char *format_name,
                        cimage_status *status) {
    if (width == 0 || height == 0) {
        return cimage_fail(status, CIMAGE_CORRUPT, "%s declares an empty image (%llux%llu)", format_name,
                           (unsigned long long)width, (unsigned long long)height);
    }
    // Both come from 32-bit fields: the product fits 64 bits.
    if (width * height > max_pixels) {
        return cimage_fail(status, CIMAGE_TOO_MANY_PIXELS, "%s declares %llux%llu (%llu pixels), over the cap of %llu pixels",
                           format_name, (unsigned long long)width, (unsigned long long)height,
                           (unsigned long long)(width * height), (unsigned long long)max_pixels);
    }
    return CIMAGE_OK;
}

int cimage_growing_append(cimage_growing *buffer, const uint8_t *bytes, size_t count) {
    if (buffer->failed) return 0;
    if (count > buffer->capacity - buffer->size) {
        size_t capacity = buffer->capacity ? buffer->capacity : 65536;
        while (capacity - buffer->size < count) {
            if (capacity > SIZE_MAX / 2) { buffer->failed = 1; return 0; }
            capacity *= 2;
        }
        uint8_t *grown = realloc(buffer->data, capacity);
        if (!grown) { buffer->failed = 1; return 0; }
        buffer->data = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->data + buffer->size, bytes, count);
    buffer->size += count;
    return 1;
}

uint8_t *cimage_copy(const uint8_t *bytes, size_t count) {
    if (!bytes || count == 0) return NULL;
    uint8_t *copy = malloc(count);
    if (copy) memcpy(copy, bytes, count);
    return copy;
}

void cimage_free(void *pointer) { free(pointer); }

enum { cimage_large = 8u << 20, cimage_huge_page = 2u << 20, cimage_page = 4096 };

static size_t cimage_round(size_t size, size_t unit) { return (size + unit - 1) / unit * unit; }

void *cimage_alloc(size_t size) {
    if (size < cimage_large) return calloc(1, size ? size : 1);
    size_t length = cimage_round(size, cimage_page);
    if (length > SIZE_MAX - cimage_huge_page) return NULL;
    // Mapped with a huge page's worth to spare, then trimmed to start on a huge-page boundary.
    uint8_t *mapping = mmap(NULL, length + cimage_huge_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping == MAP_FAILED) return NULL;
    uint8_t *start = (uint8_t *)cimage_round((size_t)mapping, cimage_huge_page);
    if (start > mapping) munmap(mapping, (size_t)(start - mapping));
    size_t tail = (size_t)(mapping + length + cimage_huge_page - (start + length));
    if (tail > 0) munmap(start + length, tail);
#ifdef MADV_HUGEPAGE
    madvise(start, length, MADV_HUGEPAGE);
#endif
    return start;
}

void cimage_release(void *pointer, size_t size) {
    if (!pointer) return;
    if (size < cimage_large) {
        free(pointer);
    } else {
        munmap(pointer, cimage_round(size, cimage_page));
    }
}

void cimage_decoded_free(cimage_decoded *decoded) {
    cimage_release(decoded->pixels, decoded->pixels_size);
    free(decoded->icc);
    free(decoded->exif);
    memset(decoded, 0, sizeof *decoded);
}

void *cimage_shrink(void *pointer, size_t size, size_t smaller) {
    if (!pointer || smaller >= size) return pointer;
    if (size < cimage_large) return pointer;  // malloc'd: free() takes it whatever size is passed
    if (smaller >= cimage_large) {
        size_t keep = cimage_round(smaller, cimage_page), had = cimage_round(size, cimage_page);
        if (had > keep) munmap((uint8_t *)pointer + keep, had - keep);
        return pointer;
    }
    // From a mapping to a heap block, as cimage_release will expect for the smaller size.
    void *copy = malloc(smaller ? smaller : 1);
    if (copy) memcpy(copy, pointer, smaller);
    munmap(pointer, cimage_round(size, cimage_page));
    return copy;
}
