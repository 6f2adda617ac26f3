// Counts the C heap allocations of pbctl-bench (malloc, calloc, realloc, posix_memalign, aligned_alloc),
// for the allocations-per-KB figures of `make bench`. pbctl-bench links with `--wrap=malloc` (and the
// others), so every call to them from any object in the executable, the Swift runtime's included, lands
// in the wrappers of alloc.c first. Only the benchmark tool is built this way.
#ifndef CBENCHALLOC_H
#define CBENCHALLOC_H

/// Allocation calls made so far by this process (every thread).
unsigned long long cbench_allocation_count(void);

#endif
