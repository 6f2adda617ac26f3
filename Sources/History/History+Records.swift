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
import SystemIO

// The history's rows: what a record inserts, what a listing reads back (every number range-checked),
// what a delete or a bound removes, and the migration of an old history.

extension History {
    // MARK: Large representations

    /// The large representations of one record: each file written and synced (unnamed, `O_TMPFILE`)
    /// before the transaction, or a store's file to link, named inside the transaction.
    struct StagedBlobs {
        enum Source {
            /// An unnamed file holding the bytes, synced.
            case unnamed(Int32)
            /// A store's data file holding them.
            case adopted(String)
            /// Already in `blobs/` when staged (checked again inside the transaction).
            case present
            /// To be written inside the transaction (no `O_TMPFILE` here).
            case none
        }
        struct Blob {
            /// The file's name in `blobs/` (``HistoryDatabase/isBlobName(_:)``).
            var hash: String
            var size: Int
            var base: UInt
            var source: Source
            /// The bytes (compared again inside the transaction while the name is a new one).
            var data: Data
            /// The adopted file holding them, read instead of `data` (mapped: not brought into memory).
            var path: String?
            /// A new name (no file of the history held these bytes when staged).
            var fresh: Bool
        }
        var blobs: [Blob] = []
        /// Files this transaction gave a name, removed again if it does not commit.
        var linked: [String] = []
        var folder: Int32 = -1
        var folderPath = ""
        /// The database whose transaction names the files (its stamp of `blobs/` set on commit).
        var database: HistoryDatabase?
        private var done = false

        func hash(of data: Data) -> String? {
            guard let base = data.withUnsafeBytes({ $0.baseAddress }) else { return nil }
            return blobs.first { $0.base == UInt(bitPattern: base) && $0.size == data.count }?.hash
        }

        mutating func committed() {
            done = true
            if !linked.isEmpty, folder >= 0 { database?.blobsCommitted(folder) }
        }

        /// Closes the unnamed files; removes what was linked when the transaction did not commit.
        mutating func discard() {
            database?.namingFiles = false  // the transaction is over, committed or not
            for blob in blobs { if case .unnamed(let fd) = blob.source { close(fd) } }
            blobs.removeAll()
            if !done, folder >= 0 { for name in linked { unlinkat(folder, name, 0) } }
            linked.removeAll()
        }

        /// Makes the new names durable before the commit that names them.
        func syncFolder(_ database: HistoryDatabase) throws {
            guard !linked.isEmpty, folder >= 0 else { return }
            guard fsync(folder) == 0 else { throw POSIX.ioError("fsync", folderPath) }
        }
    }

