#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CSystem
import Pasteboard

/// Folder listing, copying and removal that never follow a symbolic link, for the packages pbctl reads
/// and writes (the store, saved pasteboards, TextBundles) and the files a paste puts in a folder. Names
/// are bytes (``PathBytes``): a file whose name is not UTF-8 is listed, copied and removed like any other.
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
                $0.withMemoryRebound(to: UInt8.self, capacity: 256) { PathBytes.string(UnsafeBufferPointer(start: $0, count: strlen(UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)))) }
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The names in the folder at `path`; empty when it does not exist or cannot be read.
    public static func entries(path: String) -> [String] {
        let fd = PathCalls.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        return (try? entries(fd, path: path)) ?? []
    }

    /// Whether the folder at `path` holds a name (not `.` or `..`) for which `matches` is true; false
    /// when it does not exist or cannot be read. The names are offered as their bytes and no list is
    /// built (the quick paste asks this on its way, where each new array type costs a static binary a
    /// run-time lookup).
    public static func containsEntry(path: String, where matches: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        let fd = PathCalls.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        guard let dir = fdopendir(fd) else {
            close(fd)
            return false
        }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let found = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: UInt8.self, capacity: 256) { name -> Bool in
                    let bytes = UnsafeBufferPointer(start: name, count: strlen(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self)))
                    if bytes.count == 1 && bytes[0] == 0x2E || bytes.count == 2 && bytes[0] == 0x2E && bytes[1] == 0x2E { return false }
                    return matches(bytes)
                }
            }
            if found { return true }
        }
        return false
    }

    /// Removes the folder `path` and everything in it, best effort. Links are removed, never
    /// followed, so nothing outside `path` is touched.
    public static func removeTree(_ path: String) {
        let fd = PathCalls.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return }
        clear(fd, path, depth: 0)
        close(fd)
        _ = path.withPathCString { rmdir($0) }
    }

    /// Removes whatever is at `path` (a folder with everything in it, a file, a link), best effort.
    public static func remove(_ path: String) {
        var st = stat()
        guard PathCalls.lstat(path, &st) == 0 else { return }
        if st.st_mode & S_IFMT == S_IFDIR { removeTree(path) } else { _ = path.withPathCString { unlink($0) } }
    }

    private static func clear(_ fd: Int32, _ shown: String, depth: Int) {
        guard depth < 256, let names = try? entries(fd, path: shown) else { return }
        for name in names {
            var st = stat()
            if PathCalls.fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
                let child = PathCalls.openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if child >= 0 {
                    clear(child, shown + "/" + name, depth: depth + 1)
                    close(child)
                }
                _ = PathCalls.unlinkat(fd, name, AT_REMOVEDIR)
            } else {
                _ = PathCalls.unlinkat(fd, name, 0)
            }
        }
    }
}

extension FileTree {
    /// What a tree holds, for checking space before it is copied: bytes of its regular files (in
    /// blocks, as a copy takes them) and the number of entries. Links are not followed.
    public struct Size: Sendable, Equatable {
        public var bytes = 0
        public var entries = 0
    }

    /// The size of what `path` names (a file, a link, or a folder with everything in it), walked at
    /// most 256 folders deep.
    public static func size(_ path: String) throws -> Size {
        var total = Size()
        func walk(_ dir: Int32, _ name: String, _ shown: String, depth: Int) throws {
            guard depth < 256 else { throw PasteboardError(.io, "\(shown.shownPath): folders nested too deeply") }
            var st = stat()
            guard PathCalls.fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { throw POSIX.ioError("stat", shown.shownPath) }
            total.entries += 1
            total.bytes += Int(st.st_blocks) * 512
            guard st.st_mode & S_IFMT == S_IFDIR else { return }
            let fd = PathCalls.openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { throw POSIX.ioError("open", shown.shownPath) }
            defer { close(fd) }
            for child in try entries(fd, path: shown) { try walk(fd, child, shown + "/" + child, depth: depth + 1) }
        }
        try walk(AT_FDCWD, path, path, depth: 0)
        return total
    }

    /// Copies `source` (a file, a folder with everything in it, or a symbolic link, kept as a link) to
    /// `destination`, which must not exist; modes are kept, regular files copied in the kernel. A failure
    /// removes what was made.
    public static func copyTree(_ source: String, to destination: String) throws {
        var st = stat()
        if PathCalls.lstat(destination, &st) == 0 {
            throw PasteboardError(.refused, "\(destination.shownPath): already exists; not replaced")
        }
        do {
            try copyEntry(AT_FDCWD, source, AT_FDCWD, destination, shown: source, depth: 0)
        } catch {
            remove(destination)
            throw error
        }
    }

    private static func copyEntry(_ fromDir: Int32, _ name: String, _ toDir: Int32, _ target: String, shown: String, depth: Int) throws {
        guard depth < 256 else { throw PasteboardError(.io, "\(shown.shownPath): folders nested too deeply") }
        var st = stat()
        guard PathCalls.fstatat(fromDir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { throw POSIX.ioError("stat", shown.shownPath) }
        switch st.st_mode & S_IFMT {
        case S_IFDIR:
            guard PathCalls.mkdirat(toDir, target, st.st_mode & 0o7777 | 0o700) == 0 else { throw POSIX.ioError("mkdir", target.shownPath) }
            let from = PathCalls.openat(fromDir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard from >= 0 else { throw POSIX.ioError("open", shown.shownPath) }
            defer { close(from) }
            let to = PathCalls.openat(toDir, target, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard to >= 0 else { throw POSIX.ioError("open", target.shownPath) }
            defer { close(to) }
            for child in try entries(from, path: shown) {
                try copyEntry(from, child, to, child, shown: shown + "/" + child, depth: depth + 1)
            }
            _ = fchmod(to, st.st_mode & 0o7777)
        case S_IFLNK:
            guard let link = PathCalls.readlinkat(fromDir, name) else { throw POSIX.ioError("readlink", shown.shownPath) }
            guard PathCalls.symlinkat(link, toDir, target) == 0 else { throw POSIX.ioError("symlink", target.shownPath) }
        case S_IFREG:
            let from = PathCalls.openat(fromDir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard from >= 0 else { throw POSIX.ioError("open", shown.shownPath) }
            defer { close(from) }
            let to = PathCalls.openat(toDir, target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, st.st_mode & 0o7777)
            guard to >= 0 else { throw POSIX.ioError("open", target.shownPath) }
            defer { close(to) }
            _ = try POSIX.transfer(from: from, name: shown.shownPath, to: to, path: target.shownPath, limit: Int.max - 1, inspect: false) { _ in }
            _ = fchmod(to, st.st_mode & 0o7777)
        default:
            throw PasteboardError(.io, "\(shown.shownPath): not a file, folder or link (\(POSIX.kind(of: st.st_mode))); not copied")
        }
    }

    /// Renames `source` to `destination` when no file is there (`renameat2(RENAME_NOREPLACE)`, else
    /// checked first). False with `errno` set otherwise (`EXDEV`: another file system).
    public static func renameNoReplace(_ source: String, _ destination: String) -> Bool {
        let result = source.withPathCString { from in destination.withPathCString { to in csystem_rename_noreplace(from, to) } }
        if result == 0 { return true }
        guard errno == EINVAL || errno == ENOSYS else { return false }
        // A file system without RENAME_NOREPLACE: checked, then renamed.
        var st = stat()
        if PathCalls.lstat(destination, &st) == 0 {
            errno = EEXIST
            return false
        }
        return PathCalls.renameat(AT_FDCWD, source, AT_FDCWD, destination) == 0
    }
}
