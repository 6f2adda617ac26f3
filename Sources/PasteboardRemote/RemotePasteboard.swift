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
import RemoteProtocol
import SystemIO

/// The clipboard of the machine `pbctl ssh` came from, as a ``PasteboardBackend``: what a remote pbctl
/// uses when `PBCTL_REMOTE` names the socket that session forwards. Every representation travels both
/// ways; large ones stream in chunks (memory stays flat: input is spooled to an unnamed file and sent
/// from it by the kernel; pastes are written out chunk by chunk).
public final class RemotePasteboard: PasteboardBackend, @unchecked Sendable {
    public let path: String
    /// What the other side said of itself.
    public let place: String
    public let canRead: Bool
    public let canWrite: Bool
    /// Seconds each step may take (a reply, the next chunk).
    public let stepTimeout: Double
    /// Where spooled input goes (`$TMPDIR`, else /tmp).
    public let temporaryFolder: String
    /// The machine at the other end, as what it sends is marked (its file lists name it).
    public var origin = ForeignContent.Origin(host: "pbctl-ssh-origin", label: "pbctl ssh")
    /// The sizes the last listing announced, by pasteboard, item and type: a read gets no byte more.
    private var announced: [String: Int] = [:]
    private let connection: RemoteConnection
    /// Input spooled by ``spool(_:name:for:limit:inspect:)``: the file, and its bytes' address and count.
    private var spools: [(fd: Int32, base: UnsafeRawPointer?, count: Int)] = []

    /// Connects to the socket at `path` and greets the other side, within `timeout` seconds.
    /// - Throws: ``PasteboardError`` `.unavailable` or `.timedOut` when nothing answers in time.
    public init(path: String, timeout: Double = 1, stepTimeout: Double = 5, temporaryFolder: String = "/tmp") throws {
        self.path = path
        self.stepTimeout = stepTimeout
        self.temporaryFolder = temporaryFolder
        connection = try RemoteConnection.connect(path: path, timeout: timeout)
        let deadline = MonotonicClock.nanoseconds() + UInt64(timeout * 1e9)
        try connection.send(.hello(version: RemoteMessage.version), deadline: deadline)
        switch try connection.receive(deadline: deadline) {
        case .welcome(let version, let canRead, let canWrite, let place) where version >= 1:
            self.place = place
            self.canRead = canRead
            self.canWrite = canWrite
        case .failure(let code, let message):
            throw PasteboardError(PasteboardError.Code(wireValue: code), message)
        default:
            throw PasteboardError(.unavailable, "\(path): not a pbctl ssh socket")
        }
    }

    deinit {
        for spool in spools { close(spool.fd) }
    }

    private func deadline() -> UInt64 { MonotonicClock.nanoseconds() + UInt64(stepTimeout * 1e9) }

    /// The reply to a request: `done`'s value, or the failure thrown.
    private func expectDone() throws -> Int64 {
        switch try connection.receive(deadline: deadline()) {
        case .done(let value): return value
        case .failure(let code, let message): throw PasteboardError(PasteboardError.Code(wireValue: code), message)
        default: throw PasteboardError(.corrupt, "the pbctl at the other end answered out of turn")
        }
    }

    // MARK: PasteboardBackend

    public var info: BackendInfo { BackendInfo(name: "remote", detail: "\(path) (pbctl ssh: \(place))") }

