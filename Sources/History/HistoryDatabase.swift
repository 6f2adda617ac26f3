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

/// The history's files, open: the folder (0700, walked by ``PrivateDirectory``), the database
/// `history.db` (SQLite in WAL mode, synced on every commit) and the folder of large representations
/// `blobs/`, each file stored once however often its bytes are copied (found by size, then compared).
///
/// Schema (format 1, `PRAGMA user_version`; `application_id` says the file is pbctl's):
/// - `entry`: one row per entry: id (never given twice: `AUTOINCREMENT`), time (milliseconds since
///   1970), application, selection, preview, digest (the cheap key duplicates are looked up by, 64 bits),
///   bytes, pinned, whether its text is longer than the search index holds, the item's metadata.
///   Indexes: by (time, id) for every listing, the same for unpinned entries alone (what bounds and age
///   drop, oldest first), by digest, by application.
/// - `representation`: one row per representation: position, type, source type, size, whether it was
///   skipped (1: over the size limit, 2: its owner went away first), and its bytes inline (under
///   ``inlineLimit``) or the name of its file in `blobs/`; none for one produced on paste.
/// - `blob`: each file of `blobs/` with its size and how many representations name it. A file is
///   removed only inside a write transaction and only once its count was committed as 0, and a
///   writer that names a file checks it inside its own transaction: no entry ever names a removed file.
/// - `search_text` and `search`: each entry's text (every text representation, HTML and RTF as text;
///   the preview when it has none) up to ``indexedTextLimit``, and its FTS5 trigram index.
/// - `search_long`: the whole text of each entry whose text is longer than that (`long_text`), read by
///   searches instead of the entry's representations. Added within format 1, made with the history's
///   first long text (``longTexts(create:)``); a long entry without a row (recorded by an older pbctl)
///   is searched on its representations, as before.
/// - `counters`: the number and bytes of unpinned entries (what the bounds compare), and the pause.
/// - `type`: every type ever recorded (what `--type` resolves conforming types against).
final class HistoryDatabase {
    let root: String
    let fd: Int32
    let connection: SQLiteConnection
    /// The database file's identity when opened: a history removed or replaced since is opened again.
    let device: UInt64, inode: UInt64
    private var blobsFD: Int32 = -1
    /// Whether this connection's write transaction has marked `blobs/` (``prepareToName(_:)``).
    var namingFiles = false

    static let fileName = "history.db"
    static let blobsName = "blobs"
    static let lockName = "lock"
    static let format: Int64 = 1
    /// 'pbch': what `PRAGMA application_id` holds in a pbctl history.
    static let applicationID: Int64 = 0x7062_6368
    /// Representations from this size on are files in `blobs/`; smaller ones are inline.
    static let inlineLimit = 128 << 10
    /// The most text of one entry the search index holds; a longer text is searched in full by reading
    /// it (such entries are few, and listed by an index of their own).
    static let indexedTextLimit = 64 << 10
    /// Times accepted from the database: from year 1 to year 9999, in milliseconds.
    static let timeRange: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

    /// The database file's name in the folder (`history.db`, or a damaged one moved aside).
    let databaseName: String
    var path: String { root + "/" + databaseName }

    private init(root: String, fd: Int32, connection: SQLiteConnection, device: UInt64, inode: UInt64, databaseName: String = fileName) {
        self.root = root
        self.fd = fd
        self.connection = connection
        self.device = device
        self.inode = inode
        self.databaseName = databaseName
    }

