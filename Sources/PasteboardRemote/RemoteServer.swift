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
import Dispatch
import Pasteboard
import RemoteProtocol
import SystemIO

/// This machine's clipboard served to a remote pbctl, over the Unix socket `pbctl ssh` forwards: each
/// connection on a thread of its own with a backend of its own (what `auto` chooses here: Wayland, X11
/// or the store), for as long as the session lasts.
public final class RemoteServer: @unchecked Sendable {
    /// What the remote side may do.
    public struct Policy: Sendable {
        /// Read this clipboard (`--write-only` turns it off).
        public var canRead = true
        /// Change it (`--read-only` turns it off).
        public var canWrite = true
        /// Serve content marked sensitive (`--allow-sensitive`); else it is not there for the remote.
        public var allowSensitive = false
        public init() {}
    }

    /// The item a write makes of what arrived: the representations that travelled (the original first)
    /// completed with the ones produced from it here.
    public typealias MakeItem = @Sendable (_ received: [Representation], _ metadata: ItemMetadata) -> Item

    public let socketPath: String
    public let policy: Policy
    /// The remote host, as what it sends is marked (its file lists name it, its items are attributed to it).
    public let origin: ForeignContent.Origin
    /// The largest representation the remote may write here (the local `copy`'s limit).
    public var maximumSize = 1 << 30
    /// What this clipboard is, for the remote's `pbctl info`.
    public let place: String
    let open: @Sendable () throws -> any PasteboardBackend
    let makeItem: MakeItem
    /// Hears each write that landed (the history records it where nobody else does).
    let afterWrite: @Sendable (_ items: [Item], _ pasteboard: PasteboardName, _ backend: any PasteboardBackend, _ options: CopyOptions) -> Void
    let temporaryFolder: String
    let log: (@Sendable (String) -> Void)?
    /// Seconds the remote may take between the parts of one request (the next chunk of a write).
    public var stepTimeout: Double = 30
    private let listener: Int32
    private var wake: [Int32] = [-1, -1]

    /// Listens on `socketPath` (created 0600, refused if something is there).
    public init(
        socketPath: String, policy: Policy, origin: ForeignContent.Origin, place: String, temporaryFolder: String,
        log: (@Sendable (String) -> Void)?,
        open: @escaping @Sendable () throws -> any PasteboardBackend, makeItem: @escaping MakeItem,
        afterWrite: @escaping @Sendable ([Item], PasteboardName, any PasteboardBackend, CopyOptions) -> Void
    ) throws {
        self.socketPath = socketPath
        self.policy = policy
        self.origin = origin
        self.place = place
        self.open = open
        self.makeItem = makeItem
        self.afterWrite = afterWrite
        self.temporaryFolder = temporaryFolder
        self.log = log
        listener = try Self.listen(socketPath)
        guard pipe(&wake) == 0 else {
            close(listener)
            throw POSIX.ioError("pipe", socketPath)
        }
    }

    deinit {
        close(listener)
        for fd in wake where fd >= 0 { close(fd) }
    }

