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

/// One item saved as a document package: a folder `NAME.pasteboard/` holding `Info.plist` (the item's
/// metadata and the list of its representations) and one file per representation.
///
/// `Info.plist` is an XML property list:
/// ```
/// format           1
/// metadata         { sourceApplication, sourcePath, created, flags, extra }
/// representations  [ { type, file, size, derivedFrom? } ]
/// ```
/// Every representation is saved with its bytes (derived ones included, produced at save time), so a
/// load needs no converter and gives back exactly what was saved.
///
/// Safety: sensitive items are refused unless the caller says otherwise; files are created with
/// `O_EXCL | O_NOFOLLOW` in a fresh folder that is renamed into place only when complete; a load
/// opens every file relative to the package folder with `O_NOFOLLOW`, accepts only plain file names
/// listed in `Info.plist`, checks each size, and caps the total.
public enum SavedPasteboard {
    public static let infoName = "Info.plist"
    public static let maximumInfoSize = 4 << 20
    public static let maximumRepresentations = 1024
    public static let maximumTotalSize = 1 << 30

    struct Info: Codable {
        var format: Int
        var metadata: ItemMetadata
        var representations: [Record]
    }

    struct Record: Codable {
        var type: TypeIdentifier
        var file: String
        var size: Int
        var derivedFrom: TypeIdentifier?
    }

