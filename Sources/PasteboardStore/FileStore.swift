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
import Synchronization
import SystemIO

/// The file-backed store: the backend that always serves, with or without a display.
///
/// Layout: one document package per pasteboard, `ROOT/NAME.pasteboard/`, holding `Info.json` (the
/// change count and the items' records) and one file per stored representation, named after the
/// change count that wrote it (`c12-0-1.data`: change 12, item 0, representation 1). A `lock` file
/// serialises writers (exclusive `flock`) against readers (shared `flock`).
///
/// Invariants:
/// - The root is a real directory owned by the user with mode 0700; files are 0600. Every path below
///   the root is opened relative to a directory descriptor with `O_NOFOLLOW`, so a symlink planted by
///   someone else is refused, never followed.
/// - A write creates the new data files, then writes and syncs a new `Info.json` and atomically renames
///   it into place, then deletes the old files. A killed process at any point leaves the previous item
///   readable. The one sync is the metadata's: data files are not synced one by one (a journal commit
///   each); `Info.json` records the boot it was written in, and after a power cut a record from an
///   earlier boot whose file is short or missing reads as a lost copy, never as damage.
/// - `Info.json` is read without `JSONDecoder` (``JSONValue``), and a plain paste of stored UTF-8 text
///   reads it before pbctl builds anything else (``pasteUTF8Text(from:into:)``).
/// - The change count never goes backwards, even when `Info.json` was damaged.
/// - Sensitive items never reach disk: their bytes go to a holder process (``HeldItems``) started by
///   ``holderLauncher``, and `Info.json` records only their types and the holder's socket. Without a
///   launcher they are refused.
public final class FileStore: PasteboardBackend, @unchecked Sendable {
    public let root: String
    /// Produces derived representations, which are stored as records without bytes.
    public let producer: RepresentationProducer?
    /// Starts a process that holds sensitive items in memory and serves them on `socketPath` for
    /// `lifetime` seconds; it returns once the socket listens.
    public typealias HolderLauncher = (
        _ items: [Item], _ socketPath: String, _ pasteboard: PasteboardName, _ changeCount: Int, _ terms: HoldTerms
    ) throws -> Void
    public let holderLauncher: HolderLauncher?
    /// Input spooled by ``spool(_:name:for:limit:inspect:)`` and not yet written.
    var spools: [Spool] = []
    /// Asked (``spoolSameContent(from:)``) before a regular file larger than ``smallInput`` is spooled: an open descriptor of a file
    /// that holds exactly its bytes (`size` of them from offset 0), on the file system `device` and
    /// never changed in place, or nil. The store then links that file (no byte copied or written)
    /// instead of copying the input. What `copy` gives the history's files by (the history compares
    /// the input with its files of that size; the store knows nothing of the history).
    var sameContent: ((_ input: Int32, _ size: Int, _ device: UInt64) -> Int32?)?
    /// The keeper's stop socket pair (``stopDescriptor``): made once, on first use.
    lazy var keeperStop: (Int32, Int32) = POSIX.socketPair() ?? (-1, -1)
    /// Files adopted by ``adopt(_:holding:)``: path, and the bytes' address and count.
    var adopted: [(path: String, base: UnsafeRawPointer?, count: Int)] = []
    /// The files the last write stored: path, and the bytes' address and count.
    var written: [(path: String, base: UnsafeRawPointer?, count: Int)] = []
    /// The store's directory once opened (``rootDirectory(create:)``); -1 before.
    private let rootFD = Mutex<(fd: Int32, forWriting: Bool)>((-1, false))

    package struct Info {
        var format: Int
        var changeCount: Int
        var items: [ItemRecord]
        /// The socket (in the package) of the process holding sensitive items.
        var holder: String?
        /// The boot it was written in (``FileStore/bootID``).
        var boot: String?

        /// The JSON `Info.json` holds (as `Codable` wrote it: the keys sorted, a missing holder left out).
        var json: JSONValue {
            .record([
                ("format", .integer(Int64(format))), ("changeCount", .integer(Int64(changeCount))),
                ("items", JSONValue.array(items.map { $0.json })), ("holder", holder.map(JSONValue.string)),
                ("boot", boot.map(JSONValue.string)),
            ])
        }

        /// Whether its data files may have been cut short by a power cut: written before this boot.
        var fromEarlierBoot: Bool { boot != nil && boot != FileStore.bootID }
    }

