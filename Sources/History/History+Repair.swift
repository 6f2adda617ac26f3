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

// The way out of a damaged history (`pbctl history repair`, and `clear --all` on a damaged one): the
// damaged database moved aside under a name said to the user, a fresh history started, and every entry
// that can still be read copied into it, row by row (a damaged page loses the entries on it, not the
// others).

extension History {
    /// What ``repair(now:)`` did.
    public struct Repair: Sendable, Equatable {
        /// Nil when the history was sound (only files nothing names were swept), else why it was not.
        public var damage: String?
        /// Where the damaged database was moved (its `-wal` beside it).
        public var movedTo: String?
        /// Entries copied into the fresh history, and those that could not be read.
        public var copied = 0, lost = 0
        /// Files nothing named, removed (a sound history).
        public var sweptFiles = 0
    }

    /// Why the database is damaged (SQLite's integrity check, or what opening it says), nil when it is
    /// sound or absent. Other failures (a lock held too long, a refused file) are thrown.
    public func damage() throws -> String? {
        try lock.locked { () -> String? in
            guard let fd = try PrivateDirectory.openStore(root, create: false) else { return nil }
            defer { close(fd) }
            var st = stat()
            guard fstatat(fd, HistoryDatabase.fileName, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
            let path = root + "/" + HistoryDatabase.fileName
            try HistoryDatabase.checkFile(st, path: path)
            do {
                let connection = try SQLiteConnection(path: path, create: false)
                let application = try connection.integer("PRAGMA application_id") ?? 0
                let version = try connection.integer("PRAGMA user_version") ?? 0
                if application == 0 && version == 0 {
                    // Empty (being made, or left so by a process that died making it): not damage.
                    if try connection.integer("SELECT count(*) FROM sqlite_master") == 0 { return nil }
                }
                if application != HistoryDatabase.applicationID { return "\(path): not a pbctl history (application id \(application))" }
                let statement = try connection.statement("PRAGMA quick_check(5)")
                defer { statement.reset() }
                var found: [String] = []
                while try statement.step() {
                    if let text = statement.text(0), text != "ok" {
                        found += text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("*** in database") }
                    }
                }
                guard !found.isEmpty else { return nil }
                let shown = found.prefix(3).joined(separator: "; ") + (found.count > 3 ? "; …" : "")
                return "\(path): the database is damaged (\(ForeignContent.shown(shown)))"
            } catch let error as PasteboardError where error.code == .corrupt {
                let message = error.message
                return message.hasSuffix(SQLiteConnection.repairHint) ? String(message.dropLast(SQLiteConnection.repairHint.count)) : message
            }
        }
    }

