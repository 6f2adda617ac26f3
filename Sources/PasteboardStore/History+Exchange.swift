#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// The history as JSON Lines (`pbctl history export` and `import`): one entry per line, oldest first,
///
///     {"time":"2026-01-02T03:04:05Z","source":"firefox","pinned":true,"representations":{"text/plain":"aGk="}}
///
/// `time` in RFC 3339 (written in UTC, to the millisecond when it has one), `source` and `pinned`
/// only when there is one, each representation's type (as `copy --type` takes it: a type identifier or
/// a MIME type) and its bytes in base64. A line's reader is ``parse(_:)``: every field checked, nothing
/// kept from a line that does not read (a fuzz target).
public enum HistoryExchange {
    /// One entry of the exchange format.
    public struct Record: Sendable, Equatable {
        public var time: Date
        public var source: String?
        public var pinned: Bool
        /// Type names as written, and bytes, in order.
        public var representations: [Representation]

        public struct Representation: Sendable, Equatable {
            public var type: String
            public var data: Data
            public init(type: String, data: Data) {
                self.type = type
                self.data = data
            }
        }

        public init(time: Date, source: String?, pinned: Bool, representations: [Representation]) {
            self.time = time
            self.source = source
            self.pinned = pinned
            self.representations = representations
        }
    }

    /// Why a line was refused (the caller adds `line N: `).
    public struct LineError: Error, Sendable, Equatable, CustomStringConvertible {
        public let message: String
        public init(_ message: String) { self.message = message }
        public var description: String { message }
    }

    /// The longest line read (a representation of 64 MiB is about 90 MB of base64).
    public static let maximumLineLength = 256 << 20

    /// Reads one line (without its line feed).
    /// - Throws: ``LineError`` saying what is wrong.
    public static func parse(_ line: UnsafeRawBufferPointer) throws -> Record {
        guard line.count <= maximumLineLength else { throw LineError("longer than \(maximumLineLength >> 20) MiB") }
        let json: JSONValue
        do {
            json = try JSONValue.parse(
                line.bindMemory(to: UInt8.self),
                limits: JSONLimits(maximumBytes: maximumLineLength, maximumDepth: 3, maximumMembers: ForeignContent.maximumRepresentations + 8))
        } catch let error as JSONError {
            throw LineError("not JSON: \(error)")
        }
        guard let members = json.members else { throw LineError("not a JSON object") }
        var time: Date?
        var source: String?
        var pinned = false
        var representations: [Record.Representation]?
        for (key, value) in members {
            switch key {
            case "time":
                guard let text = value.string else { throw LineError("\"time\" is not a string") }
                guard let milliseconds = parseTime(text) else {
                    throw LineError("\"time\" is not an RFC 3339 time such as 2026-01-02T03:04:05Z (\(ForeignContent.shown(text)))")
                }
                time = History.date(milliseconds: milliseconds)
            case "source":
                if value.isNull { continue }
                guard let text = value.string else { throw LineError("\"source\" is not a string") }
                do { try ForeignContent.checkText(text, "a source") } catch let error as PasteboardError { throw LineError(error.message) }
                source = text
            case "pinned":
                guard let flag = value.bool else { throw LineError("\"pinned\" is not true or false") }
                pinned = flag
            case "representations":
                guard let types = value.members else { throw LineError("\"representations\" is not an object") }
                var list: [Record.Representation] = []
                for (type, encoded) in types {
                    do { try ForeignContent.checkGivenType(type) } catch let error as PasteboardError { throw LineError(error.message) }
                    guard !list.contains(where: { $0.type == type }) else { throw LineError("type \(ForeignContent.shown(type)) twice") }
                    guard let text = encoded.string else { throw LineError("the bytes of \(ForeignContent.shown(type)) are not a string") }
                    guard let data = Data(base64Encoded: text) else {
                        throw LineError("the bytes of \(ForeignContent.shown(type)) are not base64")
                    }
                    list.append(.init(type: type, data: data))
                }
                representations = list
            default:
                continue  // another key: ignored (a later format's)
            }
        }
        guard let time else { throw LineError("no \"time\"") }
        guard let representations else { throw LineError("no \"representations\"") }
        guard !representations.isEmpty else { throw LineError("no representation") }
        return Record(time: time, source: source, pinned: pinned, representations: representations)
    }