    static let infoName = "Info.json"

    /// Decodes a package's metadata (`path` names the file in errors). Outside bytes: also the entry
    /// point of the `store-info` fuzz target. Read with ``JSONValue``, not `JSONDecoder`: this runs on
    /// every paste.
    /// - Throws: ``PasteboardError`` `.corrupt` naming `path`.
    package static func decodeInfo(_ data: Data, path: String) throws -> Info {
        do {
            let json = try JSONValue.parse(data)
            let format = try json.requiredInt("format")
            guard format == 1 else {
                throw PasteboardError(.corrupt, "\(path): unknown format \(format)")
            }
            let info = Info(
                format: format, changeCount: try json.requiredInt("changeCount"),
                items: try json.requiredArray("items").map(ItemRecord.init(json:)), holder: try json.optionalString("holder"),
                boot: try json.optionalString("boot"))
            try validate(info, path: path)
            return info
        } catch let error as PasteboardError {
            throw error
        } catch {
            throw PasteboardError(
                .corrupt, "\(path): damaged metadata (\(data.count) bytes); run 'pbctl clear' to reset this pasteboard")
        }
    }
    static let lockName = "lock"

    /// Every number and name the metadata holds, range-checked: nothing read from disk may make pbctl
    /// trap on overflow, allocate without bound or open a path outside the package.
    static func validate(_ info: Info, path: String) throws {
        func damaged(_ what: String) -> PasteboardError {
            PasteboardError(.corrupt, "\(path): damaged metadata (\(what)); run 'pbctl clear' to reset this pasteboard")
        }
        guard (0...maximumChangeCount).contains(info.changeCount) else { throw damaged("change count \(info.changeCount)") }
        if let holder = info.holder, !isPackageFileName(holder) { throw damaged("holder socket name") }
        for item in info.items {
            for record in item.representations {
                if let size = record.size, !(0...maximumStoredSize).contains(size) {
                    throw damaged("size \(size) of \(record.type)")
                }
                if let file = record.file, !isPackageFileName(file) { throw damaged("file name of \(record.type)") }
            }
        }
    }

