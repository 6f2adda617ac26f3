#ifndef CSYSTEM_SHIMS_H
#define CSYSTEM_SHIMS_H
// The C library's declarations that Swift's Glibc module leaves out, called directly (never looked up
// with dlsym, which finds nothing in the fully static release binary).
#include <sys/xattr.h>
#include <malloc.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/socket.h>

// memmem(3) (a GNU extension string.h declares only under _GNU_SOURCE; glibc and musl both have it): the
// history's case-insensitive substring search looks for folded bytes with it.
void *memmem(const void *haystack, size_t haystack_length, const void *needle, size_t needle_length);
static inline int csystem_contains_bytes(const void *haystack, size_t haystack_length, const void *needle, size_t needle_length) {
    return memmem(haystack, haystack_length, needle, needle_length) != (void *)0;
}

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

// copy_file_range(in, NULL, out, NULL, length, 0) and splice(in, NULL, out, NULL, length,
// SPLICE_F_MOVE) through syscall(2), for the same reason: bytes moved in the kernel, at the current
// file offsets. -1 with errno set (ENOSYS, EXDEV, EINVAL…) when the kernel or file system cannot.
static inline long csystem_copy_file_range(int in, int out, size_t length) {
    return syscall(SYS_copy_file_range, in, (void *)0, out, (void *)0, length, 0U);
}
static inline long csystem_splice(int in, int out, size_t length) {
    return syscall(SYS_splice, in, (void *)0, out, (void *)0, length, 1U /* SPLICE_F_MOVE */);
}

// An unnamed regular file in the directory `dirfd` (open(2)'s O_TMPFILE, a GNU flag the Glibc module
// does not export): it has no name until linkat gives it one, and it vanishes with its last descriptor,
// so a writer killed with SIGKILL leaves nothing behind. -1 with errno set (EOPNOTSUPP, EISDIR, EINVAL)
// where the file system or kernel lacks it.
#ifndef O_TMPFILE
#define O_TMPFILE (020000000 | O_DIRECTORY)
#endif
static inline int csystem_open_unnamed(int dirfd, unsigned mode) {
    return openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, (mode_t)mode);
}

// Gives the unnamed file open as `fd` the name `name` in `dirfd` (linkat through /proc/self/fd, which
// needs no privilege, unlike AT_EMPTY_PATH). -1 with errno set (ENOENT when /proc is not mounted,
// EEXIST when the name is taken).
static inline int csystem_link_unnamed(int fd, int dirfd, const char *name) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, path, dirfd, name, AT_SYMLINK_FOLLOW);
}

// renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE): a rename that never replaces what is at
// `to` (EEXIST), in one step. -1 with errno EINVAL or ENOSYS where the file system or kernel lacks it.
static inline int csystem_rename_noreplace(const char *from, const char *to) {
    return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, 1U /* RENAME_NOREPLACE */);
}

// accept4(fd, address, length, flags) and pipe2(fds, flags) through syscall(2): GNU declarations the
// Glibc module does not export. -1 with errno set.
static inline int csystem_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags) {
    return (int)syscall(SYS_accept4, fd, address, length, flags);
}
static inline int csystem_pipe2(int fds[2], int flags) { return (int)syscall(SYS_pipe2, fds, flags); }

// The user id of the process at the other end of a Unix socket (SO_PEERCRED's struct ucred, a GNU
// declaration); -1 when it cannot be read.
static inline long csystem_peer_uid(int fd) {
    struct { int pid; unsigned uid; unsigned gid; } credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, 17 /* SO_PEERCRED */, &credentials, &length) != 0) return -1;
    return (long)credentials.uid;
}
#endif
