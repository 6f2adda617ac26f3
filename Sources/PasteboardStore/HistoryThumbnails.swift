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

/// Small pictures of the history's images, for launchers that show icons (`history pick` with rofi or
/// fuzzel): `FOLDER/ID.png`, made once per entry (an entry's content never changes, and its number is
/// never given again), in a private folder (0700, files 0600) that is a cache: deleting it loses
/// nothing.
public final class HistoryThumbnails {
    public let root: String
    private var fd: Int32 = -1

    public init(root: String) { self.root = root }

    deinit { if fd >= 0 { close(fd) } }

    /// `$XDG_CACHE_HOME/pbctl/thumbnails`, else `~/.cache/pbctl/thumbnails`.
    public static func defaultRoot(variable: (String) -> String?) -> String {
        if let cache = variable("XDG_CACHE_HOME"), cache.hasPrefix("/") { return cache + "/pbctl/thumbnails" }
        let home = variable("HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp/pbctl-\(getuid())"
        return home + "/.cache/pbctl/thumbnails"
    }

    /// The path of entry `id`'s thumbnail, made by `make` (PNG bytes) when it is not there yet; nil when
    /// it cannot be made or written.
    public func path(for id: Int, make: () -> Data?) -> String? {
        if fd < 0 { fd = (try? PrivateDirectory.openStore(root, create: true)) ?? -1 }
        guard fd >= 0 else { return nil }
        let name = "\(id).png"
        var st = stat()
        if fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 {
            return st.st_mode & S_IFMT == S_IFREG && st.st_size > 0 ? root + "/" + name : nil
        }
        guard let data = make(), !data.isEmpty else { return nil }
        guard (try? FileStore.Package(fd: fd, path: root).replaceFile(name, data, sync: false)) != nil else { return nil }
        return root + "/" + name
    }
}
