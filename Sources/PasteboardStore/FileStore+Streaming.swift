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

// Streaming in and out of the store: a copy goes from its input straight into a spool file in the
// pasteboard's package (`copy_file_range` from a file, `splice` from a pipe, or a bounded buffer when the
// bytes must be checked), which the write then links into place; a paste goes from the stored file to
// its output with `sendfile`. Memory does not grow with the size of what is copied or pasted.

/// A spool file in progress. Normally it has no name at all (`O_TMPFILE`): the write links it into
/// place, and a writer killed before that leaves nothing behind. Where the file system has no unnamed
/// files it is named `tPID-N-RANDOM.spool` and its writer holds an exclusive `flock` on it, which (with
/// the PID in its name) is how a sweep tells a live writer's file from a dead one's.
struct Spool {
    let pasteboard: PasteboardName
    /// Nil for a file linked by its descriptor: an unnamed one, or a file already holding the same
    /// bytes (``FileStore/sameContent``).
    let name: String?
    let fd: Int32
    let packageFD: Int32
    let count: Int
    /// Where the spooled bytes are mapped.
    var base: UnsafeRawPointer?
}

extension FileStore: InputSpooling, StoredFiles {
    public func spool(_ input: Int32, name shown: String, for pasteboard: PasteboardName, limit: Int, inspect: Bool) throws -> SpooledInput {
        // Small input, the usual copy, is read into memory: no spool file, and the write makes its data
        // file once. Only what is larger goes through a spool.
        var prefix: [UInt8] = []
        var st = stat()
        if fstat(input, &st) == 0, st.st_mode & S_IFMT != S_IFDIR {
            let regular = st.st_mode & S_IFMT == S_IFREG
            if !regular || Int(st.st_size) <= Self.smallInput {
                prefix = try Self.readPrefix(input, name: shown, upTo: Self.smallInput + 1, positional: regular)
                if prefix.count <= Self.smallInput {
                    guard prefix.count <= limit else { throw POSIX.tooLarge(shown, limit) }
                    var validator = UTF8StreamValidator()
                    if inspect { prefix.withUnsafeBytes { validator.feed($0) } }
                    let data = Data(prefix)
                    return SpooledInput(
                        data: data, head: data.prefix(4096), inspected: inspect, firstInvalidUTF8Offset: inspect ? validator.finish() : nil)
                }
                // A regular file read in place (pread): its offset has not moved, and it streams whole.
                if regular { prefix = [] }
            }
        }
        guard let rootFD = try rootDirectory(create: true) else {
            throw PasteboardError(.io, "\(root): cannot create the store")
        }
        let packageName = pasteboard.rawValue + ".pasteboard"
        let packageFD = try Self.openDirectory(packageName, relativeTo: rootFD, create: true, displayPath: root + "/" + packageName)
        let packagePath = root + "/" + packageName
        if let linked = try spoolSameContent(input, name: shown, for: pasteboard, packageFD: packageFD, limit: limit, inspect: inspect) {
            return linked
        }
        var name: String? = nil
        var fd = csystem_open_unnamed(packageFD, 0o600)
        if fd < 0 {
            // No unnamed files here (an old kernel, some network and FUSE file systems): a named spool,
            // locked, and removed on SIGINT/SIGTERM/SIGHUP; dead writers' ones are swept first.
            Package(fd: packageFD, path: packagePath).sweepDeadSpools()
            let named = "t\(getpid())-\(spools.count)-\(UInt32.random(in: 0...UInt32.max)).spool"
            fd = openat(packageFD, named, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                let error = Self.openError(packagePath + "/" + named)
                close(packageFD)
                throw error
            }
            _ = flock(fd, LOCK_EX)
            SignalCleanup.register(packagePath + "/" + named)
            name = named
        }
        // Errors name the pasteboard the copy goes to, never a temporary file.
        let shownPath = packagePath
        func abandon() {
            if let name {
                unlinkat(packageFD, name, 0)
                SignalCleanup.unregister(packagePath + "/" + name)
            }
            close(fd)
            close(packageFD)
        }
        var head = Data()
        var validator = UTF8StreamValidator()
        var count = 0
        do {
            // What was read to tell a small input from a large one goes first.
            if !prefix.isEmpty {
                guard prefix.count <= limit else { throw POSIX.tooLarge(shown, limit) }
                prefix.withUnsafeBytes { chunk in
                    head.append(contentsOf: chunk.prefix(4096))
                    validator.feed(chunk)
                }
                try POSIX.writeAll(fd, Data(prefix), path: shownPath)
                count = prefix.count
            }
            do {
                count += try POSIX.transfer(
                    from: input, name: shown, to: fd, path: shownPath, limit: limit - count, inspect: inspect
                ) { chunk in
                    if head.count < 4096 { head.append(contentsOf: chunk.prefix(4096 - head.count)) }
                    validator.feed(chunk)
                }
            } catch let error as PasteboardError where error.code == .invalidData && count > 0 {
                throw POSIX.tooLarge(shown, limit)  // the limit as given, not what was left of it
            }
        } catch {
            abandon()
            throw error
        }
        let data: Data
        if count == 0 {
            data = Data()
        } else {
            guard let map = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0), map != MAP_FAILED else {
                let error = POSIX.ioError("mmap", shownPath)
                abandon()
                throw error
            }
            data = Data(bytesNoCopy: map, count: count, deallocator: .custom { pointer, size in munmap(pointer, size) })
            if !inspect { head = data.prefix(4096) }
        }
        let base = data.withUnsafeBytes { $0.baseAddress }
        spools.append(Spool(pasteboard: pasteboard, name: name, fd: fd, packageFD: packageFD, count: count, base: base))
        return SpooledInput(
            data: data, head: head, inspected: inspect, firstInvalidUTF8Offset: inspect ? validator.finish() : nil)
    }

    /// A regular file whose bytes a file on the package's file system already holds (``sameContent``:
    /// the history's, compared byte for byte): that file, mapped, becomes the spool, which the write
    /// links into place. Nothing is copied or written, and the file is never changed (a store's data
    /// file and the history's files are only ever linked and unlinked). Nil, having kept nothing, for
    /// any other input (a pipe, a file read from elsewhere than its start, no such file).
    private func spoolSameContent(
        _ input: Int32, name shown: String, for pasteboard: PasteboardName, packageFD: Int32, limit: Int, inspect: Bool
    ) throws -> SpooledInput? {
        guard let sameContent else { return nil }
        var st = stat()
        var package = stat()
        guard fstat(input, &st) == 0, st.st_mode & S_IFMT == S_IFREG, Int(st.st_size) > Self.smallInput, Int(st.st_size) <= limit,
            lseek(input, 0, SEEK_CUR) == 0, fstat(packageFD, &package) == 0
        else { return nil }
        let count = Int(st.st_size)
        guard let fd = sameContent(input, count, UInt64(package.st_dev)) else { return nil }
        var found = stat()
        guard fstat(fd, &found) == 0, found.st_mode & S_IFMT == S_IFREG, Int(found.st_size) == count, found.st_dev == package.st_dev,
            let map = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0), map != MAP_FAILED
        else {
            close(fd)
            return nil
        }
        let data = Data(bytesNoCopy: map, count: count, deallocator: .custom { pointer, size in munmap(pointer, size) })
        // Checked as UTF-8 through one buffer, as a spooled copy is: the mapped pages, touched, would
        // count in the copy's memory.
        var validator = UTF8StreamValidator()
        if inspect {
            guard let buffer = malloc(POSIX.chunkSize) else {
                close(fd)
                throw PasteboardError(.io, "\(shown): out of memory")
            }
            defer { free(buffer) }
            var offset = 0
            while offset < count {
                let n = pread(fd, buffer, min(POSIX.chunkSize, count - offset), off_t(offset))
                if n < 0, errno == EINTR { continue }
                guard n > 0 else {
                    close(fd)
                    return nil
                }
                validator.feed(UnsafeRawBufferPointer(start: buffer, count: n))
                offset += n
            }
        }
        let base = data.withUnsafeBytes { $0.baseAddress }
        spools.append(Spool(pasteboard: pasteboard, name: nil, fd: fd, packageFD: packageFD, count: count, base: base))
        return SpooledInput(
            data: data, head: data.prefix(4096), inspected: inspect, firstInvalidUTF8Offset: inspect ? validator.finish() : nil)
    }

    public func spoolSameContent(from find: @escaping (_ input: Int32, _ size: Int, _ device: UInt64) -> Int32?) {
        sameContent = find
    }

    /// Input up to this size is read into memory rather than spooled (``spool(_:name:for:limit:inspect:)``).
    static let smallInput = 64 << 10

    /// Up to `count` bytes of `input` (fewer at its end): with `pread` from its current offset when
    /// `positional` (a regular file, whose offset then stays), else with `read`.
    static func readPrefix(_ input: Int32, name: String, upTo count: Int, positional: Bool) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let start = positional ? lseek(input, 0, SEEK_CUR) : 0
        var got = 0
        while got < count {
            let n = buffer.withUnsafeMutableBytes { raw in
                positional ? pread(input, raw.baseAddress! + got, count - got, start + off_t(got)) : Glibc.read(input, raw.baseAddress! + got, count - got)
            }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { POSIX.waitReadable(input); continue }
                throw POSIX.ioError("read", name)
            }
            if n == 0 { break }
            got += n
        }
        buffer.removeSubrange(got...)
        return buffer
    }

    /// The spool whose mapping `data` is, for `pasteboard`.
    func spool(holding data: Data, for pasteboard: PasteboardName) -> Spool? {
        guard !spools.isEmpty, let base = Self.identity(of: data) else { return nil }
        // Only the mapped bytes themselves: the same address and length (a slice or copy is not it).
        return spools.first { $0.pasteboard == pasteboard && $0.count == data.count && $0.base == base }
    }

    /// Lets the next write take `data`'s bytes from the file at `path` (which holds exactly them and is
    /// never changed in place: another store's data file): a hard link when both are on one file system,
    /// else a copy in the kernel. What `copy` uses to record its item in the history without writing it
    /// twice.
    public func adopt(_ path: String, holding data: Data) {
        guard let base = Self.identity(of: data) else { return }
        adopted.append((path, base, data.count))
    }

    /// The file of a stored (not produced) representation: what ``adopt(_:holding:)`` takes.
    public func storedFilePath(_ type: TypeIdentifier, item index: Int, in pasteboard: PasteboardName) throws -> String? {
        try withPackage(pasteboard, exclusive: false, absent: nil) { package in
            let info = try package.readInfo()
            guard info.items.indices.contains(index),
                let file = info.items[index].representations.first(where: { $0.type == type && $0.held != true })?.file,
                FileStore.isPackageFileName(file)
            else { return nil }
            return package.path + "/" + file
        }
    }

    /// An item's types, and the file of each stored representation, from one reading of the metadata
    /// (a list of pairs, not a dictionary: see ``files(of:)``); nil when there is no such item.
    func storedFiles(item index: Int, in pasteboard: PasteboardName) throws -> (types: [TypeIdentifier], files: [(TypeIdentifier, String)])? {
        try withPackage(pasteboard, exclusive: false, absent: nil) { package in
            let info = try package.readInfo()
            guard info.items.indices.contains(index) else { return nil }
            var files: [(TypeIdentifier, String)] = []
            for record in info.items[index].representations where record.held != true {
                if let file = record.file, FileStore.isPackageFileName(file) { files.append((record.type, package.path + "/" + file)) }
            }
            return (info.items[index].representations.map(\.type), files)
        }
    }

    public func writtenFilePath(holding data: Data) -> String? {
        guard let base = Self.identity(of: data) else { return nil }
        return written.first { $0.base == base && $0.count == data.count }?.path
    }

    /// The adopted file whose bytes `data` is.
    func adoptedFile(holding data: Data) -> String? {
        guard let base = Self.identity(of: data) else { return nil }
        return adopted.first { $0.base == base && $0.count == data.count }?.path
    }

    /// Removes every spool file this store made (their mappings stay valid).
    func discardSpools() {
        for spool in spools {
            if let name = spool.name {
                unlinkat(spool.packageFD, name, 0)
                SignalCleanup.unregister(root + "/" + spool.pasteboard.rawValue + ".pasteboard/" + name)
            }
            close(spool.fd)
            close(spool.packageFD)
        }
        spools.removeAll()
        adopted.removeAll()
    }

    // MARK: Paste

    /// Streams a stored representation into `sink` (`sendfile` where the sink takes it), produced ones
    /// converted from their mapped source; the package's lock is held only while the file is opened.
    public func read(_ type: TypeIdentifier, item index: Int, from pasteboard: PasteboardName, into sink: any RepresentationSink) throws {
        let opened: (fd: Int32, size: Int, path: String)? = try withPackage(pasteboard, exclusive: false, absent: nil) { package in
            let info = try package.readInfo()
            guard info.items.indices.contains(index) else {
                throw PasteboardError.empty(index == 0 ? "nothing to paste" : "there is no item \(index)")
            }
            guard let record = info.items[index].representations.first(where: { $0.type == type }) else {
                throw PasteboardError(.typeNotOffered, "\(type) is not offered")
            }
            guard record.held != true, let file = record.file else { return nil }
            return try package.readingFiles(of: info) { try package.openStoredFile(file, size: record.size) }
        }
        guard let opened else { return try sink.write(try read(type, item: index, from: pasteboard)) }
        try Self.stream(opened, into: sink)
    }

    /// `pbctl paste` of the UTF-8 plain text every item holds, as the default paste would choose it (its
    /// first rung), read under one shared lock and sent with `sendfile`: what the fast paste does before
    /// pbctl builds its type registry. False, having written nothing, when that is not the answer: no
    /// store, no item, an item without stored UTF-8 text (the full paste then decides and words errors).
    public func pasteUTF8Text(from pasteboard: PasteboardName, into sink: any RepresentationSink) throws -> Bool {
        let opened: [OpenedFile]? = try withPackage(pasteboard, exclusive: false, absent: nil) { package in
            guard let data = try package.readStoredFile(FileStore.infoName, size: nil, limit: FileStore.maximumInfoSize),
                let texts = Self.utf8TextFiles(data)
            else { return nil }
            var files: [OpenedFile] = []
            for text in texts {
                guard let file = try? package.openStoredFile(text.name, size: text.size) else {
                    for file in files { close(file.fd) }
                    return nil
                }
                files.append(OpenedFile(fd: file.fd, size: file.size, path: file.path))
            }
            return files
        }
        guard let opened else { return false }
        var remaining = opened[...]
        defer { for file in remaining { close(file.fd) } }
        while let file = remaining.popFirst() { try Self.stream((file.fd, file.size, file.path), into: sink) }
        return true
    }

    /// `pbctl paste --as FORMAT` of a pasteboard holding one item that offers `type`: the stored bytes
    /// streamed into `sink`, or, when `type` is to be produced from a stored source `converts` accepts,
    /// that source's bytes handed to `produce` (which writes into `sink`): what the fast paste does
    /// before pbctl builds its type registry. The metadata is read and checked as the full paste reads it
    /// (``Package/readInfo()``). False, having written nothing, when that is not the whole answer: no
    /// store, not exactly one item, `type` not offered, held by a running owner, produced from a source
    /// `converts` refuses, or any file not as the metadata says (the full paste then decides and words
    /// errors).
    public func pasteRepresentation(
        _ type: TypeIdentifier, from pasteboard: PasteboardName, into sink: any RepresentationSink,
        converts: (TypeIdentifier) -> Bool, produce: (TypeIdentifier, Data) throws -> Void
    ) throws -> Bool {
        enum Found {
            case stored(OpenedFile)
            case source(TypeIdentifier, Data)
        }
        let found: Found? = try? withPackage(pasteboard, exclusive: false, absent: nil) { package -> Found? in
            let info = try package.readInfo()
            guard info.items.count == 1, let record = info.items[0].representations.first(where: { $0.type == type }),
                record.held != true
            else { return nil }
            if let file = record.file {
                let opened = try package.openStoredFile(file, size: record.size)
                return .stored(OpenedFile(fd: opened.fd, size: opened.size, path: opened.path))
            }
            guard let sourceType = record.derivedFrom, converts(sourceType),
                let sourceRecord = info.items[0].representations.first(where: { $0.type == sourceType && $0.file != nil })
            else { return nil }
            return .source(sourceType, try package.readRepresentation(sourceRecord))
        }
        switch found {
        case nil:
            return false
        case .stored(let file)?:
            try Self.stream((file.fd, file.size, file.path), into: sink)
        case .source(let sourceType, let data)?:
            try produce(sourceType, data)
        }
        return true
    }

    struct OpenedFile {
        let fd: Int32
        let size: Int
        let path: String
    }

    struct StoredText {
        let name: String
        let size: Int
    }

    /// The stored UTF-8 text file of each item `Info.json` lists, read from the JSON without building
    /// the records (no dates, no metadata): nil unless every item has one, named and sized as pbctl
    /// names and sizes them, and the metadata is of the known format. Anything unusual is the full
    /// paste's to read and report.
    static func utf8TextFiles(_ data: Data) -> [StoredText]? {
        guard let json = try? JSONValue.parse(data), json["format"]?.int == 1, let count = json["changeCount"]?.int,
            (0...maximumChangeCount).contains(count), json["holder"] == nil, let items = json["items"]?.array, !items.isEmpty
        else { return nil }
        var texts: [StoredText] = []
        for item in items {
            // The full paste's first choice is UTF-8 plain text; an item that holds nothing but plain text
            // of no declared encoding (`pbctl copy notes.txt`) pastes that, byte for byte.
            guard let representations = item["representations"]?.array,
                let text = representations.first(where: { $0["type"]?.string == TypeIdentifier.utf8PlainText.rawValue })
                    ?? (representations.count == 1 && representations[0]["type"]?.string == TypeIdentifier.plainText.rawValue
                        ? representations[0] : nil),
                text["held"] == nil, let name = text["file"]?.string, isPackageFileName(name), let size = text["size"]?.int,
                (0...maximumStoredSize).contains(size)
            else { return nil }
            texts.append(StoredText(name: name, size: size))
        }
        return texts
    }

    /// Sends an opened stored file into `sink` (`sendfile` where it takes it) and closes it.
    package static func stream(_ opened: (fd: Int32, size: Int, path: String), into sink: any RepresentationSink) throws {
        defer { close(opened.fd) }
        if try sink.transfer(fromFile: opened.fd, offset: 0, count: opened.size) { return }
        guard let buffer = malloc(POSIX.chunkSize) else { throw PasteboardError(.io, "out of memory") }
        defer { free(buffer) }
        var offset = 0
        while offset < opened.size {
            let n = pread(opened.fd, buffer, min(POSIX.chunkSize, opened.size - offset), off_t(offset))
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw PasteboardError(.corrupt, "\(opened.path): ended at \(offset) of \(opened.size) bytes") }
            try sink.write(Data(bytes: buffer, count: n))
            offset += n
        }
    }
}