    /// The database `name` in the history's folder (a damaged history moved aside), opened to read
    /// what can be read of it: representations' files are the history's `blobs/`, nothing is swept.
    static func openToSalvage(root: String, name: String, blobsFolder: String) throws -> HistoryDatabase {
        guard let fd = try PrivateDirectory.openStore(root, create: false) else { throw PasteboardError(.io, "\(root): the history does not exist") }
        var st = stat()
        guard fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
            let code = errno
            close(fd)
            throw POSIX.ioError("stat", root + "/" + name, code)
        }
        do {
            try checkFile(st, path: root + "/" + name)
            let connection = try SQLiteConnection(path: root + "/" + name, create: false)
            let database = HistoryDatabase(
                root: root, fd: fd, connection: connection, device: UInt64(st.st_dev), inode: UInt64(st.st_ino), databaseName: name)
            database.salvaging = true
            database.blobsFolder = blobsFolder
            return database
        } catch {
            close(fd)
            throw error
        }
    }

    /// Opened by ``openToSalvage(root:name:)``, or copying into while a repair runs: nothing is swept
    /// (the files a damaged history names are still to be copied).
    var salvaging = false
    /// The folder of its representations' files (`blobs`, or a damaged history's moved aside with it).
    var blobsFolder = blobsName

    deinit {
        if blobsFD >= 0 { close(blobsFD) }
        close(fd)
    }

    /// Whether the files this was opened on are still the history's: its folder still linked, the
    /// database the same file.
    var isCurrent: Bool {
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_nlink > 0 else { return false }
        guard fstatat(fd, Self.fileName, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return false }
        return UInt64(st.st_dev) == device && UInt64(st.st_ino) == inode
    }

    // MARK: Opening

    /// The history at `root`, opened; created (an old history migrated into it by `migrate`) when
    /// `create` is true or an old history is there. Nil when there is nothing and `create` is false: a
    /// reader creates nothing.
    static func open(
        root: String, create: Bool, describe: @escaping (Item) -> String,
        migrate: (LegacyHistory, HistoryDatabase) throws -> [String]
    ) throws -> (database: HistoryDatabase, problems: [String])? {
        guard let fd = try PrivateDirectory.openStore(root, create: create) else { return nil }
        var owned = true
        defer { if owned { close(fd) } }
        let path = root + "/" + fileName
        var st = stat()
        if fstatat(fd, fileName, &st, AT_SYMLINK_NOFOLLOW) == 0 {
            try checkFile(st, path: path)
            let database = HistoryDatabase(
                root: root, fd: fd, connection: try SQLiteConnection(path: path, create: false), device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
            owned = false
            if try database.schemaReady() {
                try database.configure()
                try database.finishMigration(describe)
                return (database, [])
            }
            // Being made by another process, or left empty by one that died making it: made below.
            return try database.make(describe: describe, migrate: migrate)
        }
        if !create, !LegacyHistory.isPresent(fd, path: root) { return nil }
        // Made (and an old history migrated) by one process at a time, under the lock the old format
        // took for every change: a pbctl of the old format waits meanwhile.
        let lock = try lockFile(fd, root: root)
        defer { close(lock) }
        if fstatat(fd, fileName, &st, AT_SYMLINK_NOFOLLOW) != 0 {
            // Made 0600 here (SQLite gives its -wal and -shm files the database's mode).
            let file = openat(fd, fileName, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard file >= 0 else { throw FileStore.openError(path) }
            close(file)
            guard fstatat(fd, fileName, &st, AT_SYMLINK_NOFOLLOW) == 0 else { throw POSIX.ioError("stat", path) }
        }
        try checkFile(st, path: path)
        let database = HistoryDatabase(
            root: root, fd: fd, connection: try SQLiteConnection(path: path, create: false), device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
        owned = false
        return try database.make(describe: describe, migrate: migrate, locked: true)
    }

    /// The exclusive `flock` on `lock` in the folder `fd`: the one process that makes the database.
    static func lockFile(_ fd: Int32, root: String) throws -> Int32 {
        let lock = openat(fd, lockName, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw FileStore.openError(root + "/" + lockName) }
        while flock(lock, LOCK_EX) != 0 {
            if errno != EINTR {
                let code = errno
                close(lock)
                throw POSIX.ioError("lock", root + "/" + lockName, code)
            }
        }
        return lock
    }

    /// Makes the schema in this (empty) database and migrates an old history into it, in one
    /// transaction: a process that dies midway leaves an empty database, made again by the next.
    private func make(
        describe: @escaping (Item) -> String, migrate: (LegacyHistory, HistoryDatabase) throws -> [String], locked: Bool = false
    ) throws -> (database: HistoryDatabase, problems: [String]) {
        let lock = locked ? -1 : try Self.lockFile(fd, root: root)
        defer { if lock >= 0 { close(lock) } }
        var problems: [String] = []
        if try !schemaReady() {
            try connection.execute("PRAGMA auto_vacuum = INCREMENTAL; PRAGMA journal_mode = WAL")
            try configure()
            try connection.transaction(write: true) {
                try createSchema()
                if LegacyHistory.isPresent(fd, path: root) {
                    let legacy = try LegacyHistory(root: root, fd: fd, describe: describe)
                    problems += try migrate(legacy, self)
                    try connection.run("UPDATE counters SET legacy = 1")
                }
            }
        } else {
            try configure()
        }
        try finishMigration(describe)
        return (self, problems)
    }

    /// The database file must be the user's own regular file.
    static func checkFile(_ st: stat, path: String) throws {
        guard st.st_mode & S_IFMT == S_IFREG else {
            throw PasteboardError(.refused, "\(path): not a regular file (\(POSIX.kind(of: st.st_mode))); refusing to use it")
        }
        guard st.st_uid == getuid() else { throw PasteboardError(.refused, "\(path): owned by another user; refusing to use it") }
    }

    private func schemaReady() throws -> Bool {
        let version = try connection.integer("PRAGMA user_version") ?? 0
        let application = try connection.integer("PRAGMA application_id") ?? 0
        if version == 0 && application == 0 { return false }
        guard application == Self.applicationID else {
            throw PasteboardError(
                .corrupt, "\(path): not a pbctl history (application id \(application)); move it away, or 'pbctl history repair' moves it aside")
        }
        guard version == Self.format else {
            throw PasteboardError(.refused, "\(path): written by a newer pbctl (format \(version)); this one reads format \(Self.format)")
        }
        return true
    }

    /// Per connection: every commit synced (a power cut loses at most the transaction it interrupted),
    /// a bounded page cache, deleted content overwritten.
    private func configure() throws {
        try connection.execute(
            """
            PRAGMA synchronous = FULL; PRAGMA cache_size = -8192; PRAGMA secure_delete = FAST;
            PRAGMA foreign_keys = OFF; PRAGMA journal_size_limit = 67108864; PRAGMA wal_autocheckpoint = 256;
            """)
    }

    private func createSchema() throws {
        try connection.execute(
            """
            CREATE TABLE entry(
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                time INTEGER NOT NULL,
                application TEXT,
                selection TEXT NOT NULL,
                preview TEXT NOT NULL,
                digest INTEGER NOT NULL,
                bytes INTEGER NOT NULL,
                pinned INTEGER NOT NULL DEFAULT 0,
                long_text INTEGER NOT NULL DEFAULT 0,
                metadata TEXT
            );
            CREATE INDEX entry_time ON entry(time, id);
            CREATE INDEX entry_unpinned ON entry(time, id) WHERE pinned = 0;
            CREATE INDEX entry_digest ON entry(digest);
            CREATE INDEX entry_application ON entry(application);
            CREATE INDEX entry_long_text ON entry(id) WHERE long_text = 1;
            CREATE TABLE representation(
                entry INTEGER NOT NULL,
                position INTEGER NOT NULL,
                type TEXT NOT NULL,
                derived_from TEXT,
                size INTEGER,
                skipped INTEGER NOT NULL DEFAULT 0,
                blob TEXT,
                data BLOB,
                PRIMARY KEY(entry, position)
            );
            CREATE INDEX representation_type ON representation(type, entry);
            CREATE TABLE blob(hash TEXT PRIMARY KEY, size INTEGER NOT NULL, refs INTEGER NOT NULL) WITHOUT ROWID;
            CREATE INDEX blob_unused ON blob(hash) WHERE refs <= 0;
            CREATE TABLE type(name TEXT PRIMARY KEY) WITHOUT ROWID;
            CREATE TABLE search_text(id INTEGER PRIMARY KEY, text TEXT NOT NULL, chars_a INTEGER, chars_b INTEGER);
            CREATE INDEX search_text_chars ON search_text(chars_a, chars_b);
            CREATE VIRTUAL TABLE search USING fts5(
                text, content = 'search_text', content_rowid = 'id', tokenize = 'trigram', detail = none, columnsize = 0);
            CREATE TABLE counters(
                only INTEGER PRIMARY KEY CHECK (only = 1),
                entries INTEGER NOT NULL, bytes INTEGER NOT NULL, paused INTEGER NOT NULL, legacy INTEGER NOT NULL
            );
            INSERT INTO counters VALUES(1, 0, 0, 0, 0);
            PRAGMA application_id = \(Self.applicationID);
            PRAGMA user_version = \(Self.format);
            """)
    }

    /// Removes what an old history left once its migration committed (also after a crash midway).
    private func finishMigration(_ describe: @escaping (Item) -> String) throws {
        guard try connection.integer("SELECT legacy FROM counters") == 1 else { return }
        let legacy = try LegacyHistory(root: root, fd: fd, describe: describe)
        let migrated = try Set(legacy.packageIDs(fd).map(\.0)).filter { try entryExists($0) }
        legacy.remove(Array(migrated))
        try connection.run("UPDATE counters SET legacy = 0")
    }

    /// Whether the table of long texts (`search_long`) is there: made when missing with `create`
    /// (inside a write transaction). Once seen, it stays (nothing drops it); until then it is asked
    /// again each time, as another process may make it (a delete must never miss a row there).
    func longTexts(create: Bool) throws -> Bool {
        if hasLongTexts { return true }
        if create {
            try connection.execute("CREATE TABLE IF NOT EXISTS search_long(id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
            hasLongTexts = true
        } else {
            hasLongTexts = try connection.integer("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'search_long'") != nil
        }
        return hasLongTexts
    }

    private var hasLongTexts = false

    /// Whether `search_text` keeps each text's character sets (``CharacterSets``): made when missing
    /// with `create` (inside a write transaction), every text already there given its sets then, once.
    /// A row written by an earlier pbctl has none (NULL), and a search takes it as a candidate.
    func characterSets(create: Bool) throws -> Bool {
        if hasCharacterSets { return true }
        hasCharacterSets = try connection.integer("SELECT 1 FROM pragma_table_info('search_text') WHERE name = 'chars_b'") != nil
        guard !hasCharacterSets, create else { return hasCharacterSets }
        try connection.execute("""
            ALTER TABLE search_text ADD COLUMN chars_a INTEGER;
            ALTER TABLE search_text ADD COLUMN chars_b INTEGER;
            CREATE INDEX search_text_chars ON search_text(chars_a, chars_b);
            """)
        var rows: [(Int64, CharacterSets.Sets)] = []
        let read = try connection.statement("SELECT id, text FROM search_text")
        while try read.step() {
            if let sets = read.withBytes(1, { CharacterSets.of($0) }) { rows.append((read.integer(0), sets)) }
        }
        read.reset()
        // A long text's sets are its whole text's: from `search_long`, else (an earlier pbctl kept none)
        // left unknown, so the entry stays a candidate.
        var long = Set<Int64>()
        let longIDs = try connection.statement("SELECT id FROM entry WHERE long_text = 1")
        while try longIDs.step() { long.insert(longIDs.integer(0)) }
        longIDs.reset()
        let longKept = try longTexts(create: false)
        for (id, var sets) in rows {
            if long.contains(id) {
                guard longKept, let text = try connection.text("SELECT text FROM search_long WHERE id = ?", [.integer(id)]) else { continue }
                sets = CharacterSets.of(text)
            }
            try connection.run("UPDATE search_text SET chars_a = ?, chars_b = ? WHERE id = ?", [.integer(sets.a), .integer(sets.b), .integer(id)])
        }
        hasCharacterSets = true
        return true
    }

    private var hasCharacterSets = false

    func entryExists(_ id: Int) throws -> Bool {
        try connection.integer("SELECT 1 FROM entry WHERE id = ?", [.int(id)]) != nil
    }

    // MARK: Blobs

    /// The folder of large representations, opened (and made) once.
    func blobs(create: Bool) throws -> Int32? {
        if blobsFD >= 0 { return blobsFD }
        let shown = root + "/" + blobsFolder
        if !create {
            let opened = openat(fd, blobsFolder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if opened < 0 {
                if errno == ENOENT { return nil }
                throw FileStore.openError(shown)
            }
            var st = stat()
            guard fstat(opened, &st) == 0, st.st_uid == getuid() else {
                close(opened)
                throw PasteboardError(.refused, "\(shown): owned by another user; refusing to use it")
            }
            blobsFD = opened
            return opened
        }
        blobsFD = try FileStore.openDirectory(blobsFolder, relativeTo: fd, create: true, displayPath: shown)
        return blobsFD
    }

    /// Whether `name` is a blob's name: 64 lowercase hexadecimal digits.
    static func isBlobName(_ name: String) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// The open file of blob `hash`, which must be a regular file of `size` bytes.
    func openBlob(_ hash: String, size: Int) throws -> (fd: Int32, size: Int, path: String) {
        let shown = root + "/" + blobsFolder + "/" + hash
        guard Self.isBlobName(hash) else { throw PasteboardError(.corrupt, "\(path): a bad file name '\(hash.prefix(80))' for a representation") }
        guard let folder = try blobs(create: false),
            let opened = try FileStore.Package(fd: folder, path: root + "/" + blobsFolder).openStoredFileIfPresent(hash, size: size)
        else {
            throw PasteboardError(.corrupt, "\(shown): missing")
        }
        return opened
    }

    /// The bytes of blob `hash` (mapped from 1 MiB on).
    func readBlob(_ hash: String, size: Int) throws -> Data {
        guard Self.isBlobName(hash) else { throw PasteboardError(.corrupt, "\(path): a bad file name '\(hash.prefix(80))' for a representation") }
        guard let folder = try blobs(create: false),
            let data = try FileStore.Package(fd: folder, path: root + "/" + blobsFolder).readStoredFile(hash, size: size)
        else {
            throw PasteboardError(.corrupt, "\(root)/\(blobsFolder)/\(hash): missing")
        }
        return data
    }

    /// Removes the files no representation names any more (their count committed as 0): inside a write
    /// transaction, so no writer can be naming one meanwhile.
    func collectUnusedBlobs() throws {
        var unused: [String] = []
        let statement = try connection.statement("SELECT hash FROM blob WHERE refs <= 0")
        while try statement.step() { if let hash = statement.text(0) { unused.append(hash) } }
        statement.reset()
        guard !unused.isEmpty else { return }
        let folder = try blobs(create: false)
        let clean = folder.map { blobsAreStamped($0) } ?? false
        for hash in unused {
            if let folder, Self.isBlobName(hash) { unlinkat(folder, hash, 0) }
            try connection.run("DELETE FROM blob WHERE hash = ?", [.text(hash)])
        }
        // Removing changes the folder's time: the stamp follows when nothing else was pending.
        if clean, let folder { stampBlobs(folder) }
    }

    // MARK: Files nothing names

    /// The stamp beside `blobs/` (`blobs.stamp`): its modification time is the folder's as of the last sweep or the last
    /// commit that named a file, or 0 while a transaction is naming one (``markBlobsChanging(_:)``).
    /// A folder whose time differs from it may hold a file a recorder linked and never committed (killed,
    /// or the power lost, between the two): the next open sweeps (``sweepDue``).
    static let stampName = "blobs.stamp"
    /// The folder of thumbnails (`ID-KEY.png`, made by `history pick`): a cache the history owns.
    static let thumbnailsName = "thumbnails"
    /// A sweep is also due this long after the last one, whatever the stamp says.
    static let sweepInterval: Double = 86400

    /// Whether `blobs/`'s stamp says the folder's present files were all named by committed records.
    func blobsAreStamped(_ folder: Int32) -> Bool {
        var folderStat = stat(), stampStat = stat()
        guard fstat(folder, &folderStat) == 0, fstatat(fd, Self.stampName, &stampStat, AT_SYMLINK_NOFOLLOW) == 0 else { return false }
        return folderStat.st_mtim.tv_sec == stampStat.st_mtim.tv_sec && folderStat.st_mtim.tv_nsec == stampStat.st_mtim.tv_nsec
    }

    /// Sets the stamp to the folder's time (made when missing): every file there is accounted for. Its
    /// access time says when the folder was last swept (`swept`).
    func stampBlobs(_ folder: Int32, swept: Bool = false) {
        var st = stat()
        if fstatat(fd, Self.stampName, &st, AT_SYMLINK_NOFOLLOW) != 0 {
            let made = openat(fd, Self.stampName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard made >= 0 else { return }
            close(made)
        }
        guard fstat(folder, &st) == 0 else { return }
        var times = [timespec(tv_sec: 0, tv_nsec: swept ? Self.nowTime : Self.omitTime), st.st_mtim]
        _ = utimensat(fd, Self.stampName, &times, AT_SYMLINK_NOFOLLOW)
    }

    /// The stamp's access time set to now (made when missing), without `blobs/`.
    func markSwept() {
        var st = stat()
        if fstatat(fd, Self.stampName, &st, AT_SYMLINK_NOFOLLOW) != 0 {
            let made = openat(fd, Self.stampName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard made >= 0 else { return }
            close(made)
        }
        var times = [timespec(tv_sec: 0, tv_nsec: Self.nowTime), timespec(tv_sec: 0, tv_nsec: Self.omitTime)]
        _ = utimensat(fd, Self.stampName, &times, AT_SYMLINK_NOFOLLOW)
    }

    /// Inside a write transaction, before a file is linked into `blobs/` (once per transaction): files
    /// a dead recorder left are swept first when the stamp says there may be some (this process may have
    /// opened the history before it died), then the stamp is marked: a process that dies before its
    /// commit leaves a folder the next open sweeps, whatever the clock's resolution. The commit sets
    /// it again (``blobsCommitted(_:)``).
    func prepareToName(_ folder: Int32) throws {
        guard !namingFiles else { return }
        if !blobsAreStamped(folder) { try sweepUnnamedFiles() }
        var times = [timespec(tv_sec: 0, tv_nsec: Self.omitTime), timespec(tv_sec: 0, tv_nsec: 0)]
        _ = utimensat(fd, Self.stampName, &times, AT_SYMLINK_NOFOLLOW)
        namingFiles = true
    }

    /// After the commit that named files of `blobs/`.
    func blobsCommitted(_ folder: Int32) {
        namingFiles = false
        stampBlobs(folder)
    }

    /// `UTIME_NOW` and `UTIME_OMIT` (macros Swift does not import).
    static let nowTime = (1 << 30) - 1, omitTime = (1 << 30) - 2

    /// Whether an open should sweep (``sweepUnnamedFiles(allThumbnails:)``): `blobs/` exists and its
    /// stamp is missing, marked, behind the folder, or a day old. One `fstat` or two when not.
    var sweepDue: Bool {
        guard !salvaging else { return false }
        var st = stat()
        if let folder = try? blobs(create: false) {
            guard blobsAreStamped(folder) else { return true }
        } else if fstatat(fd, Self.thumbnailsName, &st, AT_SYMLINK_NOFOLLOW) != 0 {
            return false  // no file at all
        }
        // Thumbnails of entries the bounds dropped, and what a race with the stamp hid: once a day.
        guard fstatat(fd, Self.stampName, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return true }
        return Double(time(nil)) - Double(st.st_atim.tv_sec) > Self.sweepInterval
    }

    /// Inside a write transaction (no recorder is between linking a file and committing meanwhile, as
    /// every file is named under this lock): removes every file of `blobs/` that no committed row
    /// names (a recorder killed between the two), and the thumbnails of entries that are gone (every
    /// thumbnail with `allThumbnails`). Returns how many files of each it removed.
    @discardableResult
    func sweepUnnamedFiles(allThumbnails: Bool = false) throws -> (blobs: Int, thumbnails: Int) {
        var removedBlobs = 0, removedThumbnails = 0
        guard !salvaging else { return (0, 0) }
        if let folder = try blobs(create: false) {
            let shown = root + "/" + Self.blobsName
            let lookup = try connection.statement("SELECT 1 FROM blob WHERE hash = ? AND refs > 0")
            for name in try FileTree.entries(folder, path: shown) {
                var named = false
                if Self.isBlobName(name) {
                    try lookup.bind([.text(name)])
                    named = try lookup.step()
                    lookup.reset()
                }
                guard !named else { continue }
                var st = stat()
                guard fstatat(folder, name, &st, AT_SYMLINK_NOFOLLOW) == 0, st.st_mode & S_IFMT != S_IFDIR else { continue }
                if unlinkat(folder, name, 0) == 0 { removedBlobs += 1 }
            }
            stampBlobs(folder, swept: true)
        } else {
            markSwept()
        }
        let thumbnails = openat(fd, Self.thumbnailsName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if thumbnails >= 0 {
            defer { close(thumbnails) }
            for name in try FileTree.entries(thumbnails, path: root + "/" + Self.thumbnailsName) {
                if !allThumbnails, let id = Self.thumbnailEntry(name), try entryExists(id) { continue }
                if unlinkat(thumbnails, name, 0) == 0 { removedThumbnails += 1 }
            }
        }
        return (removedBlobs, removedThumbnails)
    }

    /// The entry a thumbnail's name (`ID-KEY.png`) is of; nil for another name (a temporary).
    static func thumbnailEntry(_ name: String) -> Int? {
        guard name.hasSuffix(".png"), let dash = name.firstIndex(of: "-"), let id = Int(name[..<dash]), id > 0 else { return nil }
        return isBlobName(String(name[name.index(after: dash)...].dropLast(4))) ? id : nil
    }

    /// Removes the thumbnails of entries `ids` (after they were deleted).
    func removeThumbnails(of ids: Set<Int>) {
        guard !ids.isEmpty else { return }
        let thumbnails = openat(fd, Self.thumbnailsName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard thumbnails >= 0 else { return }
        defer { close(thumbnails) }
        for name in (try? FileTree.entries(thumbnails, path: root + "/" + Self.thumbnailsName)) ?? [] {
            if let id = Self.thumbnailEntry(name), ids.contains(id) { unlinkat(thumbnails, name, 0) }
        }
    }
}
