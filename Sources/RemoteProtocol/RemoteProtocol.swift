#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// The protocol `pbctl ssh` speaks over the Unix socket it forwards to the remote host: the remote
/// pbctl (the client) asks this machine's pbctl (the server) to list, read, write, clear and watch its
/// clipboard. Pure: bytes in, messages out, and back (docs/remote-protocol.md describes it).
///
/// A message is a frame: a 32-bit little-endian length (of everything after it), a one-byte tag, then
/// the tag's fields: integers little-endian, strings as a 32-bit length and UTF-8 bytes, an optional
/// string as a presence byte then the string; a chunk's bytes run to the end of its frame. Data
/// streams (a representation either way) are chunks of at most ``maximumChunk`` bytes closed by
/// ``RemoteMessage/end``. Every length is checked against the frame before it is used.
public enum RemoteMessage: Equatable, Sendable {
    // Client to server.
    /// The first message: the protocol version the client speaks.
    case hello(version: UInt16)
    case listItems(pasteboard: String)
    case read(pasteboard: String, item: UInt32, type: String)
    /// A write: then, per representation, ``beginRepresentation(type:derivedFrom:)``, its chunks and
    /// ``end``; then ``endWrite``. `metadata` is the item's ``ItemMetadata`` as JSON; `options` the
    /// copy's options as JSON (``RemoteCopyOptions``).
    case beginWrite(pasteboard: String, metadata: Data, options: Data)
    case beginRepresentation(type: String, derivedFrom: String?)
    case endWrite
    case clear(pasteboard: String)
    case changeCount(pasteboard: String)
    case info
    /// Watch for changes: the server answers ``change(_:)`` for each until the connection closes.
    case watch(pasteboard: String)

    // Both ways.
    case chunk(Data)
    /// The end of a data stream.
    case end

    // Server to client.
    /// The answer to ``hello(version:)``: the version both speak, what the client may do, and what the
    /// server's clipboard is (for `pbctl info`).
    case welcome(version: UInt16, canRead: Bool, canWrite: Bool, place: String)
    /// ``listItems(pasteboard:)``'s answer: `[ItemSummary]` as JSON.
    case items(Data)
    /// Success, with a number (a change count) where the request has one.
    case done(value: Int64)
    /// A failure: ``PasteboardError/Code`` as a byte, and its message.
    case failure(code: UInt8, message: String)
    /// A change seen by ``watch(pasteboard:)``: ``PasteboardChange`` as JSON.
    case change(Data)
    /// ``info``'s answer: ``BackendInfo`` as JSON.
    case infoReply(Data)

    /// The version this code speaks.
    public static let version: UInt16 = 1
    /// The largest chunk of a data stream.
    public static let maximumChunk = 1 << 20
    /// The largest frame accepted (a chunk with its header, or a JSON listing).
    public static let maximumFrame = 8 << 20
    /// The longest string field.
    public static let maximumString = 64 << 10

    enum Tag: UInt8 {
        case hello = 1, listItems, read, beginWrite, beginRepresentation, endWrite, clear, changeCount, info, watch
        case chunk = 32, end
        case welcome = 64, items, done, failure, change, infoReply
    }

