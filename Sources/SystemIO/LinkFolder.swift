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

/// A folder of symbolic links for PATH (`pbctl compat install`: xclip, xsel, wl-copy and wl-paste, each
/// a link to pbctl): the calls that make, read and remove them, and the PATH lookup that says which
/// program a name runs.
public enum LinkFolder {
    /// What is at a path.
    public enum Entry: Equatable, Sendable {
        case missing
        /// A symbolic link, and what it names as written.
        case link(String)
        /// Anything else (a file, a folder).
        case other
    }

    /// The running executable, as the kernel names it (`/proc/self/exe`); nil where that cannot be read.
    public static func executablePath() -> String? { realPath("/proc/self/exe") }

    /// `path` with every link resolved (`realpath`); nil when it names nothing.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    public static func entry(_ path: String) -> Entry {
        var st = stat()
        guard lstat(path, &st) == 0 else { return .missing }
        guard (st.st_mode & S_IFMT) == S_IFLNK else { return .other }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { return .other }
        return .link(String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// Creates `path` and the folders above it that are missing (mode 0755 less the umask).
    /// - Throws: ``PasteboardError`` `.io` naming the folder that could not be made.
    public static func makeFolders(_ path: String) throws {
        var built = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            built += "/" + component
            if mkdir(built, 0o755) != 0, errno != EEXIST { throw POSIX.ioError("mkdir", built) }
        }
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw PasteboardError(.io, "\(path): not a folder")
        }
    }

    /// A symbolic link at `path` naming `target` (an existing link is replaced).
    public static func makeLink(_ path: String, to target: String) throws {
        if case .link = entry(path), unlink(path) != 0 { throw POSIX.ioError("unlink", path) }
        guard symlink(target, path) == 0 else { throw POSIX.ioError("symlink", path) }
    }

    /// Removes the link at `path`.
    public static func removeLink(_ path: String) throws {
        guard unlink(path) == 0 else { throw POSIX.ioError("unlink", path) }
    }

    /// The program `name` runs through `searchPath` (PATH: colon-separated folders, an empty one the
    /// current folder): the first executable file of that name; nil when there is none.
    public static func find(_ name: String, in searchPath: String) -> String? {
        for folder in searchPath.split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (folder.isEmpty ? "." : String(folder)) + "/" + name
            var st = stat()
            if stat(candidate, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
