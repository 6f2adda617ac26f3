// SQLite, the history's database: the only Swift code that imports CSQLite (`scripts/check-source.sh`).
// SQLite reports every error by a return code (no longjmp), so calling it from Swift is safe; what it
// returns is turned into a ``PasteboardError`` that names the database file here, once.
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
import CSQLite
import Pasteboard
import PasteboardStore

/// One connection to an SQLite database file. Not shared between threads: its owner serialises the
/// calls (``History`` holds it under a lock).
final class SQLiteConnection {
    /// The file, for messages.
    let path: String
    private var handle: OpaquePointer?
    /// Statements prepared once per connection, by their SQL text.
    /// Room for every statement a record prepares from the start: growing the table rehashes each SQL
    /// text again (five times over for a 12-byte copy's statements).
    private var statements = [String: SQLiteStatement](minimumCapacity: 48)
    /// Milliseconds a call waits for another process's lock.
    private let busyTimeout: Int32

    /// Opens the database at `path` (never through a symbolic link), creating it when `create` is true.
    /// `busyTimeout`: how long a call waits for another process's write lock before failing.
    init(path: String, create: Bool, readOnly: Bool = false, busyTimeout: Int32 = 60_000) throws {
        self.path = path
        self.busyTimeout = busyTimeout
        var flags = SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_EXRESCODE
        flags |= readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create { flags |= SQLITE_OPEN_CREATE }
        var db: OpaquePointer?
        let status = sqlite3_open_v2(path, &db, flags, nil)
        handle = db
        guard status == SQLITE_OK, db != nil else {
            let error = Self.error(status, db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open", path: path, doing: "open")
            if let db { sqlite3_close_v2(db) }
            handle = nil
            throw error
        }
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeout)
        // Hardening: the schema's own SQL may not call functions with side effects; no writable schema;
        // no extension loading (off by default, kept off).
        let hardened = csqlite_harden(db)
        guard hardened == SQLITE_OK else {
            let error = Self.error(hardened, String(cString: sqlite3_errmsg(db)), path: path, doing: "configure")
            sqlite3_close_v2(db)
            handle = nil
            throw error
        }
    }

    deinit {
        statements.removeAll()
        if let handle { sqlite3_close_v2(handle) }
    }