    /// A name pbctl itself would give a file in a package: letters, digits, `.`, `-`, `_`; no leading dot.
    static func isPackageFileName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 255, bytes[0] != UInt8(ascii: ".") else { return false }
        return bytes.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || b == UInt8(ascii: ".") || b == UInt8(ascii: "-")
                || b == UInt8(ascii: "_")
        }
    }

    /// The store at `root`. Nothing is created until the first write: reading a store that does not
    /// exist, or one on a read-only file system, changes nothing on disk.
    /// - Throws: ``PasteboardError`` `.refused` when `root` exists but is a symlink, not a directory, or
    ///   not the user's own (see ``PrivateDirectory``).
    public init(root: String, producer: RepresentationProducer? = nil, holderLauncher: HolderLauncher? = nil) throws {
        self.root = root
        self.producer = producer
        self.holderLauncher = holderLauncher
        _ = try rootDirectory(create: false)
    }

    deinit {
        discardSpools()
        rootFD.withLock { cached in if cached.fd >= 0 { close(cached.fd) } }
    }

    /// The store's directory, opened once (``PrivateDirectory/openStore(_:create:)`` walks and checks
    /// every component) and kept: nil when it does not exist and `create` is false. A descriptor whose
    /// directory was removed since (nothing links to it any more) is dropped and the path opened again,
    /// so a long-running process never writes into a deleted store. The caller does not close it.
    func rootDirectory(create: Bool) throws -> Int32? {
        try rootFD.withLock { cached -> Int32? in
            if cached.fd >= 0 {
                var st = stat()
                // A writer's first use also makes the store private (0700): open it again that way.
                if fstat(cached.fd, &st) == 0, st.st_nlink > 0, cached.forWriting || !create { return cached.fd }
                close(cached.fd)
                cached = (-1, false)
            }
            guard let opened = try PrivateDirectory.openStore(root, create: create) else { return nil }
            cached = (opened, create)
            return opened
        }
    }

    /// The highest change count accepted from disk: far beyond any real use, and far from overflowing
    /// when one is added.
    static let maximumChangeCount = 1 << 53
    /// The largest representation size accepted from the metadata.
    package static let maximumStoredSize = 1 << 48
    /// The largest `Info.json` read.
    static let maximumInfoSize = 64 << 20
    /// Stored files from this size on are mapped rather than read.
    static let mapThreshold = 1 << 20

    /// Where the store lives: `$PBCTL_STORE`, else `$XDG_RUNTIME_DIR/pbctl`, else
    /// `$XDG_CACHE_HOME/pbctl`, else `~/.cache/pbctl`.
    public static func defaultRoot(environment: [String: String]) -> String {
        defaultRoot { environment[$0] }
    }

    /// ``defaultRoot(environment:)`` with each variable read by `variable`.
    public static func defaultRoot(variable: (String) -> String?) -> String {
        if let explicit = variable("PBCTL_STORE"), !explicit.isEmpty { return explicit }
        if let runtime = variable("XDG_RUNTIME_DIR"), runtime.hasPrefix("/") { return runtime + "/pbctl" }
        if let cache = variable("XDG_CACHE_HOME"), cache.hasPrefix("/") { return cache + "/pbctl" }
        let home = variable("HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp/pbctl-\(getuid())"
        return home + "/.cache/pbctl"
    }

    // MARK: PasteboardBackend

    public var info: BackendInfo { BackendInfo(name: "store", detail: root) }

    /// Sensitive items live `options.lifetime(sensitive: true)` seconds in their holder; content meant to
    /// vanish (`--paste-once`, `--clear-after`) is held too, marked transient, and given up after its one
    /// paste or its lifetime: none of it reaches disk.
    @discardableResult
    public func write(_ items: [Item], to pasteboard: PasteboardName, options: CopyOptions) throws -> Int {
        let sensitive = items.contains { ClipboardMarkers.flags(of: $0).contains(.sensitive) }
        if sensitive || options.pasteOnce || options.clearAfter != nil {
            let lifetime = sensitive ? options.lifetime(sensitive: true) ?? options.sensitiveLifetime : options.clearAfter
            let held = items.map { item -> Item in
                var served = options.served(item)
                served.metadata.flags.formUnion(ClipboardMarkers.flags(of: item))
                return served
            }
            return try writeHeld(held, to: pasteboard, terms: HoldTerms(lifetime: lifetime, pasteOnce: options.pasteOnce))
        }
        // Produce promised originals before taking the lock: a slow producer must not block readers.
        var prepared: [(ItemMetadata, [(Representation, Data?)])] = []
        for item in items {
            var reps: [(Representation, Data?)] = []
            for rep in item.representations {
                if rep.derivedFrom != nil, producer != nil, case .promised = rep.content {
                    reps.append((rep, nil))
                } else {
                    reps.append((rep, try rep.data()))
                }
            }
            prepared.append((item.metadata, reps))
        }
        defer { discardSpools() }  // linked into place by now, or not wanted
        return try withPackage(pasteboard, exclusive: true) { package in
            // A package this write just made, that no other writer has written to since (it has no
            // metadata), holds nothing to sweep: each history entry is one.
            let previous = try? package.readInfoIfPresent()
            let listing = package.fresh && previous == nil ? [] : (try? package.entries()) ?? []
            // The files' names keep the count from going back when the metadata is damaged.
            let count = max(previous?.changeCount ?? 0, Package.highestStoredChange(in: listing)) + 1
            written.removeAll()
            // Under the exclusive lock, a file the current metadata does not name is a dead writer's
            // leftover (a kill -9, a crash): sweep it first, so failures cannot pile up and fill the disk.
            let kept = previous.map(Self.files(of:)) ?? []
            package.removeFiles(listing, except: kept)
            var created: [String] = []
            do {
                var records: [ItemRecord] = []
                for (itemIndex, (metadata, reps)) in prepared.enumerated() {
                    var recs: [RepresentationRecord] = []
                    for (repIndex, (rep, data)) in reps.enumerated() {
                        if let data {
                            let name = "c\(count)-\(itemIndex)-\(repIndex).data"
                            created.append(name)
                            if let spool = spool(holding: data, for: pasteboard) {
                                // Streamed in already: the spool file becomes the data file.
                                try package.link(spool, as: name, data)
                            } else if let path = adoptedFile(holding: data) {
                                try package.adopt(path, as: name, data)
                            } else {
                                // Not synced: the one sync is the metadata's (see replaceInfo).
                                try package.createFile(name, data, sync: false)
                            }
                            recs.append(RepresentationRecord(type: rep.type, size: data.count, derivedFrom: rep.derivedFrom, file: name))
                            if let base = Self.identity(of: data) { written.append((package.path + "/" + name, base, data.count)) }
                        } else {
                            recs.append(RepresentationRecord(type: rep.type, size: nil, derivedFrom: rep.derivedFrom))
                        }
                    }
                    records.append(ItemRecord(metadata: metadata, representations: recs))
                }
                let info = Info(format: 1, changeCount: count, items: records, boot: Self.bootID)
                try package.replaceInfo(info)
                previous?.holder.map { HeldItems.dismiss(socketPath: package.path + "/" + $0) }
                // What the previous metadata named and the new one does not: nothing else is left.
                package.removeFiles(kept, except: Self.files(of: info))
                return count
            } catch {
                // A full disk, a quota, an I/O error: nothing of this write stays behind; the previous
                // content is untouched.
                for name in created { unlinkat(package.fd, name, 0) }
                throw error
            }
        }
    }

    /// The address that identifies `data`'s bytes, for telling later which file holds them (the history
    /// adopting a store's file); nil for a few bytes, which `Data` keeps inline (their address is a
    /// temporary one, shared by any other small `Data`), and for none.
    static func identity(of data: Data) -> UnsafeRawPointer? {
        guard data.count >= 64 else { return nil }
        return data.withUnsafeBytes { $0.baseAddress }
    }

    /// The boot this process runs in (`/proc/sys/kernel/random/boot_id`), recorded in the metadata: data
    /// files are not synced one by one, so after a power cut a record written in an earlier boot may
    /// name a file that never reached the disk whole, which is then a lost copy, not damage.
    static let bootID: String? = {
        let fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = Glibc.read(fd, &buffer, 64)
        guard n >= 32 else { return nil }
        let text = String(decoding: buffer[0..<n].prefix { $0 > 0x20 }, as: UTF8.self)
        return text.utf8.count <= 40 && text.utf8.allSatisfy({ $0 == 0x2D || ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) ? text : nil
    }()

    /// The files `info` names.
    /// (A list, not a `Set`: a handful of names, and each generic `Set` costs a static executable a
    /// run-time conformance look-up on first use.)
    static func files(of info: Info) -> [String] {
        var names = info.items.flatMap { $0.representations.compactMap(\.file) }
        if let holder = info.holder { names.append(holder) }
        return names
    }

    /// Sensitive items: a holder process keeps the bytes; the package records types and the socket.
    private func writeHeld(_ items: [Item], to pasteboard: PasteboardName, terms: HoldTerms) throws -> Int {
        guard let holderLauncher else {
            throw PasteboardError(.refused, "sensitive, paste-once and expiring content is never written to the store")
        }
        return try withPackage(pasteboard, exclusive: true) { package in
            let previous = try? package.readInfo()
            let listing = try package.entries()
            let count = max(previous?.changeCount ?? 0, Package.highestStoredChange(in: listing)) + 1
            previous?.holder.map { HeldItems.dismiss(socketPath: package.path + "/" + $0) }
            let socketName = "held-\(count).sock"
            try holderLauncher(items, package.path + "/" + socketName, pasteboard, count, terms)
            let records = items.map { item in
                ItemRecord(
                    metadata: item.metadata,
                    representations: item.representations.map {
                        RepresentationRecord(type: $0.type, size: nil, derivedFrom: $0.derivedFrom, held: true)
                    })
            }
            try package.replaceInfo(Info(format: 1, changeCount: count, items: records, holder: socketName))
            package.removeFiles(listing, except: [socketName])
            return count
        }
    }

    public func items(in pasteboard: PasteboardName) throws -> [ItemSummary] {
        try withPackage(pasteboard, exclusive: false, absent: []) { package in
            try package.readInfo().items.map(\.summary)
        }
    }

    public func read(_ type: TypeIdentifier, item index: Int, from pasteboard: PasteboardName) throws -> Data {
        let (record, source): (RepresentationRecord, (TypeIdentifier, Data)?) = try withPackage(
            pasteboard, exclusive: false, absent: nil
        ) { package -> (RepresentationRecord, (TypeIdentifier, Data)?)? in
            let info = try package.readInfo()
            guard info.items.indices.contains(index) else {
                throw PasteboardError.empty(index == 0 ? "nothing to paste" : "there is no item \(index)")
            }
            let item = info.items[index]
            guard let record = item.representations.first(where: { $0.type == type }) else {
                throw PasteboardError(.typeNotOffered, "\(type) is not offered")
            }
            if record.held == true, let holder = info.holder {
                return (record, (type, try HeldItems.fetch(type, item: index, socketPath: package.path + "/" + holder)))
            }
            if record.file != nil { return (record, (type, try package.readingFiles(of: info) { try package.readRepresentation(record) })) }
            guard let sourceType = record.derivedFrom,
                let sourceRecord = item.representations.first(where: { $0.type == sourceType && $0.file != nil })
            else {
                throw PasteboardError(.corrupt, "\(package.path)/\(Self.infoName): \(type) has no stored source")
            }
            return (record, (sourceType, try package.readingFiles(of: info) { try package.readRepresentation(sourceRecord) }))
        }
        ?? { throw PasteboardError.empty(index == 0 ? "nothing to paste" : "there is no item \(index)") }()
        guard let (sourceType, data) = source else { throw PasteboardError(.corrupt, "missing data") }
        if record.file != nil || record.held == true { return data }
        guard let producer else {
            throw PasteboardError(.unavailable, "no converter available to produce \(type) from \(sourceType)")
        }
        return try producer(sourceType, data, type)
    }

    public func clear(_ pasteboard: PasteboardName) throws {
        try withPackage(pasteboard, exclusive: true) { package in
            let previous = try? package.readInfo()
            let listing = try package.entries()
            let count = max(previous?.changeCount ?? 0, Package.highestStoredChange(in: listing)) + 1
            previous?.holder.map { HeldItems.dismiss(socketPath: package.path + "/" + $0) }
            // Remove first, then write: on a full disk (or with damaged metadata) the space the old
            // content held is what lets the new metadata be written, so clear always recovers.
            package.removeFiles(listing, except: [])
            do {
                try package.replaceInfo(Info(format: 1, changeCount: count, items: []))
            } catch {
                unlinkat(package.fd, Self.infoName, 0)  // at least empty: no metadata naming removed files
                throw error
            }
        }
    }

    public func changeCount(of pasteboard: PasteboardName) throws -> Int {
        try withPackage(pasteboard, exclusive: false, absent: 0) { package in
            if let info = try package.readInfoIfPresent() { return info.changeCount }
            return 0
        }
    }

    /// The names of the pasteboards that exist in the store.
    public func pasteboardNames() throws -> [PasteboardName] {
        let fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return [] }
            throw POSIX.ioError("open", root)
        }
        defer { close(fd) }
        let names = try FileTree.entries(fd, path: root).compactMap { name in
            name.hasSuffix(".pasteboard") ? PasteboardName(String(name.dropLast(11))) : nil
        }
        return names.sorted { $0.rawValue < $1.rawValue }
    }

    // MARK: Packages

    /// Runs `body` on a pasteboard's package under its lock: a writer (`exclusive`) creates what is
    /// missing; a reader creates nothing and gets `absent` when the store or the package does not exist.
    func withPackage<T>(
        _ pasteboard: PasteboardName, exclusive: Bool, absent: T, _ body: (Package) throws -> T
    ) throws -> T {
        guard let rootFD = try rootDirectory(create: exclusive) else { return absent }
        let name = pasteboard.rawValue + ".pasteboard"
        var st = stat()
        if !exclusive, fstatat(rootFD, name, &st, AT_SYMLINK_NOFOLLOW) != 0, errno == ENOENT { return absent }
        var fresh = false
        let fd = try Self.openDirectory(name, relativeTo: rootFD, create: exclusive, displayPath: root + "/" + name, created: &fresh)
        var package = Package(fd: fd, path: root + "/" + name)
        package.fresh = fresh
        defer { close(fd) }
        // A reader opens the lock read-only and never creates it (a read-only store pastes); with no
        // lock file no writer has finished here, and Info.json, renamed into place, is whole anyway.
        let lockFD = exclusive
            ? openat(fd, Self.lockName, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
            : openat(fd, Self.lockName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if lockFD < 0 && (exclusive || errno != ENOENT) { throw Self.openError(package.path + "/" + Self.lockName) }
        defer { if lockFD >= 0 { close(lockFD) } }
        if lockFD >= 0 {
            while flock(lockFD, exclusive ? LOCK_EX : LOCK_SH) != 0 {
                if errno != EINTR { throw POSIX.ioError("lock", package.path) }
            }
        }
        defer { if lockFD >= 0 { flock(lockFD, LOCK_UN) } }
        return try body(package)
    }

    private func withPackage<T>(_ pasteboard: PasteboardName, exclusive: Bool, _ body: (Package) throws -> T) throws -> T {
        try withPackage(pasteboard, exclusive: exclusive, absent: nil) { try body($0) }!
    }

    static func kind(of mode: mode_t) -> String { POSIX.kind(of: mode) }

    package static func openError(_ path: String, _ code: Int32 = errno) -> PasteboardError {
        if code == ELOOP || code == ENOTDIR {
            return PasteboardError(.refused, "\(path): refusing to follow a symbolic link or non-directory")
        }
        return POSIX.ioError("open", path, code)
    }

    /// Opens a directory without following a symlink in its last component, creating it 0700.
    package static func openDirectory(_ path: String, relativeTo dirFD: Int32, create: Bool, displayPath: String? = nil)
        throws -> Int32
    {
        var created = false
        return try openDirectory(path, relativeTo: dirFD, create: create, displayPath: displayPath, created: &created)
    }

    /// ``openDirectory(_:relativeTo:create:displayPath:)``, saying in `created` whether it made it.
    static func openDirectory(_ path: String, relativeTo dirFD: Int32, create: Bool, displayPath: String?, created: inout Bool)
        throws -> Int32
    {
        let shown = displayPath ?? path
        if create {
            if mkdirat(dirFD, path, 0o700) == 0 {
                created = true
            } else if errno != EEXIST {
                throw POSIX.ioError("mkdir", shown)
            }
        }
        let fd = openat(dirFD, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw openError(shown) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            close(fd)
            throw POSIX.ioError("stat", shown)
        }
        guard st.st_uid == getuid() else {
            close(fd)
            throw PasteboardError(.refused, "\(shown): owned by another user; refusing to use it")
        }
        if create, st.st_mode & 0o077 != 0, fchmod(fd, 0o700) != 0 {
            close(fd)
            throw POSIX.ioError("chmod", shown)
        }
        return fd
    }

    /// One pasteboard's directory, open and locked.
    package struct Package {
        let fd: Int32
        let path: String
        /// Made by this write (``withPackage(_:exclusive:absent:_:)``): empty.
        var fresh = false

        package init(fd: Int32, path: String) {
            self.fd = fd
            self.path = path
        }

        func readInfoIfPresent() throws -> Info? {
            guard let data = try readStoredFile(FileStore.infoName, size: nil, limit: FileStore.maximumInfoSize) else { return nil }
            return try FileStore.decodeInfo(data, path: path + "/" + FileStore.infoName)
        }

        /// A file of the package, which must be a regular file (never a FIFO, device, socket or link, so
        /// nothing planted there can block or feed pbctl forever) of the recorded `size`, if any.
        /// Nil when it does not exist.
        package func readStoredFile(_ name: String, size: Int?, limit: Int = FileStore.maximumStoredSize) throws -> Data? {
            guard let (fileFD, actual, filePath) = try openStoredFileIfPresent(name, size: size, limit: limit) else { return nil }
            defer { close(fileFD) }
            // Large files are mapped: a conversion reads the pages it needs, and nothing is copied.
            if actual >= FileStore.mapThreshold, let map = mmap(nil, actual, PROT_READ, MAP_PRIVATE, fileFD, 0), map != MAP_FAILED {
                return Data(bytesNoCopy: map, count: actual, deallocator: .custom { pointer, count in munmap(pointer, count) })
            }
            let data = try POSIX.readAll(fileFD, path: filePath, sizeHint: actual, limit: actual)
            guard data.count == actual else {
                throw PasteboardError(.corrupt, "\(filePath): changed while being read (\(data.count) of \(actual) bytes)")
            }
            return data
        }

        /// Opens a stored file for reading: a regular file (never a FIFO, device, socket or link) of the
        /// recorded `size`; nil when it does not exist. The caller closes the descriptor.
        package func openStoredFileIfPresent(_ name: String, size: Int?, limit: Int = FileStore.maximumStoredSize) throws
            -> (fd: Int32, size: Int, path: String)?
        {
            let filePath = path + "/" + name
            let fileFD = openat(fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            if fileFD < 0 {
                if errno == ENOENT { return nil }
                throw FileStore.openError(filePath)
            }
            var st = stat()
            guard fstat(fileFD, &st) == 0 else {
                close(fileFD)
                throw POSIX.ioError("stat", filePath)
            }
            guard st.st_mode & S_IFMT == S_IFREG else {
                close(fileFD)
                throw PasteboardError(.corrupt, "\(filePath): not a regular file (\(FileStore.kind(of: st.st_mode))); refusing to read it")
            }
            let actual = Int(st.st_size)
            if let size, size != actual {
                close(fileFD)
                throw PasteboardError(
                    .corrupt, "\(filePath): holds \(actual) bytes but the metadata says \(size): damaged metadata; "
                        + "run 'pbctl clear' to reset this pasteboard")
            }
            guard actual <= limit else {
                close(fileFD)
                throw PasteboardError(.corrupt, "\(filePath): \(actual) bytes, more than the \(limit) allowed")
            }
            return (fileFD, actual, filePath)
        }

        /// ``openStoredFileIfPresent(_:size:limit:)`` for a file the metadata names.
        func openStoredFile(_ name: String, size: Int?) throws -> (fd: Int32, size: Int, path: String) {
            guard FileStore.isPackageFileName(name) else {
                throw PasteboardError(.corrupt, "\(path)/\(FileStore.infoName): bad file name \(name)")
            }
            guard let opened = try openStoredFileIfPresent(name, size: size) else {
                throw PasteboardError(.corrupt, "\(path)/\(name): missing; run 'pbctl clear' to reset this pasteboard")
            }
            return opened
        }

        /// A data file with `data`, the bytes of the file at `path`: a hard link on the same file system,
        /// else a copy in the kernel (`copy_file_range`). When the file is gone or changed (another
        /// copy replaced the pasteboard it belonged to, and it was removed: the bytes are still mapped),
        /// the bytes are written from memory.
        func adopt(_ path: String, as name: String, _ data: Data) throws {
            unlinkat(fd, name, 0)
            if linkat(AT_FDCWD, path, fd, name, 0) == 0 {
                var st = stat()
                if fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0, st.st_mode & S_IFMT == S_IFREG, Int(st.st_size) == data.count {
                    return
                }
                unlinkat(fd, name, 0)
            }
            let source = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard source >= 0 else { return try createFile(name, data, sync: false) }
            defer { close(source) }
            let target = openat(fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard target >= 0 else { throw FileStore.openError(self.path + "/" + name) }
            defer { close(target) }
            do {
                let copied = try POSIX.transfer(
                    from: source, name: path, to: target, path: self.path + "/" + name, limit: data.count, inspect: false) { _ in }
                guard copied == data.count else {
                    unlinkat(fd, name, 0)
                    return try createFile(name, data, sync: false)
                }
            } catch {
                unlinkat(fd, name, 0)
                throw error
            }
        }

        /// Gives a spool its data file's name (a second name for the same bytes: a Markdown copy's plain
        /// text is its source). An unnamed spool is linked through `/proc/self/fd`; where `/proc` is not
        /// mounted its mapped bytes are written out instead.
        func link(_ spool: Spool, as name: String, _ data: Data) throws {
            unlinkat(fd, name, 0)  // a leftover from a crashed write with the same change count
            if let spoolName = spool.name {
                guard linkat(fd, spoolName, fd, name, 0) == 0 else { throw POSIX.ioError("link", path + "/" + name) }
            } else if csystem_link_unnamed(spool.fd, fd, name) != 0 {
                if errno == ENOSPC || errno == EDQUOT { throw POSIX.ioError("link", path + "/" + name) }
                try createFile(name, data, sync: false)
            }
        }

        /// Removes named spools whose writer is gone: not locked, and no process with the PID in its name.
        func sweepDeadSpools() {
            guard let names = try? entries() else { return }
            for name in names where name.hasSuffix(".spool") { removeSpoolIfDead(name) }
        }

        private func removeSpoolIfDead(_ name: String) {
            // A live writer may not have taken its lock yet (between creating and locking the file): the
            // PID in the name covers that moment.
            if name.hasPrefix("t"), let pid = Int32(name.dropFirst().prefix(while: \.isNumber)), pid > 0, kill(pid, 0) == 0 || errno == EPERM {
                return
            }
            let spoolFD = openat(fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard spoolFD >= 0 else { return }
            defer { close(spoolFD) }
            if flock(spoolFD, LOCK_EX | LOCK_NB) == 0 { unlinkat(fd, name, 0) }
        }

        /// `body`, which opens files `info` names. When `info` was written in an earlier boot, a file
        /// that is missing or short is what a power cut leaves of a copy whose data had not reached the
        /// disk (files are not synced one by one): the copy is lost (`.empty`, exit 1), not damage.
        func readingFiles<T>(of info: Info, _ body: () throws -> T) throws -> T {
            do {
                return try body()
            } catch let error as PasteboardError where error.code == .corrupt && info.fromEarlierBoot {
                throw PasteboardError.empty(
                    "the last copy did not reach the disk before the system stopped (\(path)); copy it again")
            }
        }

        func readInfo() throws -> Info {
            try readInfoIfPresent() ?? Info(format: 1, changeCount: 0, items: [])
        }

        func readRepresentation(_ record: RepresentationRecord) throws -> Data {
            guard let file = record.file, FileStore.isPackageFileName(file) else {
                throw PasteboardError(.corrupt, "\(path)/\(FileStore.infoName): bad file name for \(record.type)")
            }
            guard let data = try readStoredFile(file, size: record.size) else {
                throw PasteboardError(.corrupt, "\(path)/\(file): missing; run 'pbctl clear' to reset this pasteboard")
            }
            return data
        }

        /// Creates a new file (never an existing one), writes and syncs it.
        package func createFile(_ name: String, _ data: Data, sync: Bool = true) throws {
            unlinkat(fd, name, 0)  // a leftover from a crashed write with the same change count
            let fileFD = openat(fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard fileFD >= 0 else { throw FileStore.openError(path + "/" + name) }
            defer { close(fileFD) }
            do {
                try POSIX.writeAll(fileFD, data, path: path + "/" + name)
                guard !sync || fsync(fileFD) == 0 else { throw POSIX.ioError("fsync", path + "/" + name) }
            } catch {
                unlinkat(fd, name, 0)  // a partial file would hold the space a full disk needs back
                throw error
            }
        }

        /// Writes `Info.json` under a temporary name, syncs it, and renames it into place: the one sync
        /// of a write. The data files it names are not synced one by one (which cost a copy one journal
        /// commit each); after a power cut a record from an earlier boot whose file is short or missing
        /// is a lost copy (``Info/fromEarlierBoot``), and the next write replaces it.
        func replaceInfo(_ info: Info) throws {
            try replaceFile(FileStore.infoName, info.json.encodedData)
        }

        /// Replaces the file `name` with `data` at once: written under a temporary name (synced unless
        /// `sync` is false: a cache that can be rebuilt), then renamed into place. Errors name `name`.
        /// The directory is not synced: a power cut right after may lose this change (the previous
        /// file stays), never leave a damaged one.
        package func replaceFile(_ name: String, _ data: Data, sync: Bool = true) throws {
            let temporary = name + ".new-\(getpid())"
            do {
                try createFile(temporary, data, sync: sync)
            } catch let error as PasteboardError {
                throw PasteboardError(error.code, error.message.split(separator: temporary, omittingEmptySubsequences: false).joined(separator: name))
            }
            guard renameat(fd, temporary, fd, name) == 0 else {
                let code = errno
                unlinkat(fd, temporary, 0)
                throw POSIX.ioError("rename", path + "/" + name, code)
            }
        }

        /// The directory's entries, except `.` and `..`.
        func entries() throws -> [String] { try FileTree.entries(fd, path: path) }

        /// The highest change count that named a data file in `listing` (the package's entries), so a
        /// damaged `Info.json` cannot make the count go backwards.
        static func highestStoredChange(in listing: [String]) -> Int {
            listing.compactMap { name -> Int? in
                guard name.hasPrefix("c"), let dash = name.firstIndex(of: "-"),
                    let count = Int(name[name.index(after: name.startIndex)..<dash]), (0...FileStore.maximumChangeCount).contains(count)
                else { return nil }  // a stray name with a huge number must not make the count overflow
                return count
            }.max() ?? 0
        }

        /// Deletes the data files (and stale temporaries) of `listing` that are not in `keep`.
        func removeFiles(_ listing: [String], except keep: [String]) {
            for name in listing where !keep.contains(name) && name != FileStore.infoName && name != FileStore.lockName {
                if name.hasSuffix(".spool") {
                    removeSpoolIfDead(name)  // a copy still streaming in keeps its spool
                } else if name.hasSuffix(".data") || name.hasSuffix(".sock") || name.hasPrefix(FileStore.infoName + ".new-") {
                    unlinkat(fd, name, 0)
                }
            }
        }
    }
}