    /// Repairs a damaged history: its database (with its log) and its files are moved aside as
    /// `history.db.damaged-TIME` (and `….blobs`), a fresh history is made, and every entry that can be
    /// read is copied into it with its number, time, source, pin and every representation (files
    /// linked, not written again); the files moved aside are removed once copied. A sound history is
    /// left as it is (files nothing names swept).
    public func repair(now: Date = Date()) throws -> Repair {
        try lock.locked { () -> Repair in
            guard let why = try damage() else {
                var repair = Repair()
                repair.sweptFiles = try withDatabase(create: false, absent: 0) { database in
                    try database.connection.transaction(write: true) {
                        try database.collectUnusedBlobs()
                        let swept = try database.sweepUnnamedFiles()
                        return swept.blobs + swept.thumbnails
                    }
                }
                return repair
            }
            var repair = Repair(damage: why)
            let (name, blobsAside) = try moveAside(now: now)
            repair.movedTo = root + "/" + name
            database = nil
            // The fresh history, made now (the daemon may record into it meanwhile: numbers go on after
            // the old ones, and an old number taken already is given a new one).
            try withDatabase(create: true) { _ in }
            // Read from a copy whose header no longer vouches for the database's size: SQLite then takes
            // the file's (a truncated file is otherwise refused whole); the file moved aside stays as it was.
            let scratch = name + ".salvage"
            defer { for part in ["", "-wal", "-shm"] { unlinkAt(scratch + part) } }
            guard (try? salvageCopy(of: name, to: scratch)) != nil,
                let old = try? HistoryDatabase.openToSalvage(root: root, name: scratch, blobsFolder: blobsAside)
            else {
                removeFolder(blobsAside)
                return repair
            }
            let ids = readableIDs(old)
            let highest = ids.max() ?? 0
            let sequence = (try? old.connection.integer("SELECT seq FROM sqlite_sequence WHERE name = 'entry'")) ?? nil
            try withDatabase(create: true) { database in
                let next = max(Int64(highest), sequence ?? 0)
                if next > 0, next < Int64(Self.maximumID) {
                    try database.connection.transaction(write: true) {
                        let current = try database.connection.integer("SELECT seq FROM sqlite_sequence WHERE name = 'entry'") ?? 0
                        try database.connection.run("DELETE FROM sqlite_sequence WHERE name = 'entry'")
                        try database.connection.run("INSERT INTO sqlite_sequence(name, seq) VALUES('entry', ?)", [.integer(max(current, next))])
                    }
                }
                var index = 0
                // What an entry whose record is lost is dated: the entry before it, else the first record
                // that can be read (numbers grow with time).
                var previousTime = ids.lazy.compactMap { id in try? old.connection.transaction(write: false) { try self.entry(id: id, old)?.time } }
                    .first { $0 != nil } ?? nil
                while index < ids.count {
                    let batch = ids[index..<min(ids.count, index + 100)]
                    index += batch.count
                    var salvaged: [(Entry, Item)] = []
                    for id in batch {
                        if let read = salvage(id, old, previousTime: salvaged.last?.0.time ?? previousTime) {
                            salvaged.append(read)
                            previousTime = read.0.time
                        }
                    }
                    repair.copied += try copy(salvaged, from: old, into: database)
                }
            }
            repair.lost = ids.count - repair.copied
            removeFolder(blobsAside)
            try? withDatabase(create: false, absent: ()) { database in
                try database.connection.transaction(write: true) { _ = try database.sweepUnnamedFiles(allThumbnails: true) }
            }
            return repair
        }
    }

    /// Copies salvaged entries into `database` in one transaction; returns how many.
    private func copy(_ salvaged: [(Entry, Item)], from old: HistoryDatabase, into database: HistoryDatabase) throws -> Int {
        guard !salvaged.isEmpty else { return 0 }
        defer { adopted.withLock { $0.removeAll() } }
        var staged: [StagedBlobs] = []
        defer { for index in staged.indices { staged[index].discard() } }
        var prepared: [(Entry, Prepared)] = []
        for (entry, item) in salvaged {
            // Files of the damaged history are linked into the fresh one under their names, not written again.
            let names = fileNames(of: entry.id, old)
            for representation in item.representations {
                guard case .data(let data) = representation.content, data.count >= HistoryDatabase.inlineLimit,
                    let name = names[representation.type]
                else { continue }
                adopt(root + "/" + old.blobsFolder + "/" + name, holding: data, name: name)
            }
            var one = try prepare(item, skipped: [], preview: entry.preview)
            one.skipped = entry.skipped.filter { $0.type.isWellFormed && ($0.derivedFrom?.isWellFormed ?? true) }
            prepared.append((entry, one))
            staged.append(try stageBlobs(one.kept, database))
        }
        try database.connection.transaction(write: true) {
            for index in prepared.indices {
                let (entry, one) = prepared[index]
                let taken = try database.entryExists(entry.id)
                _ = try insert(
                    one, staged: &staged[index], time: entry.time, application: entry.application, selection: entry.selection,
                    pinned: entry.pinned, id: taken ? nil : entry.id, database)
            }
            for index in staged.indices { try staged[index].syncFolder(database) }
        }
        for index in staged.indices { staged[index].committed() }
        return prepared.count
    }

    /// The numbers of the entries a damaged database still names: in its entries, its representations
    /// and its search texts, each table read in order and from the other end when a damaged page stops
    /// the scan.
    private func readableIDs(_ old: HistoryDatabase) -> [Int] {
        var ids = Set<Int>()
        for (table, column) in [("entry", "id"), ("representation", "entry"), ("search_text", "id")] {
            for order in ["ASC", "DESC"] {
                guard let statement = try? old.connection.statement("SELECT \(column) FROM \(table) NOT INDEXED ORDER BY rowid \(order)")
                else { continue }
                while (try? statement.step()) == true {
                    let id = statement.integer(0)
                    if id > 0, id < Self.maximumID { ids.insert(Int(id)) }
                }
                statement.reset()
            }
        }
        return ids.sorted()
    }

