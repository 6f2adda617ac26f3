#include "CBenchAlloc.h"

#include <stdatomic.h>
#include <stddef.h>

// The originals, reached through the linker's --wrap (`__real_malloc` is the C library's malloc).
void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *pointer, size_t size);
int __real_posix_memalign(void **result, size_t alignment, size_t size);
void *__real_aligned_alloc(size_t alignment, size_t size);

static atomic_ullong allocations;

void *__wrap_malloc(size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return __real_malloc(size);
}

void *__wrap_calloc(size_t count, size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return __real_calloc(count, size);
}

void *__wrap_realloc(void *pointer, size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return __real_realloc(pointer, size);
}

int __wrap_posix_memalign(void **result, size_t alignment, size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return __real_posix_memalign(result, alignment, size);
}

void *__wrap_aligned_alloc(size_t alignment, size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return __real_aligned_alloc(alignment, size);
}

unsigned long long cbench_allocation_count(void) {
    return atomic_load_explicit(&allocations, memory_order_relaxed);
}
