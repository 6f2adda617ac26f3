// The history as pbctl wrote it before its database (format 1): the class as it was at commit a2da111,
// renamed, kept here to write old-format histories that the current `History` must migrate (the
// tests' fixture writer; nothing in Sources uses it).
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

@testable import History
@testable import PasteboardStore

/// The clipboard history: every representation of each recorded item, newest first, bounded and
/// deduplicated.
///
/// Each entry is a document package written by ``FileStore`` (pasteboard `eID` in the history's own
/// folder, with the store's atomic rules), which also holds the entry's own record, `Entry.json` (time,
/// application, preview, digest, what was skipped). `index.json` is a cache of those records that
/// listing reads: it can always be rebuilt from the packages, and it is reconciled with them (one
/// `readdir`) whenever it is read, so a lost, damaged or stale index hides nothing and an ID is never
/// given again while its package exists. All changes happen under an exclusive `flock` on `lock`;
/// readers take it shared. A damaged package is reported and skipped.
final class FormatOneHistory: @unchecked Sendable {
    struct Limits: Sendable, Equatable {
        /// Most entries kept (oldest dropped first).
        var maxEntries = 1000
        /// Most bytes kept, all entries together.
        var maxBytes = 512 << 20
        /// Largest representation recorded; a larger one is listed as skipped, with its size.
        var maxRepresentationSize = 64 << 20
        init() {}
    }

    /// One entry as the index lists it (and as its package's `Entry.json` records it).
    struct Entry: Codable, Sendable, Equatable {
        struct Kind: Codable, Sendable, Equatable {
            var type: TypeIdentifier
            /// Nil for a representation produced on paste (or, when skipped, produced from a skipped one).
            var size: Int?
            var derivedFrom: TypeIdentifier?
            /// Skipped because its owner went away before sending all of it (never kept half).
            var cutShort: Bool

            init(type: TypeIdentifier, size: Int?, derivedFrom: TypeIdentifier? = nil, cutShort: Bool = false) {
                self.type = type
                self.size = size
                self.derivedFrom = derivedFrom
                self.cutShort = cutShort
            }
        }
        var id: Int
        /// When it was last copied (a repeated copy moves the entry up).
        var time: Date
        var application: String?
        var selection: String
        var types: [Kind]
        /// Representations not kept (over the size limit, or produced from one that was): type and size.
        var skipped: [Kind]
        var preview: String
        /// Identifies the content for deduplication.
        var digest: String
        var bytes: Int

        /// Whether anything of the entry was kept: an entry whose every representation was over the
        /// limit is listed, but has nothing to paste.
        var keepsContent: Bool { !types.isEmpty }
    }

    struct Index {
        var format = 1
        var nextID = 1
        var entries: [Entry] = []
    }

    enum Outcome: Equatable, Sendable {
        case recorded(Int)
        /// The same content was recorded before: that entry moved to the top.
        case moved(Int)
        case notRecorded(String)
    }

    let root: String
    var limits: Limits
    let store: FileStore
    /// The one-line preview of an item (what `pbctl history` lists), for entries recorded without one.
    let describe: (Item) -> String

    static let indexName = "index.json"
    static let journalName = "index.log"
    static let lockName = "lock"
    static let pausedName = "paused"
    static let entryName = "Entry.json"
    /// The highest ID accepted from a folder or record name.
    static let maximumID = 1 << 53
    /// The longest preview kept from a record (a preview is one line of at most 80 characters).
    static let maximumPreview = 1024

    /// The history at `root`; nothing is created before the first record.
    init(
        root: String, limits: Limits = Limits(), producer: RepresentationProducer? = nil,
        describe: @escaping (Item) -> String = { _ in "" }
    ) throws {
        self.root = root
        self.limits = limits
        self.describe = describe
        store = try FileStore(root: root, producer: producer)
    }

    /// Where the history lives: `$PBCTL_HISTORY`, else `$XDG_STATE_HOME/pbctl/history`, else
    /// `~/.local/state/pbctl/history`.
    static func defaultRoot(environment: [String: String]) -> String {
        defaultRoot { environment[$0] }
    }

