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

/// The clipboard history: every representation of each recorded item, newest first, bounded and
/// deduplicated.
///
/// Each entry is a document package written by ``FileStore`` (pasteboard `eID` in the history's own
/// folder, with the store's atomic rules), so a crash mid-record loses at most that entry. `index.json`
/// lists the entries with their types, sizes and preview: listing never reads a representation. All
/// changes happen under an exclusive `flock` on `lock`; readers take it shared. A damaged index is
/// rebuilt from the packages; a damaged package is reported and skipped.
public final class History: @unchecked Sendable {
    public struct Limits: Sendable, Equatable {
        /// Most entries kept (oldest dropped first).
        public var maxEntries = 1000
        /// Most bytes kept, all entries together.
        public var maxBytes = 512 << 20
        /// Largest representation recorded; a larger one is listed as skipped, with its size.
        public var maxRepresentationSize = 64 << 20
        public init() {}
    }

    /// One entry as the index lists it.
    public struct Entry: Codable, Sendable, Equatable {
        public struct Kind: Codable, Sendable, Equatable {
            public var type: TypeIdentifier
            public var size: Int?
            public var derivedFrom: TypeIdentifier?
        }
        public var id: Int
        /// When it was last copied (a repeated copy moves the entry up).
        public var time: Date
        public var application: String?
        public var selection: String
        public var types: [Kind]
        /// Representations over the size limit, not kept: type and size.
        public var skipped: [Kind]
        public var preview: String
        /// Identifies the content for deduplication.
        public var digest: String
        public var bytes: Int
    }

    struct Index: Codable {
        var format = 1
        var nextID = 1
        var entries: [Entry] = []
    }

    public enum Outcome: Equatable, Sendable {
        case recorded(Int)
        /// The same content was recorded before: that entry moved to the top.
        case moved(Int)
        case notRecorded(String)
    }

    public let root: String
    public var limits: Limits
    let store: FileStore

    static let indexName = "index.json"
    static let lockName = "lock"
    static let pausedName = "paused"

    /// The history at `root`; nothing is created before the first record.
    public init(root: String, limits: Limits = Limits(), producer: RepresentationProducer? = nil) throws {
        self.root = root
        self.limits = limits
        store = try FileStore(root: root, producer: producer)
    }

    /// Where the history lives: `$PBCTL_HISTORY`, else `$XDG_STATE_HOME/pbctl/history`, else
    /// `~/.local/state/pbctl/history`.
    public static func defaultRoot(environment: [String: String]) -> String {
        if let explicit = environment["PBCTL_HISTORY"], !explicit.isEmpty { return explicit }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/pbctl/history" }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp/pbctl-\(getuid())"
        return home + "/.local/state/pbctl/history"
    }

    public static func pasteboard(for id: Int) -> PasteboardName { PasteboardName("e\(id)")! }

    /// The backend an entry is read through (`history paste` negotiates as `paste` does).
    public var backend: any PasteboardBackend { store }

    // MARK: Recording

    /// The next record takes `data`'s bytes from the file at `path` (a store's data file): a hard link
    /// when the history is on the same file system, so recording a large copy costs no second write.
    public func adopt(_ path: String, holding data: Data) { store.adopt(path, holding: data) }