    /// The line for `record` (with its line feed), types written as `typeName` says.
    public static func line(_ record: Record) -> [UInt8] {
        var members: [(String, JSONValue)] = [("time", .string(timeString(History.milliseconds(record.time))))]
        if let source = record.source { members.append(("source", .string(source))) }
        if record.pinned { members.append(("pinned", .bool(true))) }
        members.append(("representations", .object(record.representations.map { ($0.type, .string($0.data.base64EncodedString())) })))
        var out: [UInt8] = []
        JSONValue.object(members).write(into: &out)
        out.append(UInt8(ascii: "\n"))
        return out
    }

    /// RFC 3339 in UTC: seconds, and milliseconds when there are any.
    static func timeString(_ milliseconds: Int64) -> String {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let fraction = milliseconds - seconds * 1000
        let whole = ISO8601Seconds.string(Date(timeIntervalSince1970: Double(seconds)))
        guard fraction != 0 else { return whole }
        let digits = String(fraction)
        return String(whole.dropLast()) + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// An RFC 3339 time (`T` or a space, `Z` or an offset, any fraction, kept to the millisecond) in
    /// milliseconds since 1970; nil when it is not one or out of range (years 1 to 9999).
    static func parseTime(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 64 else { return nil }
        var whole = bytes
        var milliseconds: Int64 = 0
        // The fraction is read here (to the millisecond); the rest by the metadata's reader.
        if bytes[19] == UInt8(ascii: ".") {
            var end = 20
            var scale: Int64 = 100
            while end < bytes.count, bytes[end] >= 0x30, bytes[end] <= 0x39 {
                milliseconds += Int64(bytes[end] - 0x30) * scale
                scale /= 10
                end += 1
            }
            guard end > 20 else { return nil }
            whole = Array(bytes[0..<19]) + Array(bytes[end...])
        }
        if whole.count > 10, whole[10] == UInt8(ascii: " ") { whole[10] = UInt8(ascii: "T") }
        guard let date = ISO8601Seconds.date(String(decoding: whole, as: UTF8.self)) else { return nil }
        let seconds = date.timeIntervalSince1970.rounded()
        guard seconds.isFinite, abs(seconds) < 1e13 else { return nil }
        let result = Int64(seconds) * 1000 + milliseconds
        return HistoryDatabase.timeRange.contains(result) ? result : nil
    }
}

extension History {
    /// One entry to import: its item (each representation's type resolved), time, pin and preview.
    public struct ImportedEntry: Sendable {
        public var item: Item
        public var time: Date
        public var pinned: Bool
        public var preview: String
        public init(item: Item, time: Date, pinned: Bool, preview: String) {
            self.item = item
            self.time = time
            self.pinned = pinned
            self.preview = preview
        }
    }