    /// ``defaultRoot(environment:)`` with each variable read by `variable`.
    static func defaultRoot(variable: (String) -> String?) -> String {
        if let explicit = variable("PBCTL_HISTORY"), !explicit.isEmpty { return explicit }
        if let state = variable("XDG_STATE_HOME"), state.hasPrefix("/") { return state + "/pbctl/history" }
        let home = variable("HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp/pbctl-\(getuid())"
        return home + "/.local/state/pbctl/history"
    }

    static func pasteboard(for id: Int) -> PasteboardName { PasteboardName("e\(id)")! }

    /// The backend an entry is read through (`history paste` negotiates as `paste` does).
    var backend: any PasteboardBackend { store }

    // MARK: Recording

    /// The next record takes `data`'s bytes from the file at `path` (a store's data file): a hard link
    /// when the history is on the same file system, so recording a large copy costs no second write.
    func adopt(_ path: String, holding data: Data) { store.adopt(path, holding: data) }

    /// Records `item` unless it is sensitive or transient, or recording is paused. Representations
    /// over ``Limits/maxRepresentationSize`` are listed as skipped, with their size, and so are the
    /// ones produced from them; an item of which nothing can be kept is still listed, as skipped.
    @discardableResult
    /// - Parameter skipped: what the recorder itself left out (an owner's target over the limit, with
    ///   its size), listed with what this record skips.
    func record(
        _ item: Item, preview: String, application: String?, selection: String = "clipboard", skipped alreadySkipped: [Entry.Kind] = [],
        now: Date = Date()
    ) throws -> Outcome {
        if let why = item.metadata.flags.reasonNotToRecord { return .notRecorded(why) }
        do {
            return try recordLocked(item, preview: preview, application: application, selection: selection, skipped: alreadySkipped, now: now)
        } catch let error as PasteboardError {
            // Said of the history alone: the clipboard copy it records went on (a full disk here is not
            // a lost copy there).
            let suffix = "; nothing was copied, the previous content is intact"
            let cause = error.message.hasSuffix(suffix) ? String(error.message.dropLast(suffix.count)) : error.message
            throw PasteboardError(error.code, cause.contains(root) ? cause : "\(cause) (the history at \(root.shownPath))")
        }
    }

    private func recordLocked(
        _ item: Item, preview: String, application: String?, selection: String, skipped alreadySkipped: [Entry.Kind], now: Date
    ) throws -> Outcome {
        try withLock(exclusive: true, create: true) { fd in
            if let until = try pausedUntil(fd), until > now { return .notRecorded("recording is paused") }
            var (kept, skipped, digest) = try keep(item, alreadySkipped)
            skipped = alreadySkipped + skipped
            guard !kept.representations.isEmpty || !skipped.isEmpty else { return .notRecorded("the item is empty") }
            var (index, _, stale) = try reconciledIndex(fd)
            // A duplicate is confirmed byte for byte; an entry with skipped parts never counts as one
            // (what was not kept cannot be compared).
            if skipped.isEmpty, let at = index.entries.firstIndex(where: { $0.digest == digest && $0.skipped.isEmpty && sameContent(kept, as: $0.id) }) {
                var entry = index.entries.remove(at: at)
                entry.time = now
                if let application { entry.application = application }
                index.entries.insert(entry, at: 0)
                // A short journal line; the entry's own record keeps its first time (the journal and the
                // snapshot say when it moved; a record read back after both are lost lists it there).
                let move: JSONValue = .record([
                    ("move", .integer(Int64(entry.id))), ("time", .string(ISO8601Seconds.string(now))),
                    ("application", application.map(JSONValue.string)),
                ])
                try appendIndex([move], index, fd, snapshot: stale)
                return .moved(entry.id)
            }
            let id = index.nextID
            index.nextID += 1
            do {
                try store.write([kept], to: Self.pasteboard(for: id))
            } catch {
                // A write that failed (a full disk) leaves no package behind: no empty entry, no damage.
                removePackage(id, fd)
                throw error
            }
            let types = kept.representations.map { representation -> Entry.Kind in
                Entry.Kind(type: representation.type, size: representation.knownSize, derivedFrom: representation.derivedFrom)
            }
            let entry = Entry(
                id: id, time: now, application: application, selection: selection, types: types, skipped: skipped,
                preview: Self.bounded(preview), digest: digest, bytes: types.reduce(0) { $0 + ($1.size ?? 0) })
            do {
                try writeEntry(entry, fd)
            } catch {
                removePackage(id, fd)
                throw error
            }
            index.entries.insert(entry, at: 0)
            // Bounds: oldest first, never the entry just recorded.
            var total = index.entries.reduce(0) { $0 + $1.bytes }
            var dropped: [Int] = []
            while index.entries.count > 1, index.entries.count > limits.maxEntries || total > limits.maxBytes {
                let last = index.entries.removeLast()
                total -= last.bytes
                dropped.append(last.id)
            }
            var lines: [JSONValue] = [.record([("entry", entry.json)])]
            if !dropped.isEmpty { lines.append(.record([("drop", .array(dropped.map { .integer(Int64($0)) }))])) }
            try appendIndex(lines, index, fd, snapshot: stale)
            for id in dropped { removePackage(id, fd) }
            return .recorded(id)
        }
    }

    /// What of `item` the history keeps: each representation within the size limit (a promised one only
    /// when what it is produced from is kept), what it skips, and the content's digest (skipped parts
    /// included, by type, size and sampled bytes, so two different over-limit items never look alike).
    private func keep(_ item: Item, _ alreadySkipped: [Entry.Kind]) throws -> (Item, [Entry.Kind], String) {
        var kept = Item(metadata: item.metadata)
        var skipped: [Entry.Kind] = []
        var digest = FormatOneDigest()
        for kind in alreadySkipped { digest.add(kind.type, Data(), skipped: true, size: kind.size) }
        var keptTypes: [TypeIdentifier] = []
        var promised: [Representation] = []
        for representation in item.representations {
            if representation.derivedFrom != nil, case .promised = representation.content {
                promised.append(representation)
                continue
            }
            let data = try representation.data()
            if data.count > limits.maxRepresentationSize {
                skipped.append(Entry.Kind(type: representation.type, size: data.count, derivedFrom: representation.derivedFrom))
                digest.add(representation.type, data, skipped: true)
                continue
            }
            digest.add(representation.type, data)
            keptTypes.append(representation.type)
            kept.set(Representation(type: representation.type, data: data, derivedFrom: representation.derivedFrom))
        }
        // Produced again from their source when pasted: kept as records without bytes, if the source is.
        for representation in promised {
            if let source = representation.derivedFrom, keptTypes.contains(source) {
                kept.set(representation)
            } else {
                skipped.append(Entry.Kind(type: representation.type, size: nil, derivedFrom: representation.derivedFrom))
            }
        }
        // In the item's own order.
        let order = item.representations.map(\.type)
        var ordered = Item(metadata: kept.metadata)
        for type in order { if let representation = kept.representation(for: type) { ordered.set(representation) } }
        skipped.sort { (order.firstIndex(of: $0.type) ?? 0) < (order.firstIndex(of: $1.type) ?? 0) }
        return (ordered, skipped, digest.value)
    }

    /// Whether entry `id` holds exactly `item`'s recorded bytes, type for type. Stored files are read in
    /// chunks (`pread`), not mapped, and an adopted store file is compared file to file: confirming a
    /// 64 MiB duplicate costs neither 128 MiB of resident memory nor a copy.
    private func sameContent(_ item: Item, as id: Int) -> Bool {
        let pasteboard = Self.pasteboard(for: id)
        guard let stored = try? store.storedFiles(item: 0, in: pasteboard),
            stored.types.sorted() == item.representations.map(\.type).sorted()
        else { return false }
        for representation in item.representations {
            guard case .data(let data) = representation.content else { continue }
            if let path = stored.files.first(where: { $0.0 == representation.type })?.1 {
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
        // A buffer the size of the data up to 1 MiB: confirming a few bytes must not clear a megabyte.
        let chunk = max(1, min(1 << 20, data.count))
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

    /// The entries, newest first (the index, reconciled with the packages on disk: no representation
    /// is read). Entries whose package is gone are left out and named in `problems`.
    func entries() throws -> (entries: [Entry], problems: [String]) {
        try withLock(exclusive: false, create: false, absent: ([], [])) { fd in
            let (index, problems, _) = try reconciledIndex(fd)
            return (index.entries, problems)
        }
    }

    /// The entry `id`, or `.empty` naming it.
    func entry(_ id: Int) throws -> Entry {
        guard let entry = try entries().entries.first(where: { $0.id == id }) else {
            throw PasteboardError.empty("there is no history entry \(id)")
        }
        return entry
    }

    /// The entry `id`, which must keep something to paste: else `.empty` saying what was skipped.
    func pasteableEntry(_ id: Int) throws -> Entry {
        let entry = try entry(id)
        guard entry.keepsContent else {
            let what = entry.skipped.first.map { kind in
                "\(kind.type)" + (kind.size.map { " (\(formatSize($0)))" } ?? "")
            } ?? "its content"
            throw PasteboardError.empty(
                "history entry \(id) keeps nothing to paste: \(what) was over history.max-entry-size (\(formatSize(limits.maxRepresentationSize)))")
        }
        return entry
    }

    /// The whole item of entry `id`: recorded bytes, and derived records as promises.
    func item(_ id: Int) throws -> Item {
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

    /// The entries whose text (`text` of their item) `matches`, newest first, at most `limit`. Entries
    /// that keep no text are matched on their preview.
    func search(limit: Int? = nil, text: (Item) -> String?, _ matches: (String) -> Bool) throws -> [Entry] {
        var found: [Entry] = []
        for entry in try entries().entries {
            let content = entry.keepsContent ? (try? item(entry.id)).flatMap(text) : nil
            if matches(content ?? entry.preview) { found.append(entry) }
            if let limit, found.count >= limit { break }
        }
        return found
    }

    /// Removes entries; returns the ids that were not there.
    @discardableResult
    func delete(_ ids: [Int]) throws -> [Int] {
        try withLock(exclusive: true, create: false, absent: ids) { fd in
            var (index, _, _) = try reconciledIndex(fd)
            let present = Set(index.entries.map(\.id))
            index.entries.removeAll { ids.contains($0.id) }
            try writeIndex(index, fd)
            for id in ids where present.contains(id) { removePackage(id, fd) }
            return ids.filter { !present.contains($0) }
        }
    }

    /// Removes every entry (the numbering goes on).
    func clear() throws {
        try withLock(exclusive: true, create: false, absent: ()) { fd in
            var (index, _, _) = try reconciledIndex(fd)
            let ids = index.entries.map(\.id)
            index.entries = []
            try writeIndex(index, fd)
            for id in ids { removePackage(id, fd) }
            // Packages that could not be read (damaged): nothing of them stays either.
            for (id, _) in try packageIDs(fd) { removePackage(id, fd) }
        }
    }

    /// Stops recording until `until` (nil: until ``resume()``).
    func pause(until: Date?) throws {
        try withLock(exclusive: true, create: true) { fd in
            let text = until.map { String(Int64($0.timeIntervalSince1970.rounded(.up))) } ?? "forever"
            let package = FileStore.Package(fd: fd, path: root)
            try package.replaceFile(Self.pausedName, Data((text + "\n").utf8))
        }
    }

    func resume() throws {
        try withLock(exclusive: true, create: false, absent: ()) { fd in _ = unlinkat(fd, Self.pausedName, 0) }
    }

    /// Until when recording is paused: nil when it is not; `.distantFuture` for a pause without end.
    func pausedUntil(now: Date = Date()) throws -> Date? {
        try withLock(exclusive: false, create: false, absent: nil) { fd in
            guard let until = try pausedUntil(fd), until > now else { return nil }
            return until
        }
    }

    // MARK: Files

    private func pausedUntil(_ fd: Int32) throws -> Date? {
        let package = FileStore.Package(fd: fd, path: root)
        guard let data = try? package.readStoredFile(Self.pausedName, size: nil, limit: 64) else { return nil }
        let text = String(decoding: data, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == " " }).first.map(String.init) ?? ""
        guard let seconds = Int64(text), seconds > 0, seconds < 1 << 40 else { return .distantFuture }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private func removePackage(_ id: Int, _ fd: Int32) {
        FileTree.removeTree(root + "/e\(id).pasteboard")
    }

    private func withLock<T>(exclusive: Bool, create: Bool, absent: T? = nil, _ body: (Int32) throws -> T) throws -> T {
        // The entries' store has the same root, opened once for both.
        guard let fd = try store.rootDirectory(create: create) else {
            if let absent { return absent }
            throw PasteboardError(.io, "\(root): the history does not exist")
        }
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

    /// The entry packages on disk: id and folder name (`eID.pasteboard`, `0 < ID < 2^53`).
    private func packageIDs(_ fd: Int32) throws -> [(Int, String)] {
        try FileTree.entries(fd, path: root).compactMap { name in
            guard name.hasPrefix("e"), name.hasSuffix(".pasteboard"),
                let id = Int(name.dropFirst().dropLast(".pasteboard".count)), id > 0, id < Self.maximumID,
                "e\(id).pasteboard" == name
            else { return nil }
            return (id, name)
        }
    }

    /// The index as the packages on disk say it is: the cached one when whole, with entries whose
    /// package is gone left out (named in the problems), packages it does not list (a crash between
    /// writing one and the index, a lost or damaged index) read back from their own records, and a next
    /// ID above every package's.
    /// `stale`: the cached index did not say what the packages do (it is worth writing again whole).
    private func reconciledIndex(_ fd: Int32) throws -> (index: Index, problems: [String], stale: Bool) {
        let cached = readIndex(fd)
        var index = cached ?? Index()
        var stale = cached == nil
        // Sorted arrays, not a dictionary and a set: no run-time look-up of generic conformances for
        // what a copy does every time (a static executable pays one per new generic type).
        let onDisk = try packageIDs(fd).map(\.0).sorted()
        func position(of id: Int) -> Int? {
            var low = 0, high = onDisk.count
            while low < high {
                let middle = (low + high) / 2
                if onDisk[middle] < id { low = middle + 1 } else { high = middle }
            }
            return low < onDisk.count && onDisk[low] == id ? low : nil
        }
        var problems: [String] = []
        var listed = [Bool](repeating: false, count: onDisk.count)
        index.entries.removeAll { entry in
            guard let at = position(of: entry.id), !listed[at] else {
                stale = true
                if position(of: entry.id) == nil { problems.append("\(root)/e\(entry.id).pasteboard/Info.json: missing; entry \(entry.id) skipped") }
                return true
            }
            listed[at] = true
            return false
        }
        var recovered: [Entry] = []
        for (at, id) in onDisk.enumerated() where !listed[at] {
            if let entry = recoveredEntry(id, fd) { recovered.append(entry) } else {
                problems.append("\(root)/e\(id).pasteboard: damaged; entry \(id) skipped")
            }
        }
        // Entries read back from their packages are worth keeping in the snapshot (a package that cannot
        // be read at all is reported each time instead: writing the index would not change that).
        if !recovered.isEmpty {
            stale = true
            index.entries += recovered
            index.entries.sort { ($0.time, $0.id) > ($1.time, $1.id) }
        }
        index.nextID = max(index.nextID, (onDisk.last ?? 0) + 1)
        return (index, problems, stale && !onDisk.isEmpty)
    }

    /// The cached index: the snapshot (`index.json`) with the journal (`index.log`) applied. A record
    /// appends a line to the journal instead of writing the whole index again: `{"entry": …}` puts that
    /// entry first (new), `{"move": ID, "time": …}` puts an entry first again (the same content copied
    /// again), `{"drop": [IDs]}` removes entries. A line that does not read (the
    /// last one, cut by a crash) is skipped: the packages on disk fill in what it said. Nil when neither
    /// exists or the snapshot is damaged and the journal says nothing.
    private func readIndex(_ fd: Int32) -> Index? {
        let package = FileStore.Package(fd: fd, path: root)
        var index: Index? = nil
        if let data = try? package.readStoredFile(Self.indexName, size: nil, limit: 64 << 20), let json = try? JSONValue.parse(data),
            let snapshot = try? Index(json: json), snapshot.format == 1, snapshot.nextID > 0, snapshot.nextID < Self.maximumID,
            snapshot.entries.allSatisfy({ $0.id < snapshot.nextID && Self.isValid($0) })
        {
            index = snapshot
        }
        guard let journal = try? package.readStoredFile(Self.journalName, size: nil, limit: 64 << 20), !journal.isEmpty else {
            journalLines = 0
            return index
        }
        var result = index ?? Index()
        var lines = 0
        var records: [JSONValue] = []
        journal.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var start = 0
            while start < bytes.count {
                var end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
                if end > start {
                    lines += 1
                    // A line that does not read is skipped (see above).
                    if let json = try? JSONValue.parse(UnsafeBufferPointer(rebasing: bytes[start..<end])) { records.append(json) }
                }
                start = end + 1
            }
        }
        for json in records {
            if let value = json["entry"], let entry = try? Entry(json: value), Self.isValid(entry) {
                result.entries.removeAll { $0.id == entry.id }
                result.entries.insert(entry, at: 0)
                result.nextID = max(result.nextID, entry.id + 1)
            } else if let id = json["move"]?.int, let time = json["time"]?.string.flatMap(ISO8601Seconds.date),
                let at = result.entries.firstIndex(where: { $0.id == id })
            {
                var entry = result.entries.remove(at: at)
                entry.time = time
                if let application = json["application"]?.string { entry.application = application }
                result.entries.insert(entry, at: 0)
            } else if let ids = json["drop"]?.array {
                let dropped = ids.compactMap(\.int)
                result.entries.removeAll { dropped.contains($0.id) }
            }
        }
        journalLines = lines
        return result
    }

    /// Lines of the journal as last read (``readIndex(_:)``), for deciding when to fold it in.
    private var journalLines = 0

    /// Appends `lines` to the journal, one write; folds the journal into a new snapshot of `index` (the
    /// index with these lines applied) once it is longer than the index itself would be worth.
    /// `snapshot`: write the snapshot now (the cached index was damaged or missed packages).
    private func appendIndex(_ lines: [JSONValue], _ index: Index, _ fd: Int32, snapshot: Bool) throws {
        if snapshot || journalLines + lines.count > max(64, index.entries.count) {
            return try writeIndex(index, fd)
        }
        var bytes: [UInt8] = []
        for line in lines {
            line.write(into: &bytes)
            bytes.append(UInt8(ascii: "\n"))
        }
        let log = openat(fd, Self.journalName, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard log >= 0 else { return try writeIndex(index, fd) }
        defer { close(log) }
        let before = lseek(log, 0, SEEK_END)
        do {
            try POSIX.writeAll(log, Data(bytes), path: root + "/" + Self.journalName)
            journalLines += lines.count
        } catch {
            // A full disk: no partial line stays to spoil the next one; the packages still say what the
            // index would have (they are read back).
            if before >= 0 { ftruncate(log, before) }
            throw error
        }
    }

    /// Every number and name of a record read from disk, range-checked.
    static func isValid(_ entry: Entry) -> Bool {
        func valid(_ kind: Entry.Kind) -> Bool {
            kind.type.isWellFormed && (kind.size.map { (0...FileStore.maximumStoredSize).contains($0) } ?? true)
                && (kind.derivedFrom?.isWellFormed ?? true)
        }
        return entry.id > 0 && entry.id < maximumID && (0...FileStore.maximumStoredSize).contains(entry.bytes)
            && entry.types.count <= 10_000 && entry.skipped.count <= 10_000 && entry.types.allSatisfy(valid)
            && entry.skipped.allSatisfy(valid) && entry.preview.utf8.count <= maximumPreview * 4
            && entry.digest.utf8.count <= 256 && entry.selection.utf8.count <= 64
            && (entry.application?.utf8.count ?? 0) <= 1024 && entry.time.timeIntervalSince1970.isFinite
    }

    /// Entry `id` from its package: its own record when whole, else made from the package's metadata
    /// and content (the preview and digest computed again). Nil when the package cannot be read.
    private func recoveredEntry(_ id: Int, _ fd: Int32) -> Entry? {
        let name = "e\(id).pasteboard"
        if let packageFD = try? FileStore.openDirectory(name, relativeTo: fd, create: false, displayPath: root + "/" + name) {
            defer { close(packageFD) }
            let package = FileStore.Package(fd: packageFD, path: root + "/" + name)
            if let data = try? package.readStoredFile(Self.entryName, size: nil, limit: 4 << 20),
                let json = try? JSONValue.parse(data), let entry = try? Entry(json: json), entry.id == id, Self.isValid(entry)
            {
                return entry
            }
        }
        guard let summary = try? store.items(in: Self.pasteboard(for: id)).first, let item = try? item(id) else { return nil }
        var digest = FormatOneDigest()
        for representation in item.representations {
            if case .data(let data) = representation.content { digest.add(representation.type, data) }
        }
        let types = summary.types.map { Entry.Kind(type: $0.type, size: $0.size, derivedFrom: $0.derivedFrom) }
        return Entry(
            id: id, time: summary.metadata.created, application: summary.metadata.sourceApplication, selection: "clipboard",
            types: types, skipped: [], preview: Self.bounded(describe(item)), digest: digest.value,
            bytes: types.reduce(0) { $0 + ($1.size ?? 0) })
    }

    static func bounded(_ preview: String) -> String {
        preview.unicodeScalars.count <= maximumPreview ? preview : String(String.UnicodeScalarView(preview.unicodeScalars.prefix(maximumPreview)))
    }

    /// Writes entry's own record into its package (a temporary file renamed into place, not synced: after
    /// a power cut a record that did not reach the disk is made again from the package).
    private func writeEntry(_ entry: Entry, _ fd: Int32) throws {
        let name = "e\(entry.id).pasteboard"
        let packageFD = try FileStore.openDirectory(name, relativeTo: fd, create: false, displayPath: root + "/" + name)
        defer { close(packageFD) }
        try FileStore.Package(fd: packageFD, path: root + "/" + name).replaceFile(Self.entryName, entry.json.encodedData, sync: false)
    }

    /// A new snapshot of the whole index, and an empty journal.
    private func writeIndex(_ index: Index, _ fd: Int32) throws {
        try FileStore.Package(fd: fd, path: root).replaceFile(Self.indexName, index.json.encodedData, sync: false)
        unlinkat(fd, Self.journalName, 0)
        journalLines = 0
    }
}

// The history's records as JSON (``JSONValue``: no `JSONDecoder` on the way of a copy), with the keys
// and forms `Codable` gave them.
extension FormatOneHistory.Entry.Kind {
    var json: JSONValue {
        .record([
            ("type", .string(type.rawValue)), ("size", size.map { .integer(Int64($0)) }),
            ("derivedFrom", derivedFrom.map { .string($0.rawValue) }), ("cutShort", cutShort ? .bool(true) : nil),
        ])
    }

    init(json: JSONValue) throws {
        self.init(
            type: TypeIdentifier(try json.requiredString("type")), size: try json.optionalInt("size"),
            derivedFrom: try json.optionalString("derivedFrom").map { TypeIdentifier($0) }, cutShort: try json.optionalBool("cutShort") ?? false)
    }
}

extension FormatOneHistory.Entry {
    var json: JSONValue {
        .record([
            ("id", .integer(Int64(id))), ("time", .string(ISO8601Seconds.string(time))), ("application", application.map(JSONValue.string)),
            ("selection", .string(selection)), ("types", .array(types.map(\.json))), ("skipped", .array(skipped.map(\.json))),
            ("preview", .string(preview)), ("digest", .string(digest)), ("bytes", .integer(Int64(bytes))),
        ])
    }

    init(json: JSONValue) throws {
        self.init(
            id: try json.requiredInt("id"), time: try json.requiredDate("time"), application: try json.optionalString("application"),
            selection: try json.requiredString("selection"), types: try json.requiredArray("types").map(Kind.init(json:)),
            skipped: try json.requiredArray("skipped").map(Kind.init(json:)), preview: try json.requiredString("preview"),
            digest: try json.requiredString("digest"), bytes: try json.requiredInt("bytes"))
    }
}

extension FormatOneHistory {
    /// The history's record readers on one value (the `json` fuzz target).
    static func fuzzRecordsUnused(_ value: JSONValue) {
        _ = try? Entry(json: value)
        if let index = try? Index(json: value) { _ = index.entries.allSatisfy(isValid) }
    }
}

extension FormatOneHistory.Index {
    var json: JSONValue {
        .record([("format", .integer(Int64(format))), ("nextID", .integer(Int64(nextID))), ("entries", .array(entries.map(\.json)))])
    }

    init(json: JSONValue) throws {
        self.init(
            format: try json.requiredInt("format"), nextID: try json.requiredInt("nextID"),
            entries: try json.requiredArray("entries").map(FormatOneHistory.Entry.init(json:)))
    }
}

/// A cheap key for deduplication: each representation's type and size, and hashes of its first and
/// last 64 KiB (never a pass over megabytes). Equal keys are confirmed byte for byte before an entry
/// counts as the same content.
struct FormatOneDigest {
    private var parts: [(String, UInt64)] = []

    mutating func add(_ type: TypeIdentifier, _ data: Data, skipped: Bool = false, size: Int? = nil) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        for byte in type.rawValue.utf8 { mix(byte) }
        for byte in String(size ?? data.count).utf8 { mix(byte) }
        if skipped { for byte in "skipped".utf8 { mix(byte) } }
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
