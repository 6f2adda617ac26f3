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
import CSystem
import Pasteboard
import PasteboardStore
import Synchronization
import SystemIO

/// The clipboard history: every representation of each recorded item, newest first, bounded,
/// deduplicated, searchable, made to hold a lifetime of copies.
///
/// It lives in one SQLite database (``HistoryDatabase``: WAL, every commit synced) beside a folder of
/// large representations named by their SHA-256. Every operation touches what it needs through an
/// index: listing the newest entries, reading, deleting or pinning one, recording one with its bounds
/// and duplicate check, searching (FTS5 trigrams, then each candidate confirmed). Many processes
/// record at once (SQLite's write lock, waited for); a power cut loses at most the transaction it
/// interrupted. A history in the earlier format (one package per entry and a JSON index) is migrated
/// into it on first use.
public final class History: @unchecked Sendable {
    public struct Limits: Sendable, Equatable {
        /// Most entries kept (oldest dropped first; pinned entries are neither counted nor dropped).
        public var maxEntries = 1000
        /// Most bytes kept, all unpinned entries together.
        public var maxBytes = 512 << 20
        /// Largest representation recorded; a larger one is listed as skipped, with its size.
        public var maxRepresentationSize = 64 << 20
        /// Entries older than this many seconds are dropped (pinned ones stay); nil: no age limit.
        public var maxAge: Double? = nil
        public init() {}
    }

    /// What is never recorded besides sensitive and transient content (the configuration's
    /// `history.ignore-types` and `history.ignore-regex`).
    public struct Rules: Sendable {
        /// Why an item is not to be recorded, or nil to record it.
        public var ignore: (@Sendable (Item) -> String?)?
        public init(ignore: (@Sendable (Item) -> String?)? = nil) { self.ignore = ignore }
    }

    /// One entry as listings show it.
    public struct Entry: Codable, Sendable, Equatable {
        public struct Kind: Codable, Sendable, Equatable {
            public var type: TypeIdentifier
            /// Nil for a representation produced on paste (or, when skipped, produced from a skipped one).
            public var size: Int?
            public var derivedFrom: TypeIdentifier?
            /// Skipped because its owner went away before sending all of it (never kept half).
            public var cutShort: Bool

            public init(type: TypeIdentifier, size: Int?, derivedFrom: TypeIdentifier? = nil, cutShort: Bool = false) {
                self.type = type
                self.size = size
                self.derivedFrom = derivedFrom
                self.cutShort = cutShort
            }
        }
        public var id: Int
        /// When it was last copied (a repeated copy moves the entry up).
        public var time: Date
        public var application: String?
        public var selection: String
        public var types: [Kind]
        /// Representations not kept (over the size limit, or produced from one that was): type and size.
        public var skipped: [Kind]
        public var preview: String
        /// Identifies the content for deduplication.
        public var digest: String
        public var bytes: Int
        /// Kept whatever the bounds, the age limit and `clear` say (`history pin`).
        public var pinned = false

        /// Whether anything of the entry was kept: an entry whose every representation was over the
        /// limit is listed, but has nothing to paste.
        public var keepsContent: Bool { !types.isEmpty }
    }

    public enum Outcome: Equatable, Sendable {
        case recorded(Int)
        /// The same content was recorded before: that entry moved to the top.
        case moved(Int)
        case notRecorded(String)
    }

    /// Which entries a listing or search takes, newest first.
    public struct Query: Sendable, Equatable {
        /// At most this many.
        public var limit: Int?
        /// Only entries that keep a representation of one of these types.
        public var types: [TypeIdentifier]?
        /// Only entries from this application (`--source`).
        public var application: String?
        /// Only entries from this time on.
        public var since: Date?
        /// Only pinned entries.
        public var pinnedOnly = false
        /// Only entries that keep something to paste.
        public var keepsContent = false
        /// Only entries that keep a representation of a type conforming to one of these (`--type`): the
        /// history resolves them against the types it has recorded.
        public var conforming: TypeFilter?

        public init(
            limit: Int? = nil, types: [TypeIdentifier]? = nil, application: String? = nil, since: Date? = nil, pinnedOnly: Bool = false,
            keepsContent: Bool = false
        ) {
            self.limit = limit
            self.types = types
            self.application = application
            self.since = since
            self.pinnedOnly = pinnedOnly
            self.keepsContent = keepsContent
        }
    }