    /// Records `item` unless it is sensitive or transient, or recording is paused. Representations
    /// over ``Limits/maxRepresentationSize`` are listed as skipped.
    @discardableResult
    public func record(_ item: Item, preview: String, application: String?, selection: String = "clipboard", now: Date = Date())
        throws -> Outcome
    {
        if item.metadata.flags.contains(.sensitive) { return .notRecorded("the content is marked sensitive") }
        if item.metadata.flags.contains(.transient) { return .notRecorded("the content is marked transient") }
        return try withLock(exclusive: true, create: true) { fd in
            if let until = try pausedUntil(fd), until > now { return .notRecorded("recording is paused") }
            var kept = Item(metadata: item.metadata)
            var skipped: [Entry.Kind] = []
            var digest = ContentDigest()
            var bytes = 0
            for representation in item.representations {
                if representation.derivedFrom != nil, case .promised = representation.content {
                    // Produced again from its source when pasted: recorded as a record without bytes.
                    kept.set(representation)
                    continue
                }
                let data = try representation.data()
                if data.count > limits.maxRepresentationSize {
                    skipped.append(Entry.Kind(type: representation.type, size: data.count, derivedFrom: representation.derivedFrom))
                    continue
                }
                digest.add(representation.type, data)
                bytes += data.count
                kept.set(Representation(type: representation.type, data: data, derivedFrom: representation.derivedFrom))
            }
            guard !kept.representations.isEmpty else { return .notRecorded("every representation is over the size limit") }
            var index = try readIndex(fd)
            let key = digest.value
            if let at = index.entries.firstIndex(where: { $0.digest == key && sameContent(kept, as: $0.id) }) {
                var entry = index.entries.remove(at: at)
                entry.time = now
                if let application { entry.application = application }
                index.entries.insert(entry, at: 0)
                try writeIndex(index, fd)
                return .moved(entry.id)
            }
            let id = index.nextID
            index.nextID += 1
            try store.write([kept], to: Self.pasteboard(for: id))
            let types = kept.representations.map { representation -> Entry.Kind in
                let size: Int? = if case .data(let data) = representation.content { data.count } else { nil }
                return Entry.Kind(type: representation.type, size: size, derivedFrom: representation.derivedFrom)
            }
            index.entries.insert(
                Entry(
                    id: id, time: now, application: application, selection: selection, types: types, skipped: skipped,
                    preview: preview, digest: key, bytes: bytes),
                at: 0)
            // Bounds: oldest first, never the entry just recorded.
            var total = index.entries.reduce(0) { $0 + $1.bytes }
            while index.entries.count > 1, index.entries.count > limits.maxEntries || total > limits.maxBytes {
                let dropped = index.entries.removeLast()
                total -= dropped.bytes
                removePackage(dropped.id, fd)
            }
            try writeIndex(index, fd)
            return .recorded(id)
        }
    }

    /// Whether entry `id` holds exactly `item`'s recorded bytes, type for type. Stored files are read in
    /// chunks (`pread`), not mapped, and an adopted store file is compared file to file: confirming a
    /// 64 MiB duplicate costs neither 128 MiB of resident memory nor a copy.
    private func sameContent(_ item: Item, as id: Int) -> Bool {
        let pasteboard = Self.pasteboard(for: id)
        for representation in item.representations {
            guard case .data(let data) = representation.content else { continue }
            if let path = try? store.storedFilePath(representation.type, item: 0, in: pasteboard) {
                guard Self.file(path, holds: data, sameAs: store.adoptedFile(holding: data)) else { return false }
                continue
            }
            guard let stored = try? store.read(representation.type, item: 0, from: pasteboard), stored == data else { return false }
        }
        return true
    }