    static func listen(_ path: String) throws -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = path.pathBytes
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw PasteboardError(.io, "\(path.shownPath): too long for a socket") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIX.ioError("socket", path.shownPath) }
        let previous = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(previous)
        guard bound == 0, Glibc.listen(fd, 16) == 0 else {
            let error = POSIX.ioError("bind", path.shownPath)
            close(fd)
            throw error
        }
        return fd
    }

    /// Serves connections until ``stop()``.
    public func run() {
        while true {
            var pollers = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0)]
            let n = poll(&pollers, 2, -1)
            if n < 0, errno == EINTR { continue }
            if n < 0 || pollers[1].revents != 0 { return }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            let connection = RemoteConnection(fd: client)
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            DispatchQueue.global().async { [self] in self.serve(connection) }
        }
    }

    /// Ends ``run()`` (safe from any thread).
    public func stop() {
        var byte: UInt8 = 1
        _ = Glibc.write(wake[1], &byte, 1)
    }

    private func deadline() -> UInt64 { MonotonicClock.nanoseconds() + UInt64(stepTimeout * 1e9) }

    private func fail(_ connection: RemoteConnection, _ error: any Error) {
        let failure = error as? PasteboardError ?? PasteboardError(.io, "\(error)")
        try? connection.send(.failure(code: failure.code.wireValue, message: failure.message), deadline: deadline())
    }

    /// One connection: a greeting, then requests one after the other until the remote closes it.
    func serve(_ connection: RemoteConnection) {
        do {
            guard case .hello(let version) = try connection.receive(deadline: deadline()), version >= 1 else {
                throw PasteboardError(.refused, "a client that does not speak the pbctl ssh protocol")
            }
            try connection.send(
                .welcome(version: RemoteMessage.version, canRead: policy.canRead, canWrite: policy.canWrite, place: place), deadline: deadline())
            var backend: (any PasteboardBackend)?
            func local() throws -> any PasteboardBackend {
                if let backend { return backend }
                let opened = try open()
                backend = opened
                return opened
            }
            while true {
                // Between requests the remote may take its time (a shell that pastes now and then).
                let request: RemoteMessage
                do { request = try connection.receive(deadline: nil) } catch { return }
                do {
                    try handle(request, connection, local)
                } catch let error as PasteboardError where error.code == .corrupt || error.code == .timedOut {
                    fail(connection, error)
                    return
                } catch {
                    fail(connection, error)
                }
            }
        } catch {
            log?("remote: \(error)")
        }
    }

    private func refuse(_ what: String) -> PasteboardError {
        PasteboardError(.refused, "pbctl ssh was started \(what) (the remote may not \(what == "--read-only" ? "change" : "read") this clipboard)")
    }

    private func handle(_ request: RemoteMessage, _ connection: RemoteConnection, _ local: () throws -> any PasteboardBackend) throws {
        switch request {
        case .listItems(let name):
            guard policy.canRead else { throw refuse("--write-only") }
            let items = try local().items(in: try pasteboard(name)).filter(allowed)
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            try connection.send(.items(try encoder.encode(items)), deadline: deadline())
        case .read(let name, let index, let type):
            guard policy.canRead else { throw refuse("--write-only") }
            let pasteboard = try pasteboard(name)
            let backend = try local()
            let items = try backend.items(in: pasteboard)
            guard items.indices.contains(Int(index)) else { throw PasteboardError.empty(index == 0 ? "nothing to paste" : "there is no item \(index)") }
            guard allowed(items[Int(index)]) else { throw PasteboardError.empty("nothing to paste (the content is marked sensitive)") }
            let sink = RemoteSink(connection: connection, deadline: deadline)
            try backend.read(TypeIdentifier(type), item: Int(index), from: pasteboard, into: sink)
            try connection.send(.end, deadline: deadline())
        case .beginWrite(let name, let metadata, let options):
            try receiveWrite(name, metadata, options, connection, local)
        case .clear(let name):
            guard policy.canWrite else { throw refuse("--read-only") }
            try local().clear(try pasteboard(name))
            try connection.send(.done(value: 0), deadline: deadline())
        case .changeCount(let name):
            try connection.send(.done(value: Int64(try local().changeCount(of: try pasteboard(name)))), deadline: deadline())
        case .info:
            try connection.send(.infoReply(try JSONEncoder().encode(try local().info)), deadline: deadline())
        case .watch(let name):
            guard policy.canRead else { throw refuse("--write-only") }
            guard let watching = try local().watching else {
                throw PasteboardError(.unavailable, "\(place) reports no changes (no display: pbctl's store)")
            }
            let encoder = JSONEncoder()
            try watching.watch(try pasteboard(name)) { change in
                var shown = change
                if shown.sensitive, !policy.allowSensitive { shown.types = [] }
                do {
                    try connection.send(.change(try encoder.encode(shown)), deadline: deadline())
                    return true
                } catch {
                    return false  // the remote stopped watching
                }
            }
        default:
            throw PasteboardError(.corrupt, "a request out of turn")
        }
    }

    private func pasteboard(_ name: String) throws -> PasteboardName {
        guard let pasteboard = PasteboardName(name) else { throw PasteboardError(.invalidData, "'\(name)' is not a pasteboard name") }
        return pasteboard
    }

    private func allowed(_ item: ItemSummary) -> Bool { policy.allowSensitive || !item.metadata.flags.contains(.sensitive) }

    /// A write: every item and representation read in (each representation into an unnamed file, or
    /// straight into the store where the backend spools), then written at once. What the remote sends is
    /// checked as local input is (``ForeignContent``): a bad name or size refuses the whole write, whose
    /// remaining frames are read and dropped.
    private func receiveWrite(
        _ name: String, _ metadata: Data, _ options: Data, _ connection: RemoteConnection, _ local: () throws -> any PasteboardBackend
    ) throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var pending: [(metadata: ItemMetadata, options: RemoteCopyOptions, representations: [Representation])] = []
        var files: [Int32] = []
        defer { for fd in files { close(fd) } }
        var problem: PasteboardError? = policy.canWrite ? nil : refuse("--read-only")
        let pasteboard = try self.pasteboard(name)
        func begin(_ metadata: Data, _ options: Data) {
            var itemMetadata = (try? decoder.decode(ItemMetadata.self, from: metadata)) ?? ItemMetadata()
            let copyOptions = (try? decoder.decode(RemoteCopyOptions.self, from: options)) ?? RemoteCopyOptions()
            do {
                itemMetadata = try ForeignContent.admit(itemMetadata, arrived: Date())
                if let clearAfter = copyOptions.clearAfter, !(clearAfter.isFinite && (0...365 * 24 * 3600).contains(clearAfter)) {
                    throw PasteboardError(.invalidData, "a lifetime (clearAfter) out of range")
                }
            } catch let error as PasteboardError {
                problem = problem ?? PasteboardError(.invalidData, "the remote copy was refused: \(error.message)")
            } catch {}
            pending.append((itemMetadata, copyOptions, []))
        }
        begin(metadata, options)
        let spooling = problem == nil ? try? local().spooling : nil
        while true {
            switch try connection.receive(deadline: deadline()) {
            case .beginWrite(_, let metadata, let options):
                begin(metadata, options)
            case .beginRepresentation(let type, let derivedFrom):
                if problem == nil {
                    do {
                        try ForeignContent.checkType(type)
                        if let derivedFrom { try ForeignContent.checkType(derivedFrom) }
                        if pending[pending.count - 1].representations.count >= ForeignContent.maximumRepresentations {
                            throw PasteboardError(.invalidData, "more than \(ForeignContent.maximumRepresentations) representations")
                        }
                    } catch let error as PasteboardError {
                        problem = PasteboardError(.invalidData, "the remote copy was refused: \(error.message)")
                    }
                }
                let (fd, count) = try receiveStream(connection, keep: problem == nil)
                if problem == nil, count > maximumSize {
                    problem = PasteboardError(.invalidData, "the remote copy was refused: \(type) is larger than \(maximumSize) bytes")
                }
                guard problem == nil else {
                    if fd >= 0 { close(fd) }
                    continue
                }
                files.append(fd)
                var data = Data()
                if count > 0 {
                    if let spooling {
                        // Into the store as a copy from a file goes: moved in the kernel, linked into place.
                        lseek(fd, 0, SEEK_SET)
                        data = try spooling.spool(fd, name: "the remote copy", for: pasteboard, limit: 1 << 60, inspect: false).data
                    } else {
                        guard let map = mmap(nil, count, PROT_READ, MAP_SHARED, fd, 0), map != MAP_FAILED else {
                            throw POSIX.ioError("mmap", "the remote copy")
                        }
                        data = Data(bytesNoCopy: map, count: count, deallocator: .custom { pointer, size in munmap(pointer, size) })
                    }
                }
                pending[pending.count - 1].representations.append(
                    Representation(type: TypeIdentifier(type), data: data, derivedFrom: derivedFrom.map { TypeIdentifier($0) }))
            case .endWrite:
                if let problem { throw problem }
                let items = try pending.map {
                    try ForeignContent.admit(makeItem($0.representations, $0.metadata), from: origin, arrived: Date())
                }.filter { !$0.representations.isEmpty }
                var copy = CopyOptions()
                copy.pasteOnce = pending.first?.options.pasteOnce ?? false
                copy.clearAfter = pending.first?.options.clearAfter
                let backend = try local()
                let count = try backend.write(items, to: pasteboard, options: copy)
                afterWrite(items, pasteboard, backend, copy)
                try connection.send(.done(value: Int64(count)), deadline: deadline())
                return
            default:
                throw PasteboardError(.corrupt, "a write out of turn")
            }
        }
    }

    /// One representation's chunks until its end, into an unnamed file (or nowhere when `keep` is
    /// false): the file and the byte count.
    private func receiveStream(_ connection: RemoteConnection, keep: Bool) throws -> (Int32, Int) {
        var fd: Int32 = -1
        if keep {
            let directory = PathCalls.open(temporaryFolder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard directory >= 0 else { throw POSIX.ioError("open", temporaryFolder.shownPath) }
            fd = csystem_open_unnamed(directory, 0o600)
            close(directory)
            guard fd >= 0 else { throw POSIX.ioError("open", "\(temporaryFolder.shownPath) (an unnamed file)") }
        }
        var count = 0
        do {
            while true {
                switch try connection.receive(deadline: deadline()) {
                case .chunk(let data):
                    count += data.count
                    if fd >= 0, count > maximumSize {
                        // Over the limit: the rest is read and dropped, the write refused at its end.
                        close(fd)
                        fd = -1
                    }
                    if fd >= 0 { try POSIX.writeAll(fd, data, path: "\(temporaryFolder.shownPath) (the remote copy)") }
                case .end:
                    return (fd, count)
                default:
                    throw PasteboardError(.corrupt, "a representation out of turn")
                }
            }
        } catch {
            if fd >= 0 { close(fd) }
            throw error
        }
    }
}

/// A paste streamed to the remote: chunk frames, moved by the kernel where the source is a file.
final class RemoteSink: RepresentationSink {
    let connection: RemoteConnection
    let deadline: () -> UInt64

    init(connection: RemoteConnection, deadline: @escaping () -> UInt64) {
        self.connection = connection
        self.deadline = deadline
    }

    func write(_ chunk: Data) throws { try connection.sendChunks(chunk, deadline: deadline) }

    func transfer(fromFile descriptor: Int32, offset: Int, count: Int) throws -> Bool {
        try connection.sendChunks(fromFile: descriptor, offset: offset, count: count, deadline: deadline)
        return true
    }
}