    /// Stages each representation of `item` from ``HistoryDatabase/inlineLimit`` on, named without
    /// hashing anything: the file of the history that holds the same bytes (``matchingBlob(_:path:_:)``:
    /// files of the same size, compared byte for byte), else a new unique name (``newBlobName()``), its
    /// bytes the adopted store file or an unnamed file written and synced here.
    func stageBlobs(_ item: Item, _ database: HistoryDatabase) throws -> StagedBlobs {
        var staged = StagedBlobs()
        for representation in item.representations {
            guard case .data(let data) = representation.content, data.count >= HistoryDatabase.inlineLimit,
                let base = data.withUnsafeBytes({ $0.baseAddress })
            else { continue }
            if staged.folder < 0 {
                staged.folder = try database.blobs(create: true) ?? -1
                staged.folderPath = root + "/" + HistoryDatabase.blobsName
                staged.database = database
            }
            let adopted = adoptedFile(holding: data)
            let address = UInt(bitPattern: base)
            // The same bytes twice in one item (or a file a repair carries over by its name): one file.
            let twin = staged.blobs.first { blob in
                if let name = adopted?.name { return blob.hash == name }
                return blob.size == data.count && Self.sameBytes(data, adopted?.path, blob.data, blob.path)
            }
            if let twin {
                staged.blobs.append(.init(hash: twin.hash, size: data.count, base: address, source: .present, data: data, path: adopted?.path, fresh: twin.fresh))
                continue
            }
            if let name = adopted?.name, HistoryDatabase.isBlobName(name) {
                staged.blobs.append(.init(hash: name, size: data.count, base: address, source: .adopted(adopted!.path), data: data, path: adopted?.path, fresh: false))
                continue
            }
            if let name = try matchingBlob(data, path: adopted?.path, database) {
                // Linked again from the store's file should it be removed before the transaction names it.
                let source = adopted.map { StagedBlobs.Source.adopted($0.path) } ?? .present
                staged.blobs.append(.init(hash: name, size: data.count, base: address, source: source, data: data, path: adopted?.path, fresh: false))
                continue
            }
            let name = Self.newBlobName()
            var source = StagedBlobs.Source.none
            if let path = adopted?.path, Self.onFileSystem(of: staged.folder, path) {
                source = .adopted(path)
            } else {
                // Written (and synced) here, before the write lock: a store's file on another file system
                // (the store on a tmpfs, the history on disk, the usual layout) copied in the kernel, a
                // buffer at a time where it cannot, never through its mapping (its pages would all come
                // into this process's memory); else the bytes.
                let fd = csystem_open_unnamed(staged.folder, 0o600)
                if fd >= 0 {
                    do {
                        let shown = staged.folderPath + "/" + name
                        let copied = try adopted.map { try Self.copyFile($0.path, count: data.count, to: fd, path: shown) } ?? false
                        if !copied { try POSIX.writeAll(fd, data, path: shown) }
                        guard fsync(fd) == 0 else { throw POSIX.ioError("fsync", shown) }
                        source = .unnamed(fd)
                    } catch {
                        close(fd)
                        staged.discard()
                        throw error
                    }
                } else if let path = adopted?.path {
                    source = .adopted(path)
                }
            }
            staged.blobs.append(.init(hash: name, size: data.count, base: address, source: source, data: data, path: adopted?.path, fresh: true))
        }
        return staged
    }

    /// Whether the file at `path` is on the file system of the open folder `folder` (a link can be made).
    static func onFileSystem(of folder: Int32, _ path: String) -> Bool {
        var here = stat()
        var there = stat()
        return fstat(folder, &here) == 0 && stat(path, &there) == 0 && here.st_dev == there.st_dev
    }

    /// Copies the regular file at `path`, `count` bytes, into the empty file `fd` (`copy_file_range`,
    /// else one buffer at a time); false, having written nothing, when it is not such a file.
    /// - Throws: what kept the copy from being written (a full disk).
    static func copyFile(_ path: String, count: Int, to fd: Int32, path shown: String) throws -> Bool {
        let input = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard input >= 0 else { return false }
        defer { close(input) }
        var st = stat()
        guard fstat(input, &st) == 0, st.st_mode & S_IFMT == S_IFREG, Int(st.st_size) == count else { return false }
        let copied = try POSIX.transfer(from: input, name: path, to: fd, path: shown, limit: count, inspect: false) { _ in }
        guard copied == count else {
            guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else { throw POSIX.ioError("truncate", shown) }
            return false
        }
        return true
    }

    /// Inside the write transaction, before anything is compared or named: each new name staged is
    /// checked again, as another recorder may have committed a file of the same bytes since the staging
    /// (two copies of one content at once); that file's name is taken instead. Nothing to read when no
    /// file of the same size is there, the usual case.
    func confirmNames(_ staged: inout StagedBlobs, _ database: HistoryDatabase) throws {
        for index in staged.blobs.indices where staged.blobs[index].fresh {
            let blob = staged.blobs[index]
            guard let name = try matchingBlob(blob.data, path: blob.path, database) else { continue }
            for other in staged.blobs.indices where staged.blobs[other].hash == blob.hash {
                staged.blobs[other].hash = name
                staged.blobs[other].fresh = false
            }
        }
    }