    /// The frame's bytes.
    public func encoded() -> [UInt8] {
        var body = Writer()
        switch self {
        case .hello(let version): body.tag(.hello); body.u16(version)
        case .listItems(let pasteboard): body.tag(.listItems); body.string(pasteboard)
        case .read(let pasteboard, let item, let type): body.tag(.read); body.string(pasteboard); body.u32(item); body.string(type)
        case .beginWrite(let pasteboard, let metadata, let options):
            body.tag(.beginWrite); body.string(pasteboard); body.data(metadata); body.data(options)
        case .beginRepresentation(let type, let derivedFrom):
            body.tag(.beginRepresentation); body.string(type); body.optionalString(derivedFrom)
        case .endWrite: body.tag(.endWrite)
        case .clear(let pasteboard): body.tag(.clear); body.string(pasteboard)
        case .changeCount(let pasteboard): body.tag(.changeCount); body.string(pasteboard)
        case .info: body.tag(.info)
        case .watch(let pasteboard): body.tag(.watch); body.string(pasteboard)
        case .chunk(let data): body.tag(.chunk); body.bytes += data
        case .end: body.tag(.end)
        case .welcome(let version, let canRead, let canWrite, let place):
            body.tag(.welcome); body.u16(version); body.bytes.append((canRead ? 1 : 0) | (canWrite ? 2 : 0)); body.string(place)
        case .items(let json): body.tag(.items); body.data(json)
        case .done(let value): body.tag(.done); body.u64(UInt64(bitPattern: value))
        case .failure(let code, let message): body.tag(.failure); body.bytes.append(code); body.string(message)
        case .change(let json): body.tag(.change); body.data(json)
        case .infoReply(let json): body.tag(.infoReply); body.data(json)
        }
        return Self.frame(body.bytes)
    }

    /// The header of a chunk frame of `count` bytes, for a sender that moves the bytes themselves
    /// without copying them (`sendfile`, `splice`).
    public static func chunkHeader(count: Int) -> [UInt8] {
        var header = Writer()
        header.u32(UInt32(count + 1))
        header.tag(.chunk)
        return header.bytes
    }

    static func frame(_ body: [UInt8]) -> [UInt8] {
        var out = Writer()
        out.u32(UInt32(body.count))
        out.bytes += body
        return out.bytes
    }

    struct Writer {
        var bytes: [UInt8] = []
        mutating func tag(_ tag: Tag) { bytes.append(tag.rawValue) }
        mutating func u16(_ v: UInt16) { bytes += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        mutating func u32(_ v: UInt32) { for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8((v >> UInt32(shift)) & 0xFF)) } }
        mutating func u64(_ v: UInt64) { for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8((v >> UInt64(shift)) & 0xFF)) } }
        mutating func string(_ s: String) { data(Data(s.utf8)) }
        mutating func data(_ d: Data) {
            u32(UInt32(d.count))
            bytes += d
        }
        mutating func optionalString(_ s: String?) {
            if let s {
                bytes.append(1)
                string(s)
            } else {
                bytes.append(0)
            }
        }
    }
}

