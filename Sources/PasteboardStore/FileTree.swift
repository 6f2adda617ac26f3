#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import SystemIO

/// Folder listing and removal that never follow a symbolic link, for the packages pbctl reads and
/// writes (saved pasteboards, TextBundles).
public enum FileTree {
    /// The names in the open folder `fd`, sorted, without `.` and `..`. `fd` stays open.
    /// - Throws: ``PasteboardError`` `.io` naming `path`. The corresponding C function is `readdir`.
    public static func entries(_ fd: Int32, path: String) throws -> [String] {
        let copy = dup(fd)
        guard copy >= 0 else { throw POSIX.ioError("dup", path) }
        guard let dir = fdopendir(copy) else {
            let code = errno
            close(copy)
            throw POSIX.ioError("opendir", path, code)
        }
        defer { closedir(dir) }
        rewinddir(dir)
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The names in the folder at `path`; empty when it does not exist or cannot be read.
    public static func entries(path: String) -> [String] {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        return (try? entries(fd, path: path)) ?? []
    }

    /// Removes the folder `path` and everything in it, best effort. Links are removed, never
    /// followed, so nothing outside `path` is touched.
    public static func removeTree(_ path: String) {
        func clear(_ fd: Int32, _ shown: String, depth: Int) {
            guard depth < 64, let names = try? entries(fd, path: shown) else { return }
            for name in names {
                var st = stat()
                if fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
                    let child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                    if child >= 0 {
                        clear(child, shown + "/" + name, depth: depth + 1)
                        close(child)
                    }
                    unlinkat(fd, name, AT_REMOVEDIR)
                } else {
                    unlinkat(fd, name, 0)
                }
            }
        }
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return }
        clear(fd, path, depth: 0)
        close(fd)
        rmdir(path)
    }
}
