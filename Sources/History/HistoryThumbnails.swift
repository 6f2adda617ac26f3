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
import PasteboardStore
import SystemIO

// Small pictures of the history's images, for launchers that show icons (`history pick` with rofi or
// fuzzel): `thumbnails/ID-KEY.png` in the history's own folder (0700, files 0600), named by the
// entry and the picture's file name in `blobs/` (which stands for one content, never given to other
// bytes) or the SHA-256 of its inline bytes, so a picture can only ever stand for those bytes of that
// entry of that history (another history, or one cleared and filled again, has other files). A
// cache the history owns: `delete` removes an entry's, `clear --all` every one, and a sweep those of
// entries that are gone.

extension History {
    /// The path of the thumbnail of entry `id`'s representation `type`, made by `make` (PNG bytes from
    /// the picture's bytes) when it is not there yet; nil when the entry has no such representation, or
    /// the thumbnail cannot be made or written.
    public func thumbnail(of id: Int, type: TypeIdentifier, make: (Data) -> Data?) -> String? {
        try? withDatabase(create: false, absent: nil as String?) { database -> String? in
            let found = try database.connection.transaction(write: false) { () -> (key: String, blob: String?, size: Int, inline: Data?)? in
                let statement = try database.connection.statement(
                    "SELECT size, blob, data FROM representation WHERE entry = ? AND type = ? AND skipped = 0")
                try statement.bind([.int(id), .text(type.rawValue)])
                defer { statement.reset() }
                guard try statement.step(), let size = statement.optionalInteger(0), (0...Int64(FileStore.maximumStoredSize)).contains(size)
                else { return nil }
                if let hash = statement.text(1) {
                    guard HistoryDatabase.isBlobName(hash) else { return nil }
                    return (hash, hash, Int(size), nil)
                }
                guard let inline = statement.blob(2), inline.count == Int(size) else { return nil }
                return (try OpenSSLSHA256.hex(inline), nil, Int(size), inline)
            }
            guard let found else { return nil }
            let folderPath = root + "/" + HistoryDatabase.thumbnailsName
            let folder = try FileStore.openDirectory(HistoryDatabase.thumbnailsName, relativeTo: database.fd, create: true, displayPath: folderPath)
            defer { close(folder) }
            let name = "\(id)-\(found.key).png"
            var st = stat()
            if fstatat(folder, name, &st, AT_SYMLINK_NOFOLLOW) == 0 {
                return st.st_mode & S_IFMT == S_IFREG && st.st_size > 0 ? folderPath + "/" + name : nil
            }
            let bytes = try found.blob.map { try database.readBlob($0, size: found.size) } ?? found.inline ?? Data()
            guard let png = make(bytes), !png.isEmpty else { return nil }
            guard (try? FileStore.Package(fd: folder, path: folderPath).replaceFile(name, png, sync: false)) != nil else { return nil }
            return folderPath + "/" + name
        }
    }
}
