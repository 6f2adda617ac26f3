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

/// The history as pbctl wrote it before its database (format 1): one ``FileStore`` package per entry
/// (`eID.pasteboard`, with its own record `Entry.json`), an index snapshot (`index.json`) and its
/// journal (`index.log`), a `paused` file. Read once, when ``History`` migrates it into its database
/// on first use; nothing here writes.
///
/// The index is a cache of the packages' records, reconciled with them: a lost, damaged or stale
/// index hides nothing, a package it does not list is read back from its own record (or described
/// again from its content), and a package that cannot be read is named in the problems.
final class LegacyHistory {
    typealias Entry = History.Entry

    struct Index {
        var format = 1
        var nextID = 1
        var entries: [Entry] = []
    }

    let root: String
    let fd: Int32
    let store: FileStore
    let describe: (Item) -> String

    static let indexName = "index.json"
    static let journalName = "index.log"
    static let pausedName = "paused"
    static let entryName = "Entry.json"
    static let maximumID = History.maximumID
    static let maximumPreview = History.maximumPreview

    /// The legacy history in the directory `fd` (the history's root, kept open by the caller).
    init(root: String, fd: Int32, describe: @escaping (Item) -> String) throws {
        self.root = root
        self.fd = fd
        self.describe = describe
        store = try FileStore(root: root, producer: nil)
    }

    /// Whether the folder holds anything of the old format: its index, journal, pause, or an entry package.
    static func isPresent(_ fd: Int32, path: String) -> Bool {
        var st = stat()
        for name in [indexName, journalName, pausedName] where fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 { return true }
        return ((try? FileTree.entries(fd, path: path)) ?? []).contains { isPackageName($0) != nil }
    }

    /// The id in a package's folder name (`eID.pasteboard`, `0 < ID < 2^53`), nil for any other name.
    static func isPackageName(_ name: String) -> Int? {
        guard name.hasPrefix("e"), name.hasSuffix(".pasteboard"),
            let id = Int(name.dropFirst().dropLast(".pasteboard".count)), id > 0, id < maximumID,
            "e\(id).pasteboard" == name
        else { return nil }
        return id
    }

    /// The entries, oldest first, the highest ID given so far, and what could not be read.
    func entries() throws -> (entries: [Entry], nextID: Int, problems: [String]) {
        let (index, problems, _) = try reconciledIndex(fd)
        return (index.entries.reversed(), index.nextID, problems)
    }

    /// The whole item of entry `id` as its package holds it: the kept bytes, and the records of what is
    /// produced on paste (type and source, no bytes).
    func item(_ id: Int) throws -> Item {
        let pasteboard = PasteboardName("e\(id)")!
        guard let summary = try store.items(in: pasteboard).first else { throw PasteboardError.empty("there is no history entry \(id)") }
        var item = Item(metadata: summary.metadata)
        for type in summary.types {
            if type.derivedFrom != nil, type.size == nil {
                item.set(Representation(type: type.type, derivedFrom: type.derivedFrom) { throw PasteboardError(.typeNotOffered, "produced on paste") })
            } else {
                item.set(Representation(type: type.type, data: try store.read(type.type, item: 0, from: pasteboard), derivedFrom: type.derivedFrom))
            }
        }
        return item
    }

    static func pasteboard(for id: Int) -> PasteboardName { PasteboardName("e\(id)")! }

    /// Until when recording was paused (nil: it was not).
    func pausedUntil() -> Date? { try? pausedUntil(fd) }

    /// Removes what the migration took: the index, its journal, the pause, and the packages of `ids`.
    func remove(_ ids: [Int]) {
        for id in ids { FileTree.removeTree(root + "/e\(id).pasteboard") }
        for name in [Self.indexName, Self.journalName, Self.pausedName] { unlinkat(fd, name, 0) }
        for name in (try? FileTree.entries(fd, path: root)) ?? [] where name.hasPrefix(Self.indexName + ".new-") { unlinkat(fd, name, 0) }
    }

    /// The entry packages on disk: id and folder name (`eID.pasteboard`, `0 < ID < 2^53`).
    func packageIDs(_ fd: Int32) throws -> [(Int, String)] {
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
    func reconciledIndex(_ fd: Int32) throws -> (index: Index, problems: [String], stale: Bool) {
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
    func readIndex(_ fd: Int32) -> Index? {
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

    /// Lines of the journal as last read.
    private var journalLines = 0

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
    func recoveredEntry(_ id: Int, _ fd: Int32) -> Entry? {
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
        var digest = ContentDigest()
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

    private func pausedUntil(_ fd: Int32) throws -> Date? {
        let package = FileStore.Package(fd: fd, path: root)
        guard let data = try? package.readStoredFile(Self.pausedName, size: nil, limit: 64) else { return nil }
        let text = String(decoding: data, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == " " }).first.map(String.init) ?? ""
        guard let seconds = Int64(text), seconds > 0, seconds < 1 << 40 else { return .distantFuture }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

}

// The history's records as JSON (``JSONValue``: no `JSONDecoder` on the way of a copy), with the keys
// and forms `Codable` gave them.
extension History.Entry.Kind {
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

extension History.Entry {
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

extension History {
    /// The old format's record readers on one value (the `json` fuzz target).
    package static func fuzzRecords(_ value: JSONValue) {
        _ = try? Entry(json: value)
        if let index = try? LegacyHistory.Index(json: value) { _ = index.entries.allSatisfy(LegacyHistory.isValid) }
    }
}

extension LegacyHistory.Index {
    var json: JSONValue {
        .record([("format", .integer(Int64(format))), ("nextID", .integer(Int64(nextID))), ("entries", .array(entries.map(\.json)))])
    }

    init(json: JSONValue) throws {
        self.init(
            format: try json.requiredInt("format"), nextID: try json.requiredInt("nextID"),
            entries: try json.requiredArray("entries").map(History.Entry.init(json:)))
    }
}