    /// The name of the history's file holding exactly `data`'s bytes (read from the file at `path`
    /// when there is one), if any: the files of that size, each compared byte for byte.
    func matchingBlob(_ data: Data, path: String?, _ database: HistoryDatabase) throws -> String? {
        var names: [String] = []
        let statement = try database.connection.statement("SELECT hash FROM blob WHERE size = ? AND refs > 0")
        try statement.bind([.int(data.count)])
        while try statement.step() { if let name = statement.text(0), HistoryDatabase.isBlobName(name) { names.append(name) } }
        statement.reset()
        guard !names.isEmpty else { return nil }
        for name in names {
            guard let opened = try? database.openBlob(name, size: data.count) else { continue }
            defer { close(opened.fd) }
            if Self.sameBytes(data, path, opened.fd) { return name }
        }
        return nil
    }

    /// Whether `data` (read from the file at `path` when there is one) holds the bytes of the open file `fd`.
    static func sameBytes(_ data: Data, _ path: String?, _ fd: Int32) -> Bool {
        withSide(data, path) { SameBytes.equal($0, .file(fd), count: data.count) }
    }

    static func sameBytes(_ data: Data, _ path: String?, _ other: Data, _ otherPath: String?) -> Bool {
        guard data.count == other.count else { return false }
        return withSide(data, path) { mine in withSide(other, otherPath) { SameBytes.equal(mine, $0, count: data.count) } }
    }

    /// `body` with a side to compare: the file at `path` when it opens as a regular file of `data`'s
    /// size (a store's file, mapped in `data`: read, its pages are not brought into this process), else
    /// `data`.
    private static func withSide<T>(_ data: Data, _ path: String?, _ body: (SameBytes.Side) -> T) -> T {
        if let path {
            let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            if fd >= 0 {
                defer { close(fd) }
                var st = stat()
                if fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, Int(st.st_size) == data.count { return body(.file(fd)) }
            }
        }
        return body(.memory(data))
    }

    /// A name for a new file of `blobs/`: 256 random bits as 64 lowercase hexadecimal digits, the form of
    /// the SHA-256 names earlier versions gave (which a pbctl of such a version, a daemon still running
    /// through an upgrade, reads and never sweeps as a stray file). A name is only a name: it is never
    /// taken for its file's hash.
    static func newBlobName() -> String {
        var generator = SystemRandomNumberGenerator()
        var name = ""
        for _ in 0..<4 {
            let digits = String(generator.next() as UInt64, radix: 16)
            name += String(repeating: "0", count: 16 - digits.count) + digits
        }
        return name
    }

