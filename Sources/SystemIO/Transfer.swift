#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CSystem
import Pasteboard

extension POSIX {
    /// The chunk a copy moves through memory when the kernel cannot move it.
    public static let chunkSize = 1 << 20

    /// Moves everything `input` holds into `output`, at most `limit` bytes: in the kernel when nothing
    /// needs to see the bytes (`copy_file_range` from a file, `splice` from a pipe), else through one
    /// buffer handed to `inspect` chunk by chunk. Returns the byte count.
    public static func transfer(
        from input: Int32, name: String, to output: Int32, path: String, limit: Int, inspect: Bool,
        _ look: (UnsafeRawBufferPointer) -> Void
    ) throws -> Int {
        var st = stat()
        guard fstat(input, &st) == 0 else { throw POSIX.ioError("stat", name) }
        let kind = st.st_mode & S_IFMT
        if kind == S_IFDIR { throw PasteboardError(.invalidData, "\(name): is a directory") }
        if kind == S_IFREG, Int(st.st_size) > limit { throw tooLarge(name, limit) }
        var total = 0
        func grow(_ n: Int) throws {
            total += n
            if total > limit { throw tooLarge(name, limit) }
        }
        if !inspect {
            // In the kernel: a regular file with copy_file_range, a pipe with splice.
            var moved = true
            while moved {
                let want = min(limit - total + 1, 1 << 30)
                let n: Int
                if kind == S_IFREG {
                    n = csystem_copy_file_range(input, output, want)
                } else if kind == S_IFIFO {
                    n = csystem_splice(input, output, want)
                } else {
                    break
                }
                if n < 0 {
                    if errno == EINTR { continue }
                    if errno == EAGAIN { waitReadable(input); continue }
                    if total == 0, [EINVAL, ENOSYS, EXDEV, EOPNOTSUPP, EBADF].contains(errno) { break }  // the loop below
                    if errno == ENOSPC || errno == EDQUOT { throw noSpace(path) }
                    throw POSIX.ioError("write", path)
                }
                if n == 0 { return total }
                try grow(n)
                moved = n > 0
            }
        }
        guard let buffer = malloc(chunkSize) else { throw PasteboardError(.io, "\(name): out of memory") }
        defer { free(buffer) }
        while true {
            let n = Glibc.read(input, buffer, chunkSize)
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { waitReadable(input); continue }
                throw POSIX.ioError("read", name)
            }
            if n == 0 { return total }
            try grow(n)
            look(UnsafeRawBufferPointer(start: buffer, count: n))
            var written = 0
            while written < n {
                let w = Glibc.write(output, buffer + written, n - written)
                if w < 0 {
                    if errno == EINTR { continue }
                    if errno == ENOSPC || errno == EDQUOT { throw noSpace(path) }
                    throw POSIX.ioError("write", path)
                }
                written += w
            }
        }
    }

    /// What a file that is not a regular one is, for messages: "a FIFO", "a symbolic link"…
    public static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        case S_IFDIR: return "a directory"
        case S_IFLNK: return "a symbolic link"
        default: return "not a regular file"
        }
    }

    public static func waitReadable(_ fd: Int32) {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&poller, 1, -1)
    }

    public static func noSpace(_ path: String) -> PasteboardError {
        PasteboardError(.io, "\(path): write failed: \(POSIX.errorString()); nothing was copied, the previous content is intact")
    }

    public static func tooLarge(_ name: String, _ limit: Int) -> PasteboardError {
        PasteboardError(.invalidData, "\(name): larger than the \(formatSize(limit)) allowed (--max-size or PBCTL_MAX_SIZE); nothing was copied")
    }

}