    /// Types wanted with everything that conforms to them under `registry` (a file list: any of its
    /// spellings).
    public struct TypeFilter: Sendable, Equatable {
        public var types: [TypeIdentifier]
        public var registry: TypeRegistry

        public init(_ types: [TypeIdentifier], registry: TypeRegistry) {
            self.types = types
            self.registry = registry
        }

        /// Whether a recorded `type` is wanted.
        public func takes(_ type: TypeIdentifier) -> Bool {
            types.contains { registry.conforms(type, to: $0) || ($0 == .fileURL && ForeignContent.isFileList(type)) }
        }

        public static func == (a: TypeFilter, b: TypeFilter) -> Bool { a.types == b.types }
    }

    /// `query` with its ``Query/conforming`` filter turned into the recorded types it takes.
    func resolved(_ query: Query, _ database: HistoryDatabase) throws -> Query {
        guard let filter = query.conforming else { return query }
        var query = query
        let taken = try recordedTypes(database).filter(filter.takes)
        query.types = query.types.map { types in taken.filter(types.contains) } ?? taken
        query.conforming = nil
        return query
    }

    public let root: String
    /// The bounds and rules, which a running daemon replaces when its configuration changes.
    private let settings: Mutex<(limits: Limits, rules: Rules)>
    public var limits: Limits {
        get { settings.withLock { $0.limits } }
        set { settings.withLock { $0.limits = newValue } }
    }
    public var rules: Rules {
        get { settings.withLock { $0.rules } }
        set { settings.withLock { $0.rules = newValue } }
    }
    let producer: RepresentationProducer?
    /// The one-line preview of an item (what `pbctl history` lists), for entries recorded without one.
    let describe: (Item) -> String
    /// The text an item is searched in (every text representation), nil when it has none.
    let searchable: (Item) -> String?
    /// The database once opened, and the lock its users take (one call at a time per process: a
    /// connection is not shared between threads).
    var database: HistoryDatabase?
    let lock = RecursiveMutex()
    /// What opening the database reported (an old history's entries that could not be migrated), until
    /// a listing shows it.
    private let openingProblems = Mutex<[String]>([])
    /// Files adopted by ``adopt(_:holding:name:)``: path, the bytes' address and count, and the name the
    /// file already has in a history (a repair's).
    let adopted = Mutex<[(path: String, base: UInt, count: Int, name: String?)]>([])

    /// The highest ID accepted.
    static let maximumID = 1 << 53
    /// The longest preview kept (a preview is one line of at most 80 characters).
    static let maximumPreview = 1024
    /// The longest application or selection name kept.
    static let maximumName = 1024

    /// The history at `root`; nothing is created before the first record.
    public init(
        root: String, limits: Limits = Limits(), rules: Rules = Rules(), producer: RepresentationProducer? = nil,
        describe: @escaping (Item) -> String = { _ in "" }, searchable: @escaping (Item) -> String? = History.plainText
    ) throws {
        self.root = root
        settings = Mutex((limits, rules))
        self.producer = producer
        self.describe = describe
        self.searchable = searchable
    }

    /// Where the history lives: `$PBCTL_HISTORY`, else `$XDG_STATE_HOME/pbctl/history`, else
    /// `~/.local/state/pbctl/history`.
    public static func defaultRoot(environment: [String: String]) -> String {
        defaultRoot { environment[$0] }
    }