    /// Inside a write transaction: one more representation names blob `hash`, whose file must be there
    /// whole (linked or written now when it is not).
    func referenceBlob(_ hash: String, _ data: Data, _ staged: inout StagedBlobs, _ database: HistoryDatabase) throws {
        let connection = database.connection
        try connection.run(
            "INSERT INTO blob(hash, size, refs) VALUES(?, ?, 1) ON CONFLICT(hash) DO UPDATE SET refs = max(refs, 0) + 1",
            [.text(hash), .int(data.count)])
        guard try connection.integer("SELECT size FROM blob WHERE hash = ?", [.text(hash)]) == Int64(data.count) else {
            throw PasteboardError(.corrupt, "\(database.path): blob \(hash) has another size than its bytes")
        }
        let folder = staged.folder
        let shown = staged.folderPath + "/" + hash
        var st = stat()
        if fstatat(folder, hash, &st, AT_SYMLINK_NOFOLLOW) == 0 {
            if st.st_mode & S_IFMT == S_IFREG, Int(st.st_size) == data.count { return }
            // Not what the name says (damaged, or planted): replaced.
            if st.st_mode & S_IFMT == S_IFDIR {
                throw PasteboardError(.corrupt, "\(shown): a folder where a representation's file should be")
            }
            unlinkat(folder, hash, 0)
        }
        try database.prepareToName(folder)
        let source = staged.blobs.first { $0.hash == hash }?.source ?? .none
        var done = false
        switch source {
        case .unnamed(let fd):
            done = csystem_link_unnamed(fd, folder, hash) == 0
        case .adopted(let path):
            if linkat(AT_FDCWD, path, folder, hash, 0) == 0 {
                // The store does not sync its data files; a history entry is synced before it is named.
                let linked = openat(folder, hash, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
                if linked >= 0, fstat(linked, &st) == 0, st.st_mode & S_IFMT == S_IFREG, Int(st.st_size) == data.count, fsync(linked) == 0 {
                    done = true
                } else {
                    unlinkat(folder, hash, 0)
                }
                if linked >= 0 { close(linked) }
            }
        case .present, .none:
            break
        }
        if !done {
            try FileStore.Package(fd: folder, path: staged.folderPath).createFile(hash, data, sync: true)
        }
        staged.linked.append(hash)
    }

    // MARK: Inserting

    /// Inserts one entry (the next id, or `id`); returns its id. Inside a write transaction.
    func insert(
        _ prepared: Prepared, staged: inout StagedBlobs, time: Date, application: String?, selection: String, pinned: Bool,
        id explicitID: Int? = nil, _ database: HistoryDatabase
    ) throws -> Int {
        let connection = database.connection
        let (text, long) = Self.indexedText(prepared.text)
        try connection.run(
            """
            INSERT INTO entry(id, time, application, selection, preview, digest, bytes, pinned, long_text, metadata)
            VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .optional(explicitID), .integer(Self.milliseconds(time)), .optional(application.map(Self.boundedName)),
                .text(Self.boundedName(selection)), .text(prepared.preview), .integer(ContentDigest.key(prepared.digest)), .int(prepared.bytes),
                .integer(pinned ? 1 : 0), .integer(long ? 1 : 0), .optional(Self.metadataRecord(prepared.kept.metadata)),
            ])
        let id = Int(connection.lastInsertRowID)
        guard id > 0, id < Self.maximumID else { throw PasteboardError(.corrupt, "\(database.path): entry numbers are exhausted") }
        var position = 0
        for representation in prepared.kept.representations {
            var values: [SQLiteValue] = [.int(id), .int(position), .text(representation.type.rawValue), .optional(representation.derivedFrom?.rawValue)]
            switch representation.content {
            case .promised:
                values += [.null, .null, .null]
            case .data(let data):
                if data.count >= HistoryDatabase.inlineLimit, let hash = staged.hash(of: data) {
                    try referenceBlob(hash, data, &staged, database)
                    values += [.int(data.count), .text(hash), .null]
                } else {
                    values += [.int(data.count), .null, .blob(data)]
                }
            }
            try connection.run(
                "INSERT INTO representation(entry, position, type, derived_from, size, blob, data) VALUES(?, ?, ?, ?, ?, ?, ?)", values)
            try connection.run("INSERT OR IGNORE INTO type(name) VALUES(?)", [.text(representation.type.rawValue)])
            position += 1
        }
        for kind in prepared.skipped {
            try connection.run(
                "INSERT INTO representation(entry, position, type, derived_from, size, skipped) VALUES(?, ?, ?, ?, ?, ?)",
                [.int(id), .int(position), .text(kind.type.rawValue), .optional(kind.derivedFrom?.rawValue), .optional(kind.size),
                 .integer(kind.cutShort ? 2 : 1)])
            position += 1
        }
        if try database.characterSets(create: true) {
            let sets = CharacterSets.of(prepared.text)
            try connection.run(
                "INSERT INTO search_text(id, text, chars_a, chars_b) VALUES(?, ?, ?, ?)", [.int(id), .text(text), .integer(sets.a), .integer(sets.b)])
        } else {
            try connection.run("INSERT INTO search_text(id, text) VALUES(?, ?)", [.int(id), .text(text)])
        }
        try connection.run("INSERT INTO search(rowid, text) VALUES(?, ?)", [.int(id), .text(text)])
        if long, try database.longTexts(create: true) {
            try connection.run("INSERT INTO search_long(id, text) VALUES(?, ?)", [.int(id), .text(prepared.text)])
        }
        if !pinned {
            try connection.run("UPDATE counters SET entries = entries + 1, bytes = bytes + ?", [.int(prepared.bytes)])
        }
        return id
    }

    /// What the index holds of a text: all of it up to ``HistoryDatabase/indexedTextLimit`` bytes (cut
    /// at a character), and whether it is longer (then searches read it whole).
    static func indexedText(_ text: String) -> (String, Bool) {
        guard text.utf8.count > HistoryDatabase.indexedTextLimit else { return (text, false) }
        var end = text.utf8.index(text.utf8.startIndex, offsetBy: HistoryDatabase.indexedTextLimit)
        while end > text.utf8.startIndex, !text.unicodeScalars.indices.contains(end) { end = text.utf8.index(before: end) }
        return (String(text[..<end]), true)
    }

    /// The metadata worth keeping beside the entry's own columns (a path, provenance, flags), as JSON;
    /// nil when there is none.
    static func metadataRecord(_ metadata: ItemMetadata) -> String? {
        guard metadata.sourcePath != nil || !metadata.extra.isEmpty || metadata.flags.rawValue != 0 else { return nil }
        return String(decoding: metadata.json.encoded(), as: UTF8.self)
    }

    /// The entry holding exactly what `prepared` keeps, if there is one (its digest first, then every
    /// representation compared: files by their name, which stands for one content, inline bytes byte for byte). An entry with
    /// skipped parts never counts (what was not kept cannot be compared).
    func duplicate(of prepared: Prepared, staged: StagedBlobs, _ database: HistoryDatabase) throws -> Int? {
        guard prepared.skipped.isEmpty else { return nil }
        var candidates: [Int] = []
        let statement = try database.connection.statement("SELECT id FROM entry WHERE digest = ?")
        try statement.bind([.integer(ContentDigest.key(prepared.digest))])
        while try statement.step() { candidates.append(Int(clamping: statement.integer(0))) }
        statement.reset()
        for id in candidates where try sameContent(prepared.kept, staged: staged, as: id, database) { return id }
        return nil
    }

    private func sameContent(_ item: Item, staged: StagedBlobs, as id: Int, _ database: HistoryDatabase) throws -> Bool {
        let statement = try database.connection.statement(
            "SELECT type, size, skipped, blob, data FROM representation WHERE entry = ? ORDER BY position")
        try statement.bind([.int(id)])
        defer { statement.reset() }
        var seen = 0
        while try statement.step() {
            guard statement.integer(2) == 0, let type = statement.text(0),
                let representation = item.representation(for: TypeIdentifier(type))
            else { return false }
            seen += 1
            switch representation.content {
            case .promised:
                guard statement.isNull(1) else { return false }
            case .data(let data):
                guard statement.optionalInteger(1) == Int64(data.count) else { return false }
                if let hash = statement.text(3) {
                    guard staged.hash(of: data) == hash else { return false }
                } else {
                    let equal = statement.withBytes(4) { stored in
                        data.withUnsafeBytes { mine in stored.count == mine.count && (mine.count == 0 || memcmp(stored.baseAddress!, mine.baseAddress!, mine.count) == 0) }
                    }
                    guard equal == true else { return false }
                }
            }
        }
        return seen == item.representations.count
    }

    // MARK: Removing

    /// Deletes entry `id` inside a write transaction; false when there is none. Its files' counts go
    /// down (removed by ``HistoryDatabase/collectUnusedBlobs()`` once that is committed).
    @discardableResult
    func deleteEntry(_ id: Int, _ database: HistoryDatabase) throws -> Bool {
        let connection = database.connection
        let state = try connection.statement("SELECT pinned, bytes FROM entry WHERE id = ?")
        try state.bind([.int(id)])
        guard try state.step() else {
            state.reset()
            return false
        }
        let pinned = state.integer(0) != 0, bytes = state.integer(1)
        state.reset()
        try connection.run(
            "UPDATE blob SET refs = refs - 1 WHERE hash IN (SELECT blob FROM representation WHERE entry = ? AND blob IS NOT NULL)", [.int(id)])
        try connection.run("DELETE FROM representation WHERE entry = ?", [.int(id)])
        if let text = try connection.text("SELECT text FROM search_text WHERE id = ?", [.int(id)]) {
            try connection.run("INSERT INTO search(search, rowid, text) VALUES('delete', ?, ?)", [.int(id), .text(text)])
            try connection.run("DELETE FROM search_text WHERE id = ?", [.int(id)])
        }
        if try database.longTexts(create: false) { try connection.run("DELETE FROM search_long WHERE id = ?", [.int(id)]) }
        try connection.run("DELETE FROM entry WHERE id = ?", [.int(id)])
        if !pinned {
            try connection.run("UPDATE counters SET entries = entries - 1, bytes = bytes - ?", [.integer(bytes)])
        }
        return true
    }

    /// Drops the oldest unpinned entries while the bounds are exceeded, and those past the age limit,
    /// never `sparing` (the entry just recorded). Returns whether a file may have become unused.
    func enforceBounds(now: Date, sparing: Int?, _ database: HistoryDatabase) throws -> Bool {
        let connection = database.connection
        var removed = false
        let spared = Int64(sparing ?? 0)
        if let age = limits.maxAge, age.isFinite, age > 0 {
            let cutoff = Self.milliseconds(now) - Int64(min(age, 1e12) * 1000)
            while true {
                var doomed: [Int] = []
                let statement = try connection.statement(
                    "SELECT id FROM entry WHERE pinned = 0 AND time < ? AND id != ? ORDER BY time, id LIMIT 256")
                try statement.bind([.integer(cutoff), .integer(spared)])
                while try statement.step() { doomed.append(Int(clamping: statement.integer(0))) }
                statement.reset()
                if doomed.isEmpty { break }
                for id in doomed { try deleteEntry(id, database) }
                removed = true
            }
        }
        while true {
            let counters = try connection.statement("SELECT entries, bytes FROM counters")
            guard try counters.step() else {
                counters.reset()
                break
            }
            let entries = counters.integer(0), bytes = counters.integer(1)
            counters.reset()
            guard entries > Int64(limits.maxEntries) || bytes > Int64(limits.maxBytes) else { break }
            guard let oldest = try connection.integer(
                "SELECT id FROM entry WHERE pinned = 0 AND id != ? ORDER BY time, id LIMIT 1", [.integer(spared)])
            else { break }
            try deleteEntry(Int(oldest), database)
            removed = true
        }
        return removed
    }

    /// Whether entry `id` is pinned and its bytes; nil when there is none.
    func pinState(_ id: Int, _ database: HistoryDatabase) throws -> (Bool, Int)? {
        let statement = try database.connection.statement("SELECT pinned, bytes FROM entry WHERE id = ?")
        try statement.bind([.int(id)])
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return (statement.integer(0) != 0, Int(clamping: statement.integer(1)))
    }

    // MARK: Reading

    static let entryColumns = "id, time, application, selection, preview, digest, bytes, pinned"

    /// The SQL of a listing and its values: `columns` of the entries `query` takes, in `order` (none:
    /// nil), with the condition `extra` besides (its values follow the query's).
    static func listing(
        _ query: Query, columns: String = entryColumns, order: String? = "time DESC, id DESC", extra: String? = nil, expiredBefore: Int64? = nil
    ) -> (String, [SQLiteValue]) {
        var conditions: [String] = []
        var values: [SQLiteValue] = []
        if let expiredBefore {
            // Past history.max-age: never listed, searched or pasted, whether or not a record has
            // removed it yet (pinned entries stay).
            conditions.append("(pinned = 1 OR time >= ?)")
            values.append(.integer(expiredBefore))
        }
        if let since = query.since {
            conditions.append("time >= ?")
            values.append(.integer(milliseconds(since)))
        }
        if let application = query.application {
            conditions.append("application = ?")
            values.append(.text(application))
        }
        if query.pinnedOnly { conditions.append("pinned = 1") }
        if query.keepsContent {
            conditions.append("EXISTS (SELECT 1 FROM representation r WHERE r.entry = entry.id AND r.skipped = 0)")
        }
        if let types = query.types {
            conditions.append(
                "EXISTS (SELECT 1 FROM representation r WHERE r.entry = entry.id AND r.skipped = 0 AND r.type IN ("
                    + types.map { _ in "?" }.joined(separator: ", ") + "))")
            values += types.map { .text($0.rawValue) }
        }
        if let extra { conditions.append(extra) }
        var sql = "SELECT \(columns) FROM entry"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        if let order { sql += " ORDER BY \(order)" }
        if let limit = query.limit {
            sql += " LIMIT ?"
            values.append(.int(limit))
        }
        return (sql, values)
    }

    /// The entry `id`, nil when there is none. A damaged record throws `.corrupt`.
    func entry(id: Int, _ database: HistoryDatabase) throws -> Entry? {
        let statement = try database.connection.statement("SELECT \(Self.entryColumns) FROM entry WHERE id = ?")
        try statement.bind([.int(id)])
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return try entry(statement, database).get()
    }

    /// The entry on `statement`'s row (``entryColumns``) with its kinds, every number and name
    /// range-checked; a failure names the entry.
    func entry(_ statement: SQLiteStatement, _ database: HistoryDatabase) throws -> Result<Entry, PasteboardError> {
        let id = statement.integer(0)
        func damaged(_ what: String) -> Result<Entry, PasteboardError> {
            .failure(PasteboardError(.corrupt, "\(database.path): entry \(id): \(what); skipped"))
        }
        guard id > 0, id < Self.maximumID else { return damaged("its number is out of range") }
        let time = statement.integer(1)
        guard HistoryDatabase.timeRange.contains(time) else { return damaged("its time is out of range") }
        let application = statement.text(2)
        guard (application?.utf8.count ?? 0) <= Self.maximumName else { return damaged("its application name is too long") }
        guard let selection = statement.text(3), selection.utf8.count <= Self.maximumName else { return damaged("a bad selection") }
        guard let preview = statement.text(4), preview.utf8.count <= Self.maximumPreview * 4 else { return damaged("a bad preview") }
        let digest = ContentDigest.string(statement.integer(5))
        let bytes = statement.integer(6)
        guard (0...Int64(FileStore.maximumStoredSize)).contains(bytes) else { return damaged("its size is out of range") }
        var entry = Entry(
            id: Int(id), time: Self.date(milliseconds: time), application: application, selection: selection, types: [], skipped: [],
            preview: preview, digest: digest, bytes: Int(bytes), pinned: statement.integer(7) != 0)
        let kinds = try database.connection.statement(
            "SELECT type, derived_from, size, skipped FROM representation WHERE entry = ? ORDER BY position")
        try kinds.bind([.integer(id)])
        defer { kinds.reset() }
        var count = 0, badNames = 0
        while try kinds.step() {
            count += 1
            guard count <= 10_000 else { return damaged("more than 10000 representations") }
            guard let name = kinds.text(0) else { return damaged("a representation without a type") }
            let type = TypeIdentifier(name)
            let source = kinds.text(1).map { TypeIdentifier($0) }
            let size = kinds.optionalInteger(2)
            let skipped = kinds.integer(3)
            // A name the rule refuses (recorded by an older pbctl, or damage) loses that representation
            // alone: the entry's other representations are still listed and pasted.
            guard type.isWellFormed, source?.isWellFormed ?? true else {
                badNames += 1
                continue
            }
            guard size.map({ (0...Int64(FileStore.maximumStoredSize)).contains($0) }) ?? true, (0...2).contains(skipped) else {
                return damaged("a representation's size is out of range")
            }
            let kind = Entry.Kind(type: type, size: size.map { Int($0) }, derivedFrom: source, cutShort: skipped == 2)
            if skipped == 0 { entry.types.append(kind) } else { entry.skipped.append(kind) }
        }
        if badNames > 0, entry.types.isEmpty, entry.skipped.isEmpty { return damaged("no representation with a good type name") }
        return .success(entry)
    }

    /// The item of entry `id` (nil when there is none): recorded bytes, and the representations
    /// produced on paste as promises made from their source.
    func item(id: Int, _ database: HistoryDatabase) throws -> Item? {
        let connection = database.connection
        let row = try connection.statement("SELECT time, application, metadata FROM entry WHERE id = ?")
        try row.bind([.int(id)])
        guard try row.step() else {
            row.reset()
            return nil
        }
        let time = row.integer(0)
        var metadata = ItemMetadata(sourceApplication: row.text(1), created: Self.date(milliseconds: HistoryDatabase.timeRange.contains(time) ? time : 0))
        if let record = row.text(2), record.utf8.count <= 1 << 20,
            let json = try? JSONValue.parse(Data(record.utf8), limits: JSONLimits(maximumBytes: 1 << 20, maximumDepth: 4, maximumMembers: 4096)),
            let stored = try? ItemMetadata(json: json)
        {
            metadata.sourcePath = stored.sourcePath
            metadata.extra = stored.extra
            metadata.flags = stored.flags
        }
        row.reset()
        var item = Item(metadata: metadata)
        var promised: [(TypeIdentifier, TypeIdentifier)] = []
        let statement = try connection.statement(
            "SELECT type, derived_from, size, skipped, blob, data FROM representation WHERE entry = ? ORDER BY position")
        try statement.bind([.int(id)])
        defer { statement.reset() }
        while try statement.step() {
            guard statement.integer(3) == 0, let name = statement.text(0) else { continue }
            let type = TypeIdentifier(name)
            let source = statement.text(1).map { TypeIdentifier($0) }
            guard type.isWellFormed, source?.isWellFormed ?? true else { continue }  // left out, as listings leave it
            guard let size = statement.optionalInteger(2) else {
                if let source { promised.append((type, source)) }
                continue
            }
            guard (0...Int64(FileStore.maximumStoredSize)).contains(size) else {
                throw PasteboardError(.corrupt, "\(database.path): entry \(id): a size out of range")
            }
            let data: Data
            if let hash = statement.text(4) {
                data = try database.readBlob(hash, size: Int(size))
            } else {
                guard let inline = statement.blob(5), inline.count == Int(size) else {
                    throw PasteboardError(.corrupt, "\(database.path): entry \(id): \(type) holds another size than recorded")
                }
                data = inline
            }
            item.set(Representation(type: type, data: data, derivedFrom: source))
        }
        for (type, source) in promised {
            guard let original = item.representation(for: source), case .data(let bytes) = original.content else { continue }
            let producer = self.producer
            item.set(Representation(type: type, derivedFrom: source) {
                guard let producer else { throw PasteboardError(.typeNotOffered, "\(type) is produced on paste, and nothing here produces it") }
                return try producer(source, bytes, type)
            })
        }
        return item
    }

    // MARK: Migration

    /// Moves an old history's entries into `database` (inside its first transaction), keeping their
    /// numbers, times, previews and order; returns what could not be read.
    func migrate(_ legacy: LegacyHistory, into database: HistoryDatabase) throws -> [String] {
        let (entries, nextID, problems) = try legacy.entries()
        var failures = problems
        var highest = 0
        // The old index's order, kept: its times are whole seconds, so entries of the same second are
        // spread a millisecond apart, oldest first.
        var previous = Int64.min
        for var entry in entries {
            let time = max(Self.milliseconds(entry.time), previous == .min ? .min : previous + 1)
            previous = time
            entry.time = Self.date(milliseconds: time)
            let item: Item
            do {
                item = try legacy.item(entry.id)
            } catch {
                failures.append("\(root)/e\(entry.id).pasteboard: cannot be migrated (\((error as? PasteboardError)?.message ?? "\(error)")); left in place")
                continue
            }
            var prepared = try prepare(item, skipped: [], preview: entry.preview)
            // What the old record says was skipped and its digest stay as they were.
            prepared.skipped = entry.skipped
            prepared.digest = entry.digest
            var staged = try stageBlobs(prepared.kept, database)
            defer { staged.discard() }
            _ = try insert(
                prepared, staged: &staged, time: entry.time, application: entry.application, selection: entry.selection, pinned: false,
                id: entry.id, database)
            try staged.syncFolder(database)
            staged.committed()
            highest = max(highest, entry.id)
        }
        let next = max(nextID - 1, highest)
        if next > 0 {
            try database.connection.run("DELETE FROM sqlite_sequence WHERE name = 'entry'")
            try database.connection.run("INSERT INTO sqlite_sequence(name, seq) VALUES('entry', ?)", [.int(next)])
        }
        if let until = legacy.pausedUntil() {
            try database.connection.run("UPDATE counters SET paused = ?", [.integer(until == .distantFuture ? -1 : Self.milliseconds(until))])
        }
        return failures
    }
}
