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

extension FileTree {
    /// Copies `source` (a file, a folder with everything in it, or a symbolic link, kept as a link) to
    /// `destination`, which must not exist; modes are kept, regular files copied in the kernel. A failure
    /// removes what was made.
    public static func copyTree(_ source: String, to destination: String) throws {
        var st = stat()
        if lstat(destination, &st) == 0 { throw PasteboardError(.refused, "\(destination): already exists; not replaced") }
        do {
            try copyEntry(AT_FDCWD, source, AT_FDCWD, destination, shown: source, depth: 0)
        } catch {
            removeTree(destination)
            unlink(destination)
            throw error
        }
    }

    private static func copyEntry(_ fromDir: Int32, _ name: String, _ toDir: Int32, _ target: String, shown: String, depth: Int) throws {
        guard depth < 256 else { throw PasteboardError(.io, "\(shown): folders nested too deeply") }
        var st = stat()
        guard fstatat(fromDir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { throw POSIX.ioError("stat", shown) }
        switch st.st_mode & S_IFMT {
        case S_IFDIR:
            guard mkdirat(toDir, target, st.st_mode & 0o7777 | 0o700) == 0 else { throw POSIX.ioError("mkdir", target) }
            let from = openat(fromDir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard from >= 0 else { throw POSIX.ioError("open", shown) }
            defer { close(from) }
            let to = openat(toDir, target, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard to >= 0 else { throw POSIX.ioError("open", target) }
            defer { close(to) }
            for child in try entries(from, path: shown) {
                try copyEntry(from, child, to, child, shown: shown + "/" + child, depth: depth + 1)
            }
            _ = fchmod(to, st.st_mode & 0o7777)
        case S_IFLNK:
            var buffer = [CChar](repeating: 0, count: 4096)
            let count = readlinkat(fromDir, name, &buffer, buffer.count - 1)
            guard count >= 0 else { throw POSIX.ioError("readlink", shown) }
            buffer[count] = 0
            guard symlinkat(buffer, toDir, target) == 0 else { throw POSIX.ioError("symlink", target) }
        case S_IFREG:
            let from = openat(fromDir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard from >= 0 else { throw POSIX.ioError("open", shown) }
            defer { close(from) }
            let to = openat(toDir, target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, st.st_mode & 0o7777)
            guard to >= 0 else { throw POSIX.ioError("open", target) }
            defer { close(to) }
            _ = try FileStore.transfer(from: from, name: shown, to: to, path: target, limit: Int.max - 1, inspect: false) { _ in }
            _ = fchmod(to, st.st_mode & 0o7777)
        default:
            throw PasteboardError(.io, "\(shown): not a file, folder or link (\(FileStore.kind(of: st.st_mode))); not copied")
        }
    }

    /// Moves `source` to `destination` (which must not exist): a rename, else (another file system) a
    /// copy, then the source removed.
    public static func moveTree(_ source: String, to destination: String) throws {
        if renameat2NoReplace(source, destination) { return }
        guard errno == EXDEV else { throw POSIX.ioError("rename", source) }
        try copyTree(source, to: destination)
        var st = stat()
        if lstat(source, &st) == 0, st.st_mode & S_IFMT == S_IFDIR {
            removeTree(source)
            rmdir(source)
        } else {
            unlink(source)
        }
    }

    /// rename(2) that never replaces an existing destination (checked first; the window is the
    /// caller's own folder).
    private static func renameat2NoReplace(_ source: String, _ destination: String) -> Bool {
        var st = stat()
        if lstat(destination, &st) == 0 {
            errno = EEXIST
            return false
        }
        return rename(source, destination) == 0
    }
}