    /// Whether the regular file at `path` holds exactly `data` (whose bytes are those of the file `twin`
    /// when given), read 1 MiB at a time.
    static func file(_ path: String, holds data: Data, sameAs twin: String?) -> Bool {
        func openRegular(_ path: String) -> Int32? {
            let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            var st = stat()
            guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, Int(st.st_size) == data.count else {
                close(fd)
                return nil
            }
            return fd
        }
        guard let fd = openRegular(path) else { return false }
        defer { close(fd) }
        let other = twin.flatMap(openRegular)
        defer { if let other { close(other) } }
        let chunk = 1 << 20
        var mine = [UInt8](repeating: 0, count: chunk)
        var theirs = [UInt8](repeating: 0, count: other == nil ? 0 : chunk)
        func fill(_ fd: Int32, _ buffer: inout [UInt8], _ offset: Int, _ count: Int) -> Bool {
            var got = 0
            while got < count {
                let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + got, count - got, off_t(offset + got)) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return false }
                got += n
            }
            return true
        }
        var offset = 0
        while offset < data.count {
            let count = min(chunk, data.count - offset)
            guard fill(fd, &mine, offset, count) else { return false }
            if let other {
                guard fill(other, &theirs, offset, count), memcmp(mine, theirs, count) == 0 else { return false }
            } else {
                let equal = data.withUnsafeBytes { raw in memcmp(raw.baseAddress! + offset, mine, count) == 0 }
                guard equal else { return false }
            }
            offset += count
        }
        return true
    }

    // MARK: Reading and managing

    /// The entries, newest first (the index only: no representation is read). Entries whose package is
    /// gone are left out and named in `problems`.
    public func entries() throws -> (entries: [Entry], problems: [String]) {
        try withLock(exclusive: false, create: false, absent: ([], [])) { fd in
            let index = try readIndex(fd)
            var problems: [String] = []
            let present = index.entries.filter { entry in
                var st = stat()
                let name = "e\(entry.id).pasteboard/Info.json"
                if fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0, st.st_mode & S_IFMT == S_IFREG { return true }
                problems.append("\(root)/\(name): missing; entry \(entry.id) skipped")
                return false
            }
            return (present, problems)
        }
    }

    /// The entry `id`, or `.empty` naming it.
    public func entry(_ id: Int) throws -> Entry {
        guard let entry = try entries().entries.first(where: { $0.id == id }) else {
            throw PasteboardError.empty("there is no history entry \(id)")
        }
        return entry
    }

    /// The whole item of entry `id`: recorded bytes, and derived records as promises.
    public func item(_ id: Int) throws -> Item {
        let pasteboard = Self.pasteboard(for: id)
        guard let summary = try store.items(in: pasteboard).first else { throw PasteboardError.empty("there is no history entry \(id)") }
        var item = Item(metadata: summary.metadata)
        for type in summary.types {
            if type.derivedFrom != nil, type.size == nil {
                let store = self.store
                item.set(Representation(type: type.type, derivedFrom: type.derivedFrom) { try store.read(type.type, item: 0, from: pasteboard) })
            } else {
                item.set(Representation(type: type.type, data: try store.read(type.type, item: 0, from: pasteboard), derivedFrom: type.derivedFrom))
            }
        }
        return item
    }

    /// Removes entries; returns the ids that were not there.
    @discardableResult
    public func delete(_ ids: [Int]) throws -> [Int] {
        try withLock(exclusive: true, create: false, absent: ids) { fd in
            var index = try readIndex(fd)
            let present = Set(index.entries.map(\.id))
            index.entries.removeAll { ids.contains($0.id) }
            try writeIndex(index, fd)
            for id in ids where present.contains(id) { removePackage(id, fd) }
            return ids.filter { !present.contains($0) }
        }
    }

    /// Removes every entry (the numbering goes on).
    public func clear() throws {
        try withLock(exclusive: true, create: false, absent: ()) { fd in
            var index = try readIndex(fd)
            let ids = index.entries.map(\.id)
            index.entries = []
            try writeIndex(index, fd)
            for id in ids { removePackage(id, fd) }
            // Packages the index lost track of (a crash between writing one and the index).
            for name in try FileTree.entries(fd, path: root) where name.hasPrefix("e") && name.hasSuffix(".pasteboard") {
                FileTree.removeTree(root + "/" + name)
            }
        }
    }

    /// Stops recording until `until` (nil: until ``resume()``).
    public func pause(until: Date?) throws {
        try withLock(exclusive: true, create: true) { fd in
            let text = until.map { String(Int64($0.timeIntervalSince1970.rounded(.up))) } ?? "forever"
            unlinkat(fd, Self.pausedName, 0)
            let file = openat(fd, Self.pausedName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard file >= 0 else { throw POSIX.ioError("open", root + "/" + Self.pausedName) }
            defer { close(file) }
            try POSIX.writeAll(file, Data((text + "\n").utf8), path: root + "/" + Self.pausedName)
        }
    }

    public func resume() throws {
        try withLock(exclusive: true, create: false, absent: ()) { fd in _ = unlinkat(fd, Self.pausedName, 0) }
    }

    /// Until when recording is paused: nil when it is not; `.distantFuture` for a pause without end.
    public func pausedUntil() throws -> Date? {
        try withLock(exclusive: false, create: false, absent: nil) { try pausedUntil($0) }
    }

    // MARK: Files

    private func pausedUntil(_ fd: Int32) throws -> Date? {
        let file = openat(fd, Self.pausedName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { close(file) }
        let text = String(decoding: (try? POSIX.readAll(file, path: Self.pausedName, limit: 64)) ?? Data(), as: UTF8.self)
            .split(whereSeparator: { $0 == "\n" || $0 == " " }).first.map(String.init) ?? ""
        guard let seconds = Int64(text), seconds > 0, seconds < 1 << 40 else { return .distantFuture }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private func removePackage(_ id: Int, _ fd: Int32) {
        FileTree.removeTree(root + "/e\(id).pasteboard")
    }

    private func withLock<T>(exclusive: Bool, create: Bool, absent: T? = nil, _ body: (Int32) throws -> T) throws -> T {
        guard let fd = try PrivateDirectory.openStore(root, create: create) else {
            if let absent { return absent }
            throw PasteboardError(.io, "\(root): the history does not exist")
        }
        defer { close(fd) }
        let lock = exclusive
            ? openat(fd, Self.lockName, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
            : openat(fd, Self.lockName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if lock < 0, exclusive || errno != ENOENT { throw FileStore.openError(root + "/" + Self.lockName) }
        defer { if lock >= 0 { close(lock) } }
        if lock >= 0 {
            while flock(lock, exclusive ? LOCK_EX : LOCK_SH) != 0 {
                if errno != EINTR { throw POSIX.ioError("lock", root) }
            }
        }
        return try body(fd)
    }

    /// The index; a missing one is empty, a damaged one is rebuilt from the packages.
    private func readIndex(_ fd: Int32) throws -> Index {
        let package = FileStore.Package(fd: fd, path: root)
        guard let data = try package.readStoredFile(Self.indexName, size: nil, limit: 64 << 20) else { return Index() }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        if let index = try? decoder.decode(Index.self, from: data), index.format == 1, index.nextID > 0, index.nextID < 1 << 53,
            index.entries.allSatisfy({ $0.id > 0 && $0.id < index.nextID && $0.bytes >= 0 })
        {
            return index
        }
        return try rebuildIndex(fd)
    }

    /// An index made from the packages themselves (their metadata), newest first; previews are lost.
    private func rebuildIndex(_ fd: Int32) throws -> Index {
        var index = Index()
        for name in try FileTree.entries(fd, path: root) where name.hasPrefix("e") && name.hasSuffix(".pasteboard") {
            guard let id = Int(name.dropFirst().dropLast(".pasteboard".count)), id > 0, id < 1 << 53,
                let summary = try? store.items(in: Self.pasteboard(for: id)).first
            else { continue }
            let types = summary.types.map { Entry.Kind(type: $0.type, size: $0.size, derivedFrom: $0.derivedFrom) }
            index.entries.append(
                Entry(
                    id: id, time: summary.metadata.created, application: summary.metadata.sourceApplication, selection: "clipboard",
                    types: types, skipped: [], preview: "", digest: "rebuilt-\(id)",
                    bytes: types.reduce(0) { $0 + ($1.size ?? 0) }))
            index.nextID = max(index.nextID, id + 1)
        }
        index.entries.sort { ($0.time, $0.id) > ($1.time, $1.id) }
        return index
    }

    private func writeIndex(_ index: Index, _ fd: Int32) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let package = FileStore.Package(fd: fd, path: root)
        let temporary = Self.indexName + ".new-\(getpid())"
        try package.createFile(temporary, try encoder.encode(index))
        guard renameat(fd, temporary, fd, Self.indexName) == 0 else {
            let code = errno
            unlinkat(fd, temporary, 0)
            throw POSIX.ioError("rename", root + "/" + Self.indexName, code)
        }
    }
}

/// A cheap key for deduplication: each representation's type and size, and hashes of its first and
/// last 64 KiB (never a pass over megabytes). Equal keys are confirmed byte for byte before an entry
/// counts as the same content.
struct ContentDigest {
    private var parts: [(String, UInt64)] = []

    mutating func add(_ type: TypeIdentifier, _ data: Data) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        for byte in type.rawValue.utf8 { mix(byte) }
        for byte in String(data.count).utf8 { mix(byte) }
        let window = 64 << 10
        data.withUnsafeBytes { raw in
            for byte in raw.prefix(window) { mix(byte) }
            if raw.count > window { for byte in raw.suffix(min(window, raw.count - window)) { mix(byte) } }
        }
        parts.append((type.rawValue, hash))
    }

    /// Independent of the order the representations came in.
    var value: String {
        var hash: UInt64 = 0x8422_2325_cbf2_9ce4
        for (_, part) in parts.sorted(by: { $0.0 < $1.0 }) { hash = (hash ^ part) &* 0x100_0000_01b3 }
        return String(hash, radix: 16) + "-" + String(parts.count)
    }
}