    /// ``defaultRoot(environment:)`` with each variable read by `variable`.
    public static func defaultRoot(variable: (String) -> String?) -> String {
        if let explicit = variable("PBCTL_HISTORY"), !explicit.isEmpty { return explicit }
        if let state = variable("XDG_STATE_HOME"), state.hasPrefix("/") { return state + "/pbctl/history" }
        let home = variable("HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp/pbctl-\(getuid())"
        return home + "/.local/state/pbctl/history"
    }

    /// The name an entry is read by through ``backend`` (`eID`).
    public static func pasteboard(for id: Int) -> PasteboardName { PasteboardName("e\(id)")! }

    /// The backend an entry is read through (`history paste` negotiates as `paste` does): pasteboard
    /// ``pasteboard(for:)`` holds the entry as one item.
    public var backend: any PasteboardBackend { HistoryBackend(history: self) }

    /// The UTF-8 text of an item's plain-text and Markdown representations (what a history made without
    /// the converters searches).
    public static func plainText(_ item: Item) -> String? {
        let texts = item.representations.compactMap { representation -> String? in
            guard [TypeIdentifier.utf8PlainText, .plainText, .markdown].contains(representation.type),
                case .data(let data) = representation.content
            else { return nil }
            return String(decoding: data, as: UTF8.self)
        }
        var unique: [String] = []
        for text in texts where !unique.contains(text) { unique.append(text) }
        return unique.isEmpty ? nil : History.lines(unique)
    }

    /// `texts` joined by line feeds, as `joined(separator: "\n")` gives them: written out because the
    /// standard library's `joined` runs unspecialised here, looking up its generic requirements at run
    /// time (180,000 instructions on first use, 8% of a whole 12-byte copy).
    static func lines(_ texts: [String]) -> String {
        guard texts.count > 1 else { return texts.first ?? "" }
        var joined = texts[0]
        for text in texts.dropFirst() {
            joined += "\n"
            joined += text
        }
        return joined
    }

    // MARK: The database

    /// `body` with the database, opened (created when `create`) once and kept while its files are the
    /// history's. `absent`: what a history that does not exist answers (else it is an error).
    func withDatabase<T>(create: Bool, absent: T? = nil, _ body: (HistoryDatabase) throws -> T) throws -> T {
        try lock.locked { () -> T in
            if let open = database, !open.isCurrent { database = nil }
            if database == nil {
                if let (opened, problems) = try HistoryDatabase.open(
                    root: root, create: create, describe: describe, migrate: { legacy, database in try self.migrate(legacy, into: database) })
                {
                    database = opened
                    if !problems.isEmpty { openingProblems.withLock { $0 += problems } }
                    // Files a recorder killed between writing and committing left (and thumbnails of
                    // entries gone): swept under the write lock when the stamp says there may be some.
                    if opened.sweepDue { _ = try? opened.connection.transaction(write: true) { try opened.sweepUnnamedFiles() } }
                }
            }
            guard let database else {
                if let absent { return absent }
                throw PasteboardError(.io, "\(root): the history does not exist")
            }
            return try body(database)
        }
    }

    // MARK: Recording

    /// The next record takes `data`'s bytes from the file at `path` (a store's data file): a hard link
    /// when the history is on the same file system, so recording a large copy costs no second write
    /// (and its bytes are compared from the file, a window at a time, never brought into memory whole).
    /// `name`: the name the file has in the history it comes from (a repair keeps it, so entries that
    /// shared a file still do).
    public func adopt(_ path: String, holding data: Data, name: String? = nil) {
        guard data.count >= HistoryDatabase.inlineLimit, let base = data.withUnsafeBytes({ $0.baseAddress }) else { return }
        adopted.withLock { $0.append((path, UInt(bitPattern: base), data.count, name)) }
    }

    func adoptedFile(holding data: Data) -> (path: String, name: String?)? {
        guard let base = data.withUnsafeBytes({ $0.baseAddress }) else { return nil }
        return adopted.withLock { list in list.first { $0.base == UInt(bitPattern: base) && $0.count == data.count }.map { ($0.path, $0.name) } }
    }

    /// Why `item` is never recorded: what its markers say and how it was copied (``RecordingPolicy``, the
    /// one reading every way in shares), then the configuration's rules; nil when it may be.
    public func reasonNotToRecord(_ item: Item, options: CopyOptions? = nil) -> String? {
        if let why = RecordingPolicy.reasonNotToRecord(item, options: options) { return why }
        return rules.ignore?(item)
    }

    /// Records `item` unless it is sensitive or transient, a rule ignores it, or recording is paused.
    /// Representations over ``Limits/maxRepresentationSize`` are listed as skipped, with their size, and
    /// so are the ones produced from them; an item of which nothing can be kept is still listed, as
    /// skipped.
    /// - Parameter skipped: what the recorder itself left out (an owner's target over the limit, with
    ///   its size), listed with what this record skips.
    @discardableResult
    public func record(
        _ item: Item, preview: String, application: String?, selection: String = "clipboard", skipped alreadySkipped: [Entry.Kind] = [],
        now: Date = Date()
    ) throws -> Outcome {
        if let why = reasonNotToRecord(item) { return .notRecorded(why) }
        defer { adopted.withLock { $0.removeAll() } }
        do {
            let prepared = try prepare(item, skipped: alreadySkipped, preview: preview)
            guard !prepared.kept.representations.isEmpty || !prepared.skipped.isEmpty else { return .notRecorded("the item is empty") }
            return try withDatabase(create: true) { database -> Outcome in
                // Paused: nothing is hashed or staged (asked again inside the transaction).
                if let until = try pausedUntil(database), until > now { return .notRecorded("recording is paused") }
                // Large representations are written (and synced) before the write lock is taken; the
                // transaction only names them.
                var staged = try stageBlobs(prepared.kept, database)
                defer { staged.discard() }
                var unused = false
                let outcome = try database.connection.transaction(write: true) { () -> Outcome in
                    try database.collectUnusedBlobs()
                    if let until = try pausedUntil(database), until > now { return .notRecorded("recording is paused") }
                    // A file another recorder named since the staging may hold these bytes: found again under the lock.
                    try confirmNames(&staged, database)
                    if let id = try duplicate(of: prepared, staged: staged, database) {
                        try database.connection.run(
                            "UPDATE entry SET time = ?, application = coalesce(?, application) WHERE id = ?",
                            [.integer(Self.milliseconds(now)), .optional(application.map(Self.boundedName)), .int(id)])
                        return .moved(id)
                    }
                    let id = try insert(
                        prepared, staged: &staged, time: now, application: application, selection: selection, pinned: false, database)
                    try staged.syncFolder(database)
                    unused = try enforceBounds(now: now, sparing: id, database)
                    return .recorded(id)
                }
                staged.committed()
                if unused { try? database.connection.transaction(write: true) { try database.collectUnusedBlobs() } }
                return outcome
            }
        } catch let error as PasteboardError {
            // Said of the history alone: the clipboard copy it records went on (a full disk here is not
            // a lost copy there).
            throw PasteboardError(error.code, error.message.contains(root) ? error.message : "\(error.message) (the history at \(root.shownPath))")
        }
    }

    /// What of an item the history keeps, ready to insert: the representations within the size limit
    /// (a promised one only when what it is produced from is kept), what it skips, the content's digest,
    /// its searchable text, the preview and the metadata worth keeping.
    struct Prepared {
        var kept: Item
        var skipped: [Entry.Kind]
        var digest: String
        var text: String
        var preview: String
        var bytes: Int
    }

    func prepare(_ item: Item, skipped alreadySkipped: [Entry.Kind], preview: String) throws -> Prepared {
        var kept = Item(metadata: item.metadata)
        var skipped: [Entry.Kind] = []
        var digest = ContentDigest()
        // A type name the history's reader would refuse (TypeIdentifier.nameProblem: a remote's `x y`)
        // is never recorded: the representation is left out, the rest of the item kept.
        let alreadySkipped = alreadySkipped.filter { $0.type.isWellFormed && ($0.derivedFrom?.isWellFormed ?? true) }
        for kind in alreadySkipped { digest.add(kind.type, Data(), skipped: true, size: kind.size) }
        var keptTypes: [TypeIdentifier] = []
        var promised: [Representation] = []
        for representation in item.representations where representation.type.isWellFormed && (representation.derivedFrom?.isWellFormed ?? true) {
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
        skipped = alreadySkipped + skipped.sorted { (order.firstIndex(of: $0.type) ?? 0) < (order.firstIndex(of: $1.type) ?? 0) }
        let shown = Self.bounded(preview)
        var text = ordered.representations.isEmpty ? nil : searchable(ordered)
        if text?.isEmpty ?? true { text = shown }
        let bytes = ordered.representations.reduce(0) { $0 + ($1.knownSize ?? 0) }
        return Prepared(kept: ordered, skipped: skipped, digest: digest.value, text: text ?? shown, preview: shown, bytes: bytes)
    }

    /// The time as the database keeps it: milliseconds since 1970.
    static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite else { return 0 }
        return Int64(max(Double(HistoryDatabase.timeRange.lowerBound), min(Double(HistoryDatabase.timeRange.upperBound), value)))
    }

    static func date(milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    static func bounded(_ preview: String) -> String {
        preview.unicodeScalars.count <= maximumPreview ? preview : String(String.UnicodeScalarView(preview.unicodeScalars.prefix(maximumPreview)))
    }

    static func boundedName(_ name: String) -> String {
        name.utf8.count <= maximumName ? name : String(String.UnicodeScalarView(name.unicodeScalars.prefix(maximumName / 4)))
    }

    // MARK: Reading

    /// Every entry, newest first. Entries whose record is damaged are left out and named in `problems`.
    /// (Holds them all in memory: listings use ``forEachEntry(_:_:)``.)
    public func entries() throws -> (entries: [Entry], problems: [String]) {
        try entries(Query())
    }

    /// The entries `query` takes, newest first.
    public func entries(_ query: Query) throws -> (entries: [Entry], problems: [String]) {
        var found: [Entry] = []
        let problems = try forEachEntry(query) { found.append($0) }
        return (found, problems)
    }

    /// Calls `body` with each entry `query` takes, newest first, as it is read (memory does not grow
    /// with the history). Returns the problems: damaged records left out, an old history's entries that
    /// could not be migrated.
    @discardableResult
    public func forEachEntry(_ query: Query, _ body: (Entry) throws -> Void) throws -> [String] {
        try withDatabase(create: false, absent: [String]()) { database in
            var problems = openingProblems.withLock { problems in
                defer { problems = [] }
                return problems
            }
            try database.connection.transaction(write: false) {
                let (sql, values) = Self.listing(try resolved(query, database), expiredBefore: ageCutoff())
                let statement = try database.connection.statement(sql)
                try statement.bind(values)
                defer { statement.reset() }
                while try statement.step() {
                    switch try entry(statement, database) {
                    case .success(let entry): try body(entry)
                    case .failure(let problem): problems.append(problem.message)
                    }
                }
            }
            return problems
        }
    }

    /// The entry `id`, or `.empty` naming it (also when it is past `history.max-age`).
    public func entry(_ id: Int) throws -> Entry {
        let found = try withDatabase(create: false, absent: nil as Entry?) { database -> Entry? in
            try database.connection.transaction(write: false) { try entry(id: id, database) }
        }
        guard let found else { throw PasteboardError.empty("there is no history entry \(id)") }
        if isExpired(found) { throw PasteboardError.empty("history entry \(id) is past history.max-age") }
        return found
    }

    /// The time (milliseconds) before which unpinned entries are past `history.max-age`; nil without one.
    func ageCutoff(now: Date = Date()) -> Int64? {
        guard let age = limits.maxAge, age.isFinite, age > 0 else { return nil }
        return Self.milliseconds(now) - Int64(min(age, 1e12) * 1000)
    }

    /// When the oldest unpinned entry passes `history.max-age` (what a daemon waits for to remove it);
    /// nil without an age limit or such an entry.
    public func nextExpiry() throws -> Date? {
        guard let age = limits.maxAge, age.isFinite, age > 0 else { return nil }
        let oldest = try withDatabase(create: false, absent: nil as Int64?) { database in
            try database.connection.transaction(write: false) {
                try database.connection.integer("SELECT min(time) FROM entry WHERE pinned = 0")
            }
        }
        return oldest.map { Self.date(milliseconds: $0).addingTimeInterval(min(age, 1e9)) }
    }

    /// Applies the bounds and the age limit now (as a record does after it): the entries they drop and
    /// the files nothing names any more are removed. Returns whether anything was.
    @discardableResult
    public func expire(now: Date = Date()) throws -> Bool {
        try withDatabase(create: false, absent: false) { database in
            let removed = try database.connection.transaction(write: true) { try enforceBounds(now: now, sparing: nil, database) }
            if removed { try database.connection.transaction(write: true) { try database.collectUnusedBlobs() } }
            return removed
        }
    }

    func isExpired(_ entry: Entry, now: Date = Date()) -> Bool {
        guard !entry.pinned, let cutoff = ageCutoff(now: now) else { return false }
        return Self.milliseconds(entry.time) < cutoff
    }

    /// The entry `id`, which must keep something to paste: else `.empty` saying what was skipped.
    public func pasteableEntry(_ id: Int) throws -> Entry {
        let entry = try entry(id)
        guard entry.keepsContent else {
            let what = entry.skipped.first.map { kind in
                "\(kind.type)" + (kind.size.map { " (\(formatSize($0)))" } ?? "")
            } ?? "its content"
            if entry.skipped.first?.cutShort == true {
                throw PasteboardError.empty("history entry \(id) keeps nothing to paste: \(what) was not sent whole before its owner went away")
            }
            throw PasteboardError.empty(
                "history entry \(id) keeps nothing to paste: \(what) was over history.max-entry-size (\(formatSize(limits.maxRepresentationSize)))")
        }
        return entry
    }

    /// The whole item of entry `id`: recorded bytes, and derived records as promises.
    public func item(_ id: Int) throws -> Item {
        let found = try withDatabase(create: false, absent: nil as Item?) { database -> Item? in
            try database.connection.transaction(write: false) { () -> Item? in
                if let entry = try entry(id: id, database), isExpired(entry) {
                    throw PasteboardError.empty("history entry \(id) is past history.max-age")
                }
                return try item(id: id, database)
            }
        }
        guard let found else { throw PasteboardError.empty("there is no history entry \(id)") }
        return found
    }

    // MARK: Managing

    /// Removes entries; returns the ids that were not there.
    @discardableResult
    public func delete(_ ids: [Int]) throws -> [Int] {
        try withDatabase(create: false, absent: ids) { database in
            var missing: [Int] = []
            try database.connection.transaction(write: true) {
                for id in ids {
                    if try !deleteEntry(id, database) { missing.append(id) }
                }
            }
            try database.connection.transaction(write: true) { try database.collectUnusedBlobs() }
            database.removeThumbnails(of: Set(ids).subtracting(missing))
            return missing
        }
    }

    /// Removes every entry but the pinned ones (with `includingPinned`, those too). The numbering goes on.
    /// With `includingPinned`, a damaged history is removed whole (``damage()`` says why): returns that
    /// reason then, else nil.
    @discardableResult
    public func clear(includingPinned: Bool = false) throws -> String? {
        do {
            try clearEntries(includingPinned: includingPinned)
            return nil
        } catch let error as PasteboardError where error.code == .corrupt && includingPinned {
            guard let why = try damage() else { throw error }
            try lock.locked { try removeDamaged() }
            return why
        }
    }

    private func clearEntries(includingPinned: Bool) throws {
        try withDatabase(create: false, absent: ()) { database in
            let connection = database.connection
            try connection.transaction(write: true) {
                let condition = includingPinned ? "1" : "pinned = 0"
                let doomed = "SELECT id FROM entry WHERE \(condition)"
                try connection.execute(
                    """
                    UPDATE blob SET refs = refs - (SELECT count(*) FROM representation r WHERE r.blob = blob.hash AND r.entry IN (\(doomed)));
                    DELETE FROM representation WHERE entry IN (\(doomed));
                    DELETE FROM search_text WHERE id IN (\(doomed));
                    \(try database.longTexts(create: false) ? "DELETE FROM search_long WHERE id IN (\(doomed));" : "")
                    DELETE FROM entry WHERE \(condition);
                    UPDATE counters SET entries = 0, bytes = 0;
                    INSERT INTO search(search) VALUES('rebuild');
                    """)
            }
            // Every file no entry names goes too (a killed recorder's), and the thumbnails: with
            // --all, no copied byte stays on disk.
            try connection.transaction(write: true) {
                try database.collectUnusedBlobs()
                try database.sweepUnnamedFiles(allThumbnails: includingPinned)
            }
            try? connection.execute("PRAGMA incremental_vacuum; PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    /// Pins (or with `false` unpins) entries; returns the ids that were not there.
    @discardableResult
    public func pin(_ ids: [Int], _ pinned: Bool = true) throws -> [Int] {
        try withDatabase(create: false, absent: ids) { database in
            var missing: [Int] = []
            var unused = false
            try database.connection.transaction(write: true) {
                for id in ids {
                    guard let (wasPinned, bytes) = try pinState(id, database) else {
                        missing.append(id)
                        continue
                    }
                    guard wasPinned != pinned else { continue }
                    try database.connection.run("UPDATE entry SET pinned = ? WHERE id = ?", [.integer(pinned ? 1 : 0), .int(id)])
                    try database.connection.run(
                        "UPDATE counters SET entries = entries + ?, bytes = bytes + ?", [.integer(pinned ? -1 : 1), .int(pinned ? -bytes : bytes)])
                }
                // An unpinned entry counts again: the bounds apply (the newest entry stays).
                if !pinned { unused = try enforceBounds(now: Date(), sparing: nil, database) }
            }
            if unused { try database.connection.transaction(write: true) { try database.collectUnusedBlobs() } }
            return missing
        }
    }

    /// Stops recording until `until` (nil: until ``resume()``).
    public func pause(until: Date?) throws {
        try withDatabase(create: true) { database in
            try database.connection.run("UPDATE counters SET paused = ?", [.integer(until.map { max(1, Self.milliseconds($0)) } ?? -1)])
        }
    }

    public func resume() throws {
        try withDatabase(create: false, absent: ()) { database in try database.connection.run("UPDATE counters SET paused = 0") }
    }

    /// Until when recording is paused: nil when it is not; `.distantFuture` for a pause without end.
    public func pausedUntil(now: Date = Date()) throws -> Date? {
        try withDatabase(create: false, absent: nil as Date?) { database in
            guard let until = try pausedUntil(database), until > now else { return nil }
            return until
        }
    }

    func pausedUntil(_ database: HistoryDatabase) throws -> Date? {
        let value = try database.connection.integer("SELECT paused FROM counters") ?? 0
        if value == 0 { return nil }
        if value < 0 || !HistoryDatabase.timeRange.contains(value) { return .distantFuture }
        return Self.date(milliseconds: value)
    }

    /// How many entries there are and their bytes (pinned ones included), from the counters and the
    /// pinned entries.
    public func totals() throws -> (entries: Int, bytes: Int, pinned: Int) {
        try withDatabase(create: false, absent: (0, 0, 0)) { database in
            try database.connection.transaction(write: false) {
                let statement = try database.connection.statement("SELECT entries, bytes FROM counters")
                defer { statement.reset() }
                guard try statement.step() else { return (0, 0, 0) }
                let entries = Int(clamping: statement.integer(0)), bytes = Int(clamping: statement.integer(1))
                statement.reset()
                let pinned = Int(try database.connection.integer("SELECT count(*) FROM entry WHERE pinned = 1") ?? 0)
                return (entries + pinned, bytes, pinned)
            }
        }
    }
}

/// A mutual-exclusion lock (pthread), recursive: an operation may call another under it.
final class RecursiveMutex: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A cheap key for deduplication: each representation's type and size, and hashes of its first and
/// last 64 KiB (never a pass over megabytes). Equal keys are confirmed byte for byte before an entry
/// counts as the same content.
struct ContentDigest {
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

    /// The key the database indexes: 64 bits of `value` (its hash and its count of representations);
    /// a string of another form (a damaged old record) by its own hash.
    static func key(_ value: String) -> Int64 {
        let parts = value.split(separator: "-")
        if parts.count == 2, let hash = UInt64(parts[0], radix: 16), let count = UInt64(parts[1]) {
            return Int64(bitPattern: hash ^ (count &* 0x9E37_79B9_7F4A_7C15))
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in value.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int64(bitPattern: hash)
    }

    /// A key as an entry shows it: 16 hexadecimal digits.
    static func string(_ key: Int64) -> String {
        let digits = String(UInt64(bitPattern: key), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Independent of the order the representations came in.
    var value: String {
        var hash: UInt64 = 0x8422_2325_cbf2_9ce4
        for (_, part) in parts.sorted(by: { $0.0 < $1.0 }) { hash = (hash ^ part) &* 0x100_0000_01b3 }
        return String(hash, radix: 16) + "-" + String(parts.count)
    }
}

extension History {
    /// Every type ever recorded (what `--type` resolves the types conforming to a given one against).
    public func recordedTypes() throws -> [TypeIdentifier] {
        try withDatabase(create: false, absent: [TypeIdentifier]()) { try recordedTypes($0) }
    }

    func recordedTypes(_ database: HistoryDatabase) throws -> [TypeIdentifier] {
        var types: [TypeIdentifier] = []
        let statement = try database.connection.statement("SELECT name FROM type")
        defer { statement.reset() }
        while try statement.step() {
            if let name = statement.text(0), TypeIdentifier(name).isWellFormed { types.append(TypeIdentifier(name)) }
        }
        return types
    }
}
