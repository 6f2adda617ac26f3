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
import SystemIO

/// The history's files, open: the folder (0700, walked by ``PrivateDirectory``), the database
/// `history.db` (SQLite in WAL mode, synced on every commit) and the folder of large representations
/// `blobs/`, each a file named by the SHA-256 of its bytes (stored once however often it is copied).
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
/// - `counters`: the number and bytes of unpinned entries (what the bounds compare), and the pause.
/// - `type`: every type ever recorded (what `--type` resolves conforming types against).
final class HistoryDatabase {
    let root: String
    let fd: Int32
    let connection: SQLiteConnection
    /// The database file's identity when opened: a history removed or replaced since is opened again.
    let device: UInt64, inode: UInt64
    private var blobsFD: Int32 = -1

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

    var path: String { root + "/" + Self.fileName }

    private init(root: String, fd: Int32, connection: SQLiteConnection, device: UInt64, inode: UInt64) {
        self.root = root
        self.fd = fd
        self.connection = connection
        self.device = device
        self.inode = inode
    }

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
    private static func lockFile(_ fd: Int32, root: String) throws -> Int32 {
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
    private static func checkFile(_ st: stat, path: String) throws {
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
            throw PasteboardError(.corrupt, "\(path): not a pbctl history (application id \(application)); move it away")
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
            CREATE TABLE search_text(id INTEGER PRIMARY KEY, text TEXT NOT NULL);
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

    func entryExists(_ id: Int) throws -> Bool {
        try connection.integer("SELECT 1 FROM entry WHERE id = ?", [.int(id)]) != nil
    }

    // MARK: Blobs

    /// The folder of large representations, opened (and made) once.
    func blobs(create: Bool) throws -> Int32? {
        if blobsFD >= 0 { return blobsFD }
        let shown = root + "/" + Self.blobsName
        if !create {
            let opened = openat(fd, Self.blobsName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
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
        blobsFD = try FileStore.openDirectory(Self.blobsName, relativeTo: fd, create: true, displayPath: shown)
        return blobsFD
    }

    /// Whether `name` is a blob's name: 64 lowercase hexadecimal digits.
    static func isBlobName(_ name: String) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// The open file of blob `hash`, which must be a regular file of `size` bytes.
    func openBlob(_ hash: String, size: Int) throws -> (fd: Int32, size: Int, path: String) {
        let shown = root + "/" + Self.blobsName + "/" + hash
        guard Self.isBlobName(hash) else { throw PasteboardError(.corrupt, "\(path): a bad file name '\(hash.prefix(80))' for a representation") }
        guard let folder = try blobs(create: false),
            let opened = try FileStore.Package(fd: folder, path: root + "/" + Self.blobsName).openStoredFileIfPresent(hash, size: size)
        else {
            throw PasteboardError(.corrupt, "\(shown): missing")
        }
        return opened
    }

    /// The bytes of blob `hash` (mapped from 1 MiB on).
    func readBlob(_ hash: String, size: Int) throws -> Data {
        guard Self.isBlobName(hash) else { throw PasteboardError(.corrupt, "\(path): a bad file name '\(hash.prefix(80))' for a representation") }
        guard let folder = try blobs(create: false),
            let data = try FileStore.Package(fd: folder, path: root + "/" + Self.blobsName).readStoredFile(hash, size: size)
        else {
            throw PasteboardError(.corrupt, "\(root)/\(Self.blobsName)/\(hash): missing")
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
        for hash in unused {
            if let folder, Self.isBlobName(hash) { unlinkat(folder, hash, 0) }
            try connection.run("DELETE FROM blob WHERE hash = ?", [.text(hash)])
        }
    }
}