    /// The names of the files of entry `id`'s representations in a damaged database, by type, as far as
    /// they can be read (a representation whose name cannot be is written again from its bytes).
    private func fileNames(of id: Int, _ old: HistoryDatabase) -> [TypeIdentifier: String] {
        (try? old.connection.transaction(write: false) { () -> [TypeIdentifier: String] in
            var names: [TypeIdentifier: String] = [:]
            let statement = try old.connection.statement("SELECT type, blob FROM representation WHERE entry = ? AND blob IS NOT NULL")
            try statement.bind([.int(id)])
            defer { statement.reset() }
            while try statement.step() {
                if let type = statement.text(0), let name = statement.text(1), HistoryDatabase.isBlobName(name) { names[TypeIdentifier(type)] = name }
            }
            return names
        }) ?? [:]
    }

    /// Entry `id` of a damaged database as far as it can be read: whole when its record and its
    /// representations can be; its representations alone (read without the index when the index is
    /// damaged) when its record cannot, with the time of the entry before it and a preview made anew.
    /// Nil when none of its content can be read.
    private func salvage(_ id: Int, _ old: HistoryDatabase, previousTime: Date?) -> (Entry, Item)? {
        let whole = try? old.connection.transaction(write: false) { () -> (Entry, Item)? in
            guard let entry = try self.entry(id: id, old), let item = try self.item(id: id, old) else { return nil }
            return (entry, item)
        }
        if let whole { return whole }
        let record = try? old.connection.transaction(write: false) { try self.entry(id: id, old) }
        var item = Item()
        var skipped: [Entry.Kind] = []
        for indexed in [true, false] {
            item = Item()
            skipped = []
            let read: Void? = try? old.connection.transaction(write: false) {
                let statement = try old.connection.statement(
                    "SELECT type, derived_from, size, skipped, blob, data FROM representation \(indexed ? "" : "NOT INDEXED ")WHERE entry = ? ORDER BY position")
                try statement.bind([.int(id)])
                defer { statement.reset() }
                while try statement.step() {
                    guard let name = statement.text(0), TypeIdentifier(name).isWellFormed else { continue }
                    let type = TypeIdentifier(name)
                    let source = statement.text(1).map { TypeIdentifier($0) }.flatMap { $0.isWellFormed ? $0 : nil }
                    let size = statement.optionalInteger(2)
                    if let size, !(0...Int64(FileStore.maximumStoredSize)).contains(size) { continue }
                    if statement.integer(3) != 0 {
                        skipped.append(Entry.Kind(type: type, size: size.map { Int($0) }, derivedFrom: source, cutShort: statement.integer(3) == 2))
                        continue
                    }
                    guard let size else { continue }  // produced on paste: made again from its source when there is one
                    if let hash = statement.text(4) {
                        guard let data = try? old.readBlob(hash, size: Int(size)) else { continue }
                        item.set(Representation(type: type, data: data, derivedFrom: source))
                    } else if let data = statement.blob(5), data.count == Int(size) {
                        item.set(Representation(type: type, data: data, derivedFrom: source))
                    }
                }
            }
            if read != nil, !item.representations.isEmpty || !skipped.isEmpty { break }
        }
        guard !item.representations.isEmpty else { return nil }
        if let record { return (record, item) }
        item.metadata.created = previousTime ?? Date()
        let entry = Entry(
            id: id, time: previousTime ?? Date(), application: nil, selection: "clipboard", types: [], skipped: skipped,
            preview: Self.bounded(describe(item)), digest: "", bytes: 0)
        return (entry, item)
    }