    /// Imports `entries` in one transaction, each at its own time, the bounds applied after them (no
    /// pause or duplicate move as a copy has; what a copy may not record — sensitive or transient
    /// content, a marker among the representations, what the configuration's rules ignore — is refused
    /// as a copy's is, by ``reasonNotToRecord(_:options:)``). An entry whose content is already there is
    /// not added again (it is pinned when it says so).
    /// - Returns: how many were added, how many were there already, and how many are never recorded.
    public func importEntries(_ entries: [ImportedEntry]) throws -> (added: Int, present: Int, ignored: Int) {
        var prepared: [(Prepared, ImportedEntry)] = []
        var ignored = 0
        for entry in entries {
            if reasonNotToRecord(entry.item) != nil {
                ignored += 1
                continue
            }
            let one = try prepare(entry.item, skipped: [], preview: entry.preview)
            guard !one.kept.representations.isEmpty || !one.skipped.isEmpty else { continue }
            prepared.append((one, entry))
        }
        guard !prepared.isEmpty else { return (0, 0, ignored) }
        return try withDatabase(create: true) { database in
            // An import's batches: larger transactions, synced at checkpoints only (a power cut may lose
            // the last batches; imported again, they are added and the rest found already there), the
            // WAL checkpointed every 64 MiB instead of every MiB (pages rewritten batch after batch are
            // copied into the database once).
            try database.connection.execute("PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 16384; PRAGMA cache_size = -16384")
            defer { try? database.connection.execute("PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = 256; PRAGMA cache_size = -8192") }
            var staged: [StagedBlobs] = []
            defer { for index in staged.indices { staged[index].discard() } }
            for (one, _) in prepared { staged.append(try stageBlobs(one.kept, database)) }
            var added = 0, present = 0
            var unused = false
            try database.connection.transaction(write: true) {
                try database.collectUnusedBlobs()
                for (index, (one, entry)) in prepared.enumerated() {
                    if let id = try duplicate(of: one, staged: staged[index], database) {
                        present += 1
                        if entry.pinned, let (wasPinned, bytes) = try pinState(id, database), !wasPinned {
                            try database.connection.run("UPDATE entry SET pinned = 1 WHERE id = ?", [.int(id)])
                            try database.connection.run("UPDATE counters SET entries = entries - 1, bytes = bytes - ?", [.int(bytes)])
                        }
                        continue
                    }
                    _ = try insert(
                        one, staged: &staged[index], time: entry.time, application: entry.item.metadata.sourceApplication, selection: "clipboard",
                        pinned: entry.pinned, database)
                    added += 1
                }
                for index in staged.indices { try staged[index].syncFolder(database) }
                unused = try enforceBounds(now: Date(), sparing: nil, database)
            }
            for index in staged.indices { staged[index].committed() }
            if unused { try? database.connection.transaction(write: true) { try database.collectUnusedBlobs() } }
            return (added, present, ignored)
        }
    }

    /// Copies what the write-ahead log holds into the database and empties it (after an import: the next
    /// process to open the history then reads no long log first).
    public func checkpoint() throws {
        try withDatabase(create: false, absent: ()) { database in
            try database.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    /// Calls `body` with each entry from `since` on, oldest first, as the exchange format holds it: its
    /// kept bytes (what is produced on paste is not written; an entry that keeps nothing is left out).
    /// One consistent view of the history, read one entry at a time.
    public func export(since: Date? = nil, _ body: (_ record: HistoryExchange.Record, _ types: [TypeIdentifier]) throws -> Void) throws {
        try withDatabase(create: false, absent: ()) { database in
            try database.connection.transaction(write: false) {
                let (sql, values) = Self.listing(Query(since: since), columns: "id, time, application, pinned", order: "time, id", expiredBefore: ageCutoff())
                let walk = try database.connection.statement(sql)
                try walk.bind(values)
                defer { walk.reset() }
                while try walk.step() {
                    let id = Int(clamping: walk.integer(0))
                    let time = walk.integer(1)
                    guard HistoryDatabase.timeRange.contains(time), let item = try item(id: id, database) else { continue }
                    var representations: [HistoryExchange.Record.Representation] = []
                    var types: [TypeIdentifier] = []
                    for representation in item.representations {
                        guard case .data(let data) = representation.content else { continue }
                        representations.append(.init(type: representation.type.rawValue, data: data))
                        types.append(representation.type)
                    }
                    guard !representations.isEmpty else { continue }
                    try body(
                        HistoryExchange.Record(
                            time: Self.date(milliseconds: time), source: walk.text(2), pinned: walk.integer(3) != 0, representations: representations),
                        types)
                }
            }
        }
    }
}