/// A malformed frame: the connection cannot be trusted any more.
public struct RemoteProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Reads messages from bytes as they arrive: ``feed(_:)`` takes what the socket gave, ``next()``
/// returns each whole message. Every call either returns a message, consumes nothing (a frame is not
/// whole yet), or throws on a malformed frame; a frame's length is checked before it is waited for.
public struct RemoteFrameReader: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0

    public init() {}

    /// Bytes waiting to be read as messages.
    public var pending: Int { buffer.count - start }

    public mutating func feed<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    public mutating func next() throws -> RemoteMessage? {
        guard pending >= 4 else { return nil }
        let length = Int(buffer[start]) | Int(buffer[start + 1]) << 8 | Int(buffer[start + 2]) << 16 | Int(buffer[start + 3]) << 24
        guard length >= 1, length <= RemoteMessage.maximumFrame else { throw RemoteProtocolError("a frame of \(length) bytes") }
        guard pending >= 4 + length else { return nil }
        let body = buffer[(start + 4)..<(start + 4 + length)]
        start += 4 + length
        return try Self.decode(body)
    }

    /// One frame's body (its tag and fields) as a message.
    static func decode(_ body: ArraySlice<UInt8>) throws -> RemoteMessage {
        var reader = Reader(bytes: body)
        guard let tag = RemoteMessage.Tag(rawValue: try reader.u8()) else { throw RemoteProtocolError("an unknown message") }
        let message: RemoteMessage
        switch tag {
        case .hello: message = .hello(version: try reader.u16())
        case .listItems: message = .listItems(pasteboard: try reader.string())
        case .read: message = .read(pasteboard: try reader.string(), item: try reader.u32(), type: try reader.string())
        case .beginWrite: message = .beginWrite(pasteboard: try reader.string(), metadata: try reader.data(), options: try reader.data())
        case .beginRepresentation: message = .beginRepresentation(type: try reader.string(), derivedFrom: try reader.optionalString())
        case .endWrite: message = .endWrite
        case .clear: message = .clear(pasteboard: try reader.string())
        case .changeCount: message = .changeCount(pasteboard: try reader.string())
        case .info: message = .info
        case .watch: message = .watch(pasteboard: try reader.string())
        case .chunk:
            guard reader.remaining <= RemoteMessage.maximumChunk else { throw RemoteProtocolError("a chunk of \(reader.remaining) bytes") }
            message = .chunk(Data(reader.rest()))
        case .end: message = .end
        case .welcome:
            let version = try reader.u16()
            let flags = try reader.u8()
            message = .welcome(version: version, canRead: flags & 1 != 0, canWrite: flags & 2 != 0, place: try reader.string())
        case .items: message = .items(try reader.data())
        case .done: message = .done(value: Int64(bitPattern: try reader.u64()))
        case .failure: message = .failure(code: try reader.u8(), message: try reader.string())
        case .change: message = .change(try reader.data())
        case .infoReply: message = .infoReply(try reader.data())
        }
        guard reader.remaining == 0 else { throw RemoteProtocolError("\(reader.remaining) bytes after a message") }
        return message
    }

    struct Reader {
        var bytes: ArraySlice<UInt8>
        var remaining: Int { bytes.count }

        mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
            guard count >= 0, count <= bytes.count else { throw RemoteProtocolError("a field runs past its frame") }
            let part = bytes.prefix(count)
            bytes = bytes.dropFirst(count)
            return part
        }
        mutating func u8() throws -> UInt8 { try take(1).first! }
        mutating func u16() throws -> UInt16 {
            let b = Array(try take(2))
            return UInt16(b[0]) | UInt16(b[1]) << 8
        }
        mutating func u32() throws -> UInt32 {
            try take(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
        mutating func u64() throws -> UInt64 {
            try take(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
        mutating func data() throws -> Data { Data(try take(Int(try u32()))) }
        mutating func string() throws -> String {
            let length = Int(try u32())
            guard length <= RemoteMessage.maximumString else { throw RemoteProtocolError("a string of \(length) bytes") }
            guard let text = String(validating: try take(length), as: UTF8.self) else { throw RemoteProtocolError("a string that is not UTF-8") }
            return text
        }
        mutating func optionalString() throws -> String? {
            switch try u8() {
            case 0: return nil
            case 1: return try string()
            default: throw RemoteProtocolError("a bad presence byte")
            }
        }
        mutating func rest() -> ArraySlice<UInt8> {
            let all = bytes
            bytes = bytes.suffix(0)
            return all
        }
    }
}

/// The copy options that travel with a remote write.
public struct RemoteCopyOptions: Codable, Sendable, Equatable {
    public var pasteOnce = false
    public var clearAfter: Double?

    public init(pasteOnce: Bool = false, clearAfter: Double? = nil) {
        self.pasteOnce = pasteOnce
        self.clearAfter = clearAfter
    }
}

extension PasteboardError.Code {
    /// The code as a byte on the wire, and back (an unknown byte reads as `.io`).
    public var wireValue: UInt8 {
        switch self {
        case .empty: return 1
        case .typeNotOffered: return 2
        case .invalidData: return 3
        case .unavailable: return 4
        case .io: return 5
        case .corrupt: return 6
        case .refused: return 7
        case .timedOut: return 8
        case .noInput: return 9
        }
    }

    public init(wireValue: UInt8) {
        let all: [PasteboardError.Code] = [.empty, .typeNotOffered, .invalidData, .unavailable, .io, .corrupt, .refused, .timedOut, .noInput]
        self = all.first { $0.wireValue == wireValue } ?? .io
    }
}