    /// Moves the damaged database, its log and its files aside (under the lock that makes a database):
    /// returns the database's new name and its files' folder.
    private func moveAside(now: Date) throws -> (String, String) {
        guard let fd = try PrivateDirectory.openStore(root, create: false) else { throw PasteboardError(.io, "\(root): the history does not exist") }
        defer { close(fd) }
        let lock = try HistoryDatabase.lockFile(fd, root: root)
        defer { close(lock) }
        var name = HistoryDatabase.fileName + ".damaged-" + Self.stamp(now)
        var st = stat(), suffix = 1
        while fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 || fstatat(fd, name + ".blobs", &st, AT_SYMLINK_NOFOLLOW) == 0 {
            suffix += 1
            name = HistoryDatabase.fileName + ".damaged-" + Self.stamp(now) + "-\(suffix)"
        }
        // The log first: a database without its log is an older state, never a mixed one.
        for part in ["-wal", "-shm"] {
            if renameat(fd, HistoryDatabase.fileName + part, fd, name + part) != 0, errno != ENOENT {
                throw POSIX.ioError("rename", root + "/" + HistoryDatabase.fileName + part)
            }
        }
        guard renameat(fd, HistoryDatabase.fileName, fd, name) == 0 else { throw POSIX.ioError("rename", root + "/" + HistoryDatabase.fileName) }
        unlinkat(fd, name + "-shm", 0)  // an index of the log, made again from it by whoever reads it
        let blobs = name + ".blobs"
        if renameat(fd, HistoryDatabase.blobsName, fd, blobs) != 0, errno != ENOENT {
            throw POSIX.ioError("rename", root + "/" + HistoryDatabase.blobsName)
        }
        guard fsync(fd) == 0 else { throw POSIX.ioError("fsync", root) }
        return (name, blobs)
    }

    /// Copies the database `name` (and its log) to `scratch`, the copy's size in its header marked as
    /// not valid (bytes 92–95, "version valid for", made to differ from the change counter).
    private func salvageCopy(of name: String, to scratch: String) throws {
        guard let fd = try PrivateDirectory.openStore(root, create: false) else { throw PasteboardError(.io, "\(root): the history does not exist") }
        defer { close(fd) }
        for part in ["", "-wal"] {
            let source = openat(fd, name + part, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard source >= 0 else {
                if part.isEmpty { throw FileStore.openError(root + "/" + name) }
                continue
            }
            defer { close(source) }
            let target = openat(fd, scratch + part, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard target >= 0 else { throw FileStore.openError(root + "/" + scratch + part) }
            defer { close(target) }
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            var first = true
            while true {
                let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count >= 0 else { throw POSIX.ioError("read", root + "/" + name + part) }
                if count == 0 { break }
                if first, part.isEmpty, count >= 100 {
                    buffer[92] = ~buffer[24]
                    buffer[93] = ~buffer[25]
                }
                first = false
                try buffer.withUnsafeBytes { try POSIX.writeAll(target, UnsafeRawBufferPointer(rebasing: $0.prefix(count)), path: root + "/" + scratch + part) }
            }
        }
    }

    private func unlinkAt(_ name: String) {
        guard let fd = try? PrivateDirectory.openStore(root, create: false) else { return }
        unlinkat(fd, name, 0)
        close(fd)
    }

    /// `20261207T195012Z`.
    static func stamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }

    /// Removes the folder `name` of the history's folder and the files in it.
    func removeFolder(_ name: String) {
        guard let fd = try? PrivateDirectory.openStore(root, create: false) else { return }
        defer { close(fd) }
        let folder = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else { return }
        for file in (try? FileTree.entries(folder, path: root + "/" + name)) ?? [] { unlinkat(folder, file, 0) }
        close(folder)
        unlinkat(fd, name, AT_REMOVEDIR)
    }

    /// `clear --all` of a damaged history: the database, its log, its files and thumbnails removed (it
    /// was to be emptied whole). The next record starts a fresh history.
    func removeDamaged() throws {
        guard let fd = try PrivateDirectory.openStore(root, create: false) else { return }
        defer { close(fd) }
        let lock = try HistoryDatabase.lockFile(fd, root: root)
        defer { close(lock) }
        database = nil
        for part in ["-wal", "-shm", ""] {
            if unlinkat(fd, HistoryDatabase.fileName + part, 0) != 0, errno != ENOENT {
                throw POSIX.ioError("remove", root + "/" + HistoryDatabase.fileName + part)
            }
        }
        removeFolder(HistoryDatabase.blobsName)
        removeFolder(HistoryDatabase.thumbnailsName)
        unlinkat(fd, HistoryDatabase.stampName, 0)
        _ = fsync(fd)
    }
}