    /// Runs SQL that returns no rows (one or more statements).
    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        let text = message.map { String(cString: $0) }
        sqlite3_free(message)
        if status != SQLITE_OK { throw Self.error(status, text ?? lastMessage, path: path, doing: "run") }
    }

    /// The statement for `sql`, prepared once and kept (reset and unbound when handed out again).
    func statement(_ sql: String) throws -> SQLiteStatement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        var raw: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard status == SQLITE_OK, let raw else { throw Self.error(status, lastMessage, path: path, doing: "prepare") }
        let statement = SQLiteStatement(raw, connection: self)
        statements[sql] = statement
        return statement
    }

    /// Runs `sql` with `values` bound in order; returns the number of rows changed.
    @discardableResult
    func run(_ sql: String, _ values: [SQLiteValue] = []) throws -> Int {
        let statement = try statement(sql)
        try statement.bind(values)
        while try statement.step() {}
        statement.reset()
        return Int(sqlite3_changes64(handle))
    }

    /// The first column of the first row of `sql`, as an integer (nil: no row or NULL).
    func integer(_ sql: String, _ values: [SQLiteValue] = []) throws -> Int64? {
        let statement = try statement(sql)
        try statement.bind(values)
        defer { statement.reset() }
        guard try statement.step(), !statement.isNull(0) else { return nil }
        return statement.integer(0)
    }

    /// The first column of the first row of `sql`, as text (nil: no row or NULL).
    func text(_ sql: String, _ values: [SQLiteValue] = []) throws -> String? {
        let statement = try statement(sql)
        try statement.bind(values)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return statement.text(0)
    }

    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Whether a transaction is open.
    var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// `body` in a transaction: `BEGIN IMMEDIATE` (the write lock taken at once, waiting for another
    /// writer as long as the busy timeout says) when `write`, else a deferred one (a consistent read).
    /// Committed when `body` returns, rolled back when it throws.
    /// Inside a transaction already, `body` runs in it (a read nested in a read).
    func transaction<T>(write: Bool, _ body: () throws -> T) throws -> T {
        if inTransaction { return try body() }
        try execute(write ? "BEGIN IMMEDIATE" : "BEGIN")
        do {
            let result = try body()
            try execute("COMMIT")
            if write { truncateLargeLog() }
            return result
        } catch {
            if inTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// The size of the write-ahead log past which a commit folds it back into the database and empties
    /// it. A connection closes without a checkpoint (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`, so a short command
    /// writes nothing more), so every new process is the log's first reader and reads all of it to rebuild
    /// its index: a log grown by one large transaction (an import batch, a full-text merge) would make each
    /// later command pay for it until the next writer restarts it (4 MB of log cost each command 2 to 3 ms).
    /// The automatic checkpoint (256 pages) does not shorten it: the log restarts only at a later write of
    /// the process that checkpointed, and a one-shot copy makes none, while the next process's rebuild
    /// forgets what was checkpointed. So the log is emptied here from 256 KiB on (about 16 small records):
    /// a 12-byte copy read up to 1 MiB of it (a third of its instructions), now at most a quarter of that.
    static let largeLog = 256 << 10

    /// After a commit: when the log file is over ``largeLog``, a checkpoint that copies it into the database
    /// and truncates it to nothing. It waits at most a quarter of a second for readers of older snapshots
    /// (the daemon's), and gives up without error if they stay: the automatic checkpoint goes on as before.
    private func truncateLargeLog() {
        guard let handle else { return }
        var info = stat()
        guard stat(path + "-wal", &info) == 0, Int(info.st_size) > Self.largeLog else { return }
        sqlite3_busy_timeout(handle, 250)
        _ = sqlite3_wal_checkpoint_v2(handle, "main", SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
        sqlite3_busy_timeout(handle, busyTimeout)
    }

    var lastMessage: String { handle.map { String(cString: sqlite3_errmsg($0)) } ?? "no connection" }

    /// What a damaged database's error says of the way out.
    static let repairHint = "; 'pbctl history repair' moves it aside and starts a fresh history with what can be read"

    /// SQLite's result code as a ``PasteboardError`` naming the database: a full disk and I/O errors
    /// are `.io`, a damaged file `.corrupt` (both exit 74).
    static func error(_ status: Int32, _ message: String, path: String, doing: String) -> PasteboardError {
        let primary = status & 0xFF
        switch primary {
        case SQLITE_FULL:
            return PasteboardError(.io, "\(path): no space left on device")
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            return PasteboardError(.corrupt, "\(path): the database is damaged (\(message))" + repairHint)
        case SQLITE_BUSY, SQLITE_LOCKED:
            return PasteboardError(.io, "\(path): locked by another process for too long (\(message))")
        case SQLITE_READONLY:
            return PasteboardError(.io, "\(path): read-only (\(message))")
        case SQLITE_CANTOPEN:
            if status == SQLITE_CANTOPEN | (6 << 8) {  // SQLITE_CANTOPEN_SYMLINK
                return PasteboardError(.refused, "\(path): refusing to follow a symbolic link")
            }
            return PasteboardError(.io, "\(path): cannot \(doing) (\(message))")
        default:
            return PasteboardError(.io, "\(path): cannot \(doing) (\(message), code \(status))")
        }
    }

    fileprivate func failure(_ status: Int32, doing: String) -> PasteboardError {
        Self.error(status, lastMessage, path: path, doing: doing)
    }
}

/// A value bound to a statement's parameter.
enum SQLiteValue {
    case null
    case integer(Int64)
    case text(String)
    case blob(Data)

    static func int(_ value: Int) -> SQLiteValue { .integer(Int64(value)) }
    static func optional(_ value: String?) -> SQLiteValue { value.map(SQLiteValue.text) ?? .null }
    static func optional(_ value: Int?) -> SQLiteValue { value.map { .integer(Int64($0)) } ?? .null }
}

/// A prepared statement of one connection.
final class SQLiteStatement {
    private let raw: OpaquePointer
    private unowned let connection: SQLiteConnection

    fileprivate init(_ raw: OpaquePointer, connection: SQLiteConnection) {
        self.raw = raw
        self.connection = connection
    }

    deinit { sqlite3_finalize(raw) }

    func reset() {
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
    }

    func bind(_ values: [SQLiteValue]) throws {
        for (offset, value) in values.enumerated() { try bind(value, at: Int32(offset + 1)) }
    }

    func bind(_ value: SQLiteValue, at index: Int32) throws {
        let status: Int32
        switch value {
        case .null: status = sqlite3_bind_null(raw, index)
        case .integer(let number): status = sqlite3_bind_int64(raw, index, number)
        case .text(let text):
            let count = text.utf8.count
            status = text.withCString { bytes in
                sqlite3_bind_text64(raw, index, bytes, UInt64(count), csqlite_transient(), UInt8(SQLITE_UTF8))
            }
        case .blob(let data):
            status = data.withUnsafeBytes { bytes in
                // A zero-length blob is still a blob, not NULL.
                bytes.count == 0
                    ? sqlite3_bind_zeroblob(raw, index, 0)
                    : sqlite3_bind_blob64(raw, index, bytes.baseAddress, UInt64(bytes.count), csqlite_transient())
            }
        }
        guard status == SQLITE_OK else { throw connection.failure(status, doing: "bind") }
    }

    /// The next row: true when there is one, false when the statement is done.
    func step() throws -> Bool {
        let status = sqlite3_step(raw)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.failure(status, doing: "read or write")
            sqlite3_reset(raw)
            throw error
        }
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(raw, column) == SQLITE_NULL }
    func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(raw, column) }
    func optionalInteger(_ column: Int32) -> Int64? { isNull(column) ? nil : integer(column) }

    func text(_ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(raw, column) else { return nil }
        let count = Int(sqlite3_column_bytes(raw, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// The column's bytes as they are stored (text or blob), nil for NULL.
    func blob(_ column: Int32) -> Data? {
        if isNull(column) { return nil }
        let count = Int(sqlite3_column_bytes(raw, column))
        guard count > 0, let bytes = sqlite3_column_blob(raw, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    /// `body` on the column's bytes in place (valid only during the call), nil for NULL.
    func withBytes<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T? {
        if isNull(column) { return nil }
        let base = sqlite3_column_blob(raw, column)
        let count = Int(sqlite3_column_bytes(raw, column))
        return try body(UnsafeRawBufferPointer(start: count > 0 ? base : nil, count: count))
    }

    /// The size of the column's value in bytes.
    func byteCount(_ column: Int32) -> Int { Int(sqlite3_column_bytes(raw, column)) }
}

/// What the linked SQLite offers that the history needs: FTS5 with the trigram tokenizer.
enum SQLiteLibrary {
    static var version: String { String(cString: sqlite3_libversion()) }
}
