#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc
import Pasteboard
internal import CSystem
internal import CX11

/// An anonymous in-memory file (memfd) for handing megabytes to a child process: written once by the
/// parent, mapped by the child, never on disk. (Here because only `Connection/` may call C shims.)
public enum MemoryFile {
    /// A memfd holding `parts` one after another, its offset back at 0; nil when the kernel has no
    /// memfd (the caller then falls back to a pipe).
    public static func create(_ parts: [Data]) -> Int32? {
        let fd = csystem_memfd_create("pbctl-archive")
        guard fd >= 0 else { return nil }
        let total = parts.reduce(0) { $0 + $1.count }
        // Size it first: one allocation per page instead of growing with each write.
        guard ftruncate(fd, off_t(total)) == 0 else {
            close(fd)
            return nil
        }
        var offset = 0
        for part in parts {
            let ok = part.withUnsafeBytes { raw -> Bool in
                var done = 0
                while done < raw.count {
                    let n = pwrite(fd, raw.baseAddress! + done, raw.count - done, off_t(offset + done))
                    if n < 0 {
                        if errno == EINTR { continue }
                        return false
                    }
                    done += n
                }
                return true
            }
            guard ok else {
                close(fd)
                return nil
            }
            offset += part.count
        }
        return fd
    }

    /// Closes a descriptor from ``create(_:)``.
    public static func close(_ fd: Int32) { _ = Glibc.close(fd) }

    /// The whole content of `fd` mapped read-only when it is a regular file (a memfd), nil otherwise
    /// (a pipe: read it instead). The mapping is released with the returned Data.
    public static func map(_ fd: Int32) -> Data? {
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size > 0 else { return nil }
        let size = Int(st.st_size)
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), address != MAP_FAILED else { return nil }
        return Data(bytesNoCopy: address, count: size, deallocator: .custom { pointer, count in
            _ = munmap(pointer, count)
        })
    }
}
