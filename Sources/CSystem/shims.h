#ifndef CSYSTEM_SHIMS_H
#define CSYSTEM_SHIMS_H
// The C library's declarations that Swift's Glibc module leaves out, called directly (never looked up
// with dlsym, which finds nothing in the fully static release binary).
#include <sys/xattr.h>
#include <malloc.h>
#include <unistd.h>
#include <sys/syscall.h>

// glibc's malloc tuning (malloc.h is not part of Swift's Glibc module): keep up to `bytes` of freed
// memory in the heap and serve allocations below it from the heap rather than fresh mappings.
static inline void csystem_keep_freed_memory(int bytes) {
    mallopt(M_TRIM_THRESHOLD, bytes);
    mallopt(M_MMAP_THRESHOLD, bytes);
}

// memfd_create(name, MFD_CLOEXEC) through syscall(2): Swift's Glibc module does not export the GNU
// declaration. -1 with errno set when the kernel lacks it.
static inline int csystem_memfd_create(const char *name) {
    return (int)syscall(SYS_memfd_create, name, 1U /* MFD_CLOEXEC */);
}
#endif