    /// Saves `item` as a package at `path` (a folder that must not exist yet, unless `replace` is set
    /// and it is itself a saved pasteboard).
    /// - Parameters:
    ///   - fileExtension: the file-name extension for a type's file (`html`), nil for `data`.
    /// - Throws: ``PasteboardError`` `.refused` for a sensitive item without `includeSensitive`, or a
    ///   destination that exists; `.io` when writing fails.
    public static func save(
        _ item: Item, to path: String, includeSensitive: Bool = false, replace: Bool = false,
        fileExtension: (TypeIdentifier) -> String? = { _ in nil }
    ) throws {
        if item.metadata.flags.contains(.sensitive), !includeSensitive {
            throw PasteboardError(
                .refused, "the item is marked sensitive and is not saved to disk; add --include-sensitive to save it anyway")
        }
        guard !item.representations.isEmpty else { throw PasteboardError.empty("nothing to save: the item has no representations") }
        guard item.representations.count <= maximumRepresentations else {
            throw PasteboardError(.invalidData, "too many representations to save (\(item.representations.count))")
        }
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        var st = stat()
        let exists = lstat(trimmed, &st) == 0
        if exists {
            guard replace else {
                throw PasteboardError(.refused, "\(trimmed): already exists; use --force to replace a saved pasteboard")
            }
            // Only what `load` accepts is replaced: never a folder that merely has an Info.plist.
            guard (st.st_mode & S_IFMT) == S_IFDIR, (try? load(from: trimmed)) != nil else {
                throw PasteboardError(.refused, "\(trimmed): exists and is not a saved pasteboard; not replacing it")
            }
        }
        let sensitive = item.metadata.flags.contains(.sensitive)
        let temporary = trimmed + ".partial-\(getpid())"
        FileTree.removeTree(temporary)
        guard mkdir(temporary, sensitive ? 0o700 : 0o755) == 0 else { throw POSIX.ioError("mkdir", temporary) }
        var completed = false
        defer { if !completed { FileTree.removeTree(temporary) } }
        let dirFD = open(temporary, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard dirFD >= 0 else { throw POSIX.ioError("open", temporary) }
        defer { close(dirFD) }

        var records: [Record] = []
        for (index, representation) in item.representations.enumerated() {
            let data = try representation.data()
            let ext = fileExtension(representation.type).flatMap { safeName($0) ? $0 : nil } ?? "data"
            let name = "\(index).\(ext)"
            try createFile(dirFD, name, data, displayPath: temporary + "/" + name, mode: sensitive ? 0o600 : 0o644)
            records.append(Record(type: representation.type, file: name, size: data.count, derivedFrom: representation.derivedFrom))
        }
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .xml
        let info = try encoder.encode(Info(format: 1, metadata: item.metadata, representations: records))
        try createFile(dirFD, infoName, info, displayPath: temporary + "/" + infoName, mode: sensitive ? 0o600 : 0o644)
        fsync(dirFD)
        if exists { FileTree.removeTree(trimmed) }
        guard rename(temporary, trimmed) == 0 else { throw POSIX.ioError("rename", trimmed) }
        completed = true
    }

    /// Loads the item saved at `path`.
    /// - Throws: ``PasteboardError`` `.invalidData` when `path` is not a saved pasteboard or its
    ///   `Info.plist` is damaged, `.corrupt` when a listed file is missing or has the wrong size,
    ///   `.refused` for symbolic links.
    public static func load(from path: String) throws -> Item {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        let dirFD = open(trimmed, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard dirFD >= 0 else {
            if errno == ENOTDIR || errno == ELOOP {
                throw PasteboardError(.invalidData, "\(trimmed): not a saved pasteboard (not a folder)")
            }
            throw PasteboardError(errno == ENOENT ? .invalidData : .io, "\(trimmed): \(POSIX.errorString())")
        }
        defer { close(dirFD) }
        let infoData: Data
        do {
            infoData = try readFile(dirFD, infoName, displayPath: trimmed + "/" + infoName, limit: maximumInfoSize)
        } catch let error as PasteboardError where error.code == .corrupt {
            throw PasteboardError(.invalidData, "\(trimmed): not a saved pasteboard (no \(infoName))")
        }
        if let problem = PropertyListShape.problem(infoData, maximumDepth: 8, maximumVisits: 1_000_000) {
            throw PasteboardError(.invalidData, "\(trimmed)/\(infoName): \(problem)")
        }
        let info: Info
        do {
            info = try PropertyListDecoder().decode(Info.self, from: infoData)
        } catch {
            throw PasteboardError(.invalidData, "\(trimmed)/\(infoName): not a saved pasteboard's Info.plist (damaged or another kind)")
        }
        guard info.format == 1 else {
            throw PasteboardError(.invalidData, "\(trimmed)/\(infoName): unknown format \(info.format)")
        }
        guard !info.representations.isEmpty, info.representations.count <= maximumRepresentations else {
            throw PasteboardError(.invalidData, "\(trimmed)/\(infoName): lists \(info.representations.count) representations")
        }
        var total = 0
        var representations: [Representation] = []
        for record in info.representations {
            guard safeName(record.file), record.file != infoName else {
                throw PasteboardError(.invalidData, "\(trimmed)/\(infoName): bad file name '\(record.file)' for \(record.type)")
            }
            guard record.size >= 0, record.size <= maximumTotalSize - total else {
                throw PasteboardError(.invalidData, "\(trimmed): more than \(maximumTotalSize) bytes in all")
            }
            total += record.size
            let filePath = trimmed + "/" + record.file
            let data = try readFile(dirFD, record.file, displayPath: filePath, limit: record.size)
            guard data.count == record.size else {
                throw PasteboardError(.corrupt, "\(filePath): holds \(data.count) bytes, Info.plist says \(record.size)")
            }
            representations.append(Representation(type: record.type, data: data, derivedFrom: record.derivedFrom))
        }
        return Item(representations: representations, metadata: info.metadata)
    }

    /// A plain file name: not empty, no `/`, not starting with `.`, no control characters.
    static func safeName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255 && !name.contains("/") && !name.hasPrefix(".")
            && !name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    static func createFile(_ dirFD: Int32, _ name: String, _ data: Data, displayPath: String, mode: mode_t) throws {
        let fd = openat(dirFD, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw POSIX.ioError("create", displayPath) }
        defer { close(fd) }
        try POSIX.writeAll(fd, data, path: displayPath)
        guard fsync(fd) == 0 else { throw POSIX.ioError("fsync", displayPath) }
    }

    /// Reads a regular file (never through a symlink) of at most `limit` bytes (one more is read to
    /// detect a file that grew).
    static func readFile(_ dirFD: Int32, _ name: String, displayPath: String, limit: Int) throws -> Data {
        let fd = openat(dirFD, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ELOOP { throw PasteboardError(.refused, "\(displayPath): is a symbolic link; refusing to follow it") }
            if errno == ENOENT { throw PasteboardError(.corrupt, "\(displayPath): missing") }
            throw POSIX.ioError("open", displayPath)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw POSIX.ioError("stat", displayPath) }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw PasteboardError(.refused, "\(displayPath): not a regular file")
        }
        guard Int(st.st_size) <= limit else {
            throw PasteboardError(.corrupt, "\(displayPath): holds \(st.st_size) bytes, expected at most \(limit)")
        }
        return try POSIX.readAll(fd, path: displayPath, sizeHint: Int(st.st_size))
    }
}