    @discardableResult
    public func write(_ items: [Item], to pasteboard: PasteboardName, options: CopyOptions) throws -> Int {
        guard let first = items.first else {
            try clear(pasteboard)
            return 0
        }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let travelling = RemoteCopyOptions(pasteOnce: options.pasteOnce, clearAfter: options.clearAfter)
        for item in items.isEmpty ? [first] : items {
            try connection.send(
                .beginWrite(pasteboard: pasteboard.rawValue, metadata: try encoder.encode(item.metadata), options: try encoder.encode(travelling)),
                deadline: deadline())
            var sent: [(UnsafeRawPointer?, Int)] = []
            for representation in item.representations {
                // Produced on the other side, where the converters are: the original travels, the rest is
                // derived there again; bytes already sent (a Markdown copy's plain text is its source)
                // are not sent twice.
                if representation.derivedFrom != nil, case .promised = representation.content { continue }
                if representation.derivedFrom != nil, case .data(let data) = representation.content,
                    sent.contains(where: { $0.0 != nil && $0.0 == data.withUnsafeBytes { $0.baseAddress } && $0.1 == data.count })
                {
                    continue
                }
                try connection.send(
                    .beginRepresentation(type: representation.type.rawValue, derivedFrom: representation.derivedFrom?.rawValue),
                    deadline: deadline())
                let data = try representation.data()
                sent.append((data.withUnsafeBytes { $0.baseAddress }, data.count))
                if let spool = spool(holding: data) {
                    try connection.sendChunks(fromFile: spool.fd, offset: 0, count: spool.count, deadline: deadline)
                } else {
                    try connection.sendChunks(data, deadline: deadline)
                }
                try connection.send(.end, deadline: deadline())
            }
        }
        try connection.send(.endWrite, deadline: deadline())
        return Int(try expectDone())
    }

    public func items(in pasteboard: PasteboardName) throws -> [ItemSummary] {
        try connection.send(.listItems(pasteboard: pasteboard.rawValue), deadline: deadline())
        switch try connection.receive(deadline: deadline()) {
        case .items(let json):
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            guard let listed = try? decoder.decode([ItemSummary].self, from: json), listed.count <= 1024 else {
                throw PasteboardError(.corrupt, "the pbctl at the other end sent a damaged listing")
            }
            // Checked as local input is: a name a terminal would obey is refused, not listed.
            let items: [ItemSummary]
            do {
                items = try listed.map { try ForeignContent.admit($0, arrived: Date()) }
            } catch let error as PasteboardError {
                throw PasteboardError(.corrupt, "the pbctl at the other end sent a listing that is refused: \(error.message)")
            }
            for (index, item) in items.enumerated() {
                for type in item.types { announced[key(pasteboard, index, type.type)] = type.size }
            }
            return items
        case .failure(let code, let message):
            throw PasteboardError(PasteboardError.Code(wireValue: code), message)
        default:
            throw PasteboardError(.corrupt, "the pbctl at the other end answered out of turn")
        }
    }

    public func read(_ type: TypeIdentifier, item index: Int, from pasteboard: PasteboardName) throws -> Data {
        let sink = DataSink()
        try read(type, item: index, from: pasteboard, into: sink)
        return sink.data
    }

    private func key(_ pasteboard: PasteboardName, _ index: Int, _ type: TypeIdentifier) -> String {
        "\(pasteboard.rawValue)\u{0}\(index)\u{0}\(type.rawValue)"
    }

    /// The largest file list taken from the other side (read whole, to mark its files as the other machine's).
    static let maximumFileList = 16 << 20

    /// Streams one representation into `sink`: no byte past the size the listing announced (a peer that
    /// sends more is cut off, `.corrupt`); a file list read whole and marked as the other machine's.
    public func read(_ type: TypeIdentifier, item index: Int, from pasteboard: PasteboardName, into sink: any RepresentationSink) throws {
        try connection.send(.read(pasteboard: pasteboard.rawValue, item: UInt32(clamping: index), type: type.rawValue), deadline: deadline())
        let fileList = ForeignContent.isFileList(type)
        let limit = fileList ? min(announced[key(pasteboard, index, type)] ?? Self.maximumFileList, Self.maximumFileList)
            : announced[key(pasteboard, index, type)]
        var received = 0
        var list = Data()
        while true {
            switch try connection.receive(deadline: deadline()) {
            case .chunk(let data):
                received += data.count
                if let limit, received > limit {
                    throw PasteboardError(
                        .corrupt, "the pbctl at the other end sent more of \(type) than the \(limit) bytes it announced; the paste is cut off")
                }
                if fileList { list.append(data) } else { try sink.write(data) }
            case .end:
                if fileList { try sink.write(ForeignContent.markFileList(list, type: type, host: origin.host)) }
                return
            case .failure(let code, let message): throw PasteboardError(PasteboardError.Code(wireValue: code), message)
            default: throw PasteboardError(.corrupt, "the pbctl at the other end answered out of turn")
            }
        }
    }

