#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Pasteboard
import SystemIO

/// Opens (and, for a writer, creates) the store's directory so that nobody else can have planted or
/// swapped any part of it.
///
/// The path is walked component by component with `openat`. Above the first shared directory (one
/// that others may write, such as `/tmp`) components are the system's and may be symbolic links
/// (`/var/run`, a symlinked home). From a shared directory down, every component is opened with
/// `O_NOFOLLOW` and must be a directory owned by the user, not writable by others (nor by a group
/// other than the user's own), as tmux requires of `/tmp/tmux-UID`: otherwise another user could
/// have created `/tmp/pbctl-UID` first, or replaced a directory below it with a link. The last
/// component, the store itself, is always held to that rule and made 0700.
package enum PrivateDirectory {
    /// Opens `path` as a directory descriptor. `create`: make missing components (0700 from a shared
    /// directory down, 0755 above it) and tighten the store's own mode to 0700; otherwise a missing
    /// component gives nil and nothing is changed on disk.
    /// - Throws: ``PasteboardError`` `.refused` naming the component that is not the user's own,
    ///   `.io` when a directory cannot be made or opened.
    package static func openStore(_ path: String, create: Bool) throws -> Int32? {
        guard !path.isEmpty else { throw PasteboardError(.io, "empty store path") }
        // Split by hand: `split` makes an array of substrings, whose generic metadata a static executable
        // instantiates at run time (measurable on every paste).
        var components: [String] = []
        var current: [UInt8] = []
        for byte in path.utf8 {
            if byte == UInt8(ascii: "/") {
                if !current.isEmpty { components.append(String(decoding: current, as: UTF8.self)) }
                current.removeAll(keepingCapacity: true)
            } else {
                current.append(byte)
            }
        }
        if !current.isEmpty { components.append(String(decoding: current, as: UTF8.self)) }
        guard !components.contains("..") else {
            throw PasteboardError(.refused, "\(path): the store path may not contain '..'")
        }
        var fd = open(path.hasPrefix("/") ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw PasteboardError(.io, "\(path): cannot open its first directory: \(POSIX.errorString())") }
        var shown = path.hasPrefix("/") ? "" : "."
        var shared = false
        for (index, component) in components.enumerated() where component != "." {
            let last = index == components.count - 1
            shown += "/" + component
            let strict = shared || last
            var next = openat(fd, component, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (strict ? O_NOFOLLOW : 0))
            if next < 0, errno == ENOENT {
                guard create else {
                    close(fd)
                    return nil
                }
                if mkdirat(fd, component, strict ? 0o700 : 0o755) != 0, errno != EEXIST {
                    let code = errno
                    close(fd)
                    throw POSIX.ioError("mkdir", shown, code)
                }
                next = openat(fd, component, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (strict ? O_NOFOLLOW : 0))
            }
            let code = errno
            close(fd)
            guard next >= 0 else {
                if code == ELOOP || code == ENOTDIR {
                    throw PasteboardError(.refused, "\(shown): a symbolic link or not a directory; refusing to use it for the store")
                }
                throw POSIX.ioError("open", shown, code)
            }
            fd = next
            var st = stat()
            guard fstat(fd, &st) == 0 else {
                let code = errno
                close(fd)
                throw POSIX.ioError("stat", shown, code)
            }
            if strict {
                guard st.st_uid == getuid() else {
                    close(fd)
                    throw PasteboardError(.refused, "\(shown): owned by another user (uid \(st.st_uid)); refusing to use it for the store")
                }
                let othersWrite = st.st_mode & 0o002 != 0 || (st.st_mode & 0o020 != 0 && st.st_gid != getgid())
                if last, create, st.st_mode & 0o077 != 0 {
                    guard fchmod(fd, 0o700) == 0 else {
                        let code = errno
                        close(fd)
                        throw POSIX.ioError("chmod", shown, code)
                    }
                } else if othersWrite {
                    close(fd)
                    throw PasteboardError(.refused, "\(shown): writable by other users; refusing to use it for the store")
                }
            }
            if st.st_mode & 0o002 != 0 { shared = true }
        }
        return fd
    }
}