    public func clear(_ pasteboard: PasteboardName) throws {
        try connection.send(.clear(pasteboard: pasteboard.rawValue), deadline: deadline())
        _ = try expectDone()
    }

    public func changeCount(of pasteboard: PasteboardName) throws -> Int {
        try connection.send(.changeCount(pasteboard: pasteboard.rawValue), deadline: deadline())
        return Int(try expectDone())
    }

    /// A change of the other side's clipboard reaches whatever keeps its history there: a copy from
    /// here is recorded by the other side, not by this one.
    public var changesReachDaemons: Bool { true }
}

extension RemotePasteboard: PasteboardWatching {
    /// Changes of the other side's clipboard as they happen (its own watch, relayed): waits without a
    /// deadline, as every watch does, until `body` says stop or the session ends.
    public func watch(_ pasteboard: PasteboardName, _ body: (PasteboardChange) throws -> Bool) throws {
        try connection.send(.watch(pasteboard: pasteboard.rawValue), deadline: deadline())
        let decoder = JSONDecoder()
        while true {
            switch try connection.receive(deadline: nil) {
            case .change(let json):
                guard let change = try? decoder.decode(PasteboardChange.self, from: json), change.types.count <= ForeignContent.maximumRepresentations,
                    (try? change.types.forEach { try ForeignContent.checkType($0.rawValue) }) != nil,
                    (try? change.owner.map { try ForeignContent.checkText($0, "an owner") }) != nil
                else {
                    throw PasteboardError(.corrupt, "the pbctl at the other end sent a damaged change")
                }
                if try !body(change) { return }
            case .failure(let code, let message):
                throw PasteboardError(PasteboardError.Code(wireValue: code), message)
            default:
                throw PasteboardError(.corrupt, "the pbctl at the other end answered out of turn")
            }
        }
    }
}

extension RemotePasteboard: InputSpooling {
    /// Streams the input into an unnamed temporary file (`$TMPDIR`, else /tmp) and maps it: a large copy
    /// holds a buffer, not its size, and ``write(_:to:options:)`` sends it from the file.
    public func spool(_ input: Int32, name: String, for pasteboard: PasteboardName, limit: Int, inspect: Bool) throws -> SpooledInput {
        let folder = temporaryFolder
        let directory = PathCalls.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw POSIX.ioError("open", folder.shownPath) }
        let fd = csystem_open_unnamed(directory, 0o600)
        close(directory)
        guard fd >= 0 else { throw POSIX.ioError("open", "\(folder.shownPath) (an unnamed file)") }
        var head = Data()
        var validator = UTF8StreamValidator()
        let count: Int
        do {
            count = try POSIX.transfer(from: input, name: name, to: fd, path: folder.shownPath, limit: limit, inspect: inspect) { chunk in
                if head.count < 4096 { head.append(contentsOf: chunk.prefix(4096 - head.count)) }
                validator.feed(chunk)
            }
        } catch {
            close(fd)
            throw error
        }
        var data = Data()
        if count > 0 {
            guard let map = mmap(nil, count, PROT_READ, MAP_SHARED, fd, 0), map != MAP_FAILED else {
                close(fd)
                throw POSIX.ioError("mmap", name)
            }
            data = Data(bytesNoCopy: map, count: count, deallocator: .custom { pointer, size in munmap(pointer, size) })
            if !inspect {
                // Only the first page is touched, for sniffing.
                head = Data(data.prefix(4096))
            }
        }
        spools.append((fd, data.withUnsafeBytes { $0.baseAddress }, count))
        return SpooledInput(data: data, head: head, inspected: inspect, firstInvalidUTF8Offset: inspect ? validator.finish() : nil)
    }

    /// The spool whose mapping `data` is (the same bytes in memory).
    private func spool(holding data: Data) -> (fd: Int32, count: Int)? {
        guard !data.isEmpty else { return nil }
        let base = data.withUnsafeBytes { $0.baseAddress }
        return spools.first { $0.base != nil && $0.base == base && $0.count == data.count }.map { ($0.fd, $0.count) }
    }
}
