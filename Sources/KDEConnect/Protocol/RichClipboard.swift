#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// pbctl's extension to KDE Connect, for peers whose identity lists `pbctl.clipboard` in both
/// capability lists: a clipboard item with every representation (Markdown with its HTML and RTF,
/// images, file lists), inside the link. `pbctl.clipboard` declares the transfer (its number, when the
/// content changed, whether it is the on-connect exchange, each representation's type, the type it was
/// derived from and its size); `pbctl.clipboard.chunk` packets carry the bytes in order, base64, at most
/// ``chunkSize`` each; `pbctl.clipboard.end` closes it. A KDE Connect peer never sees these (it gets
/// `kdeconnect.clipboard` with the text), and ignores them if it did.
public enum RichClipboard {
    /// Bytes a chunk carries before base64.
    public static let chunkSize = 256 << 10
    /// Representations in one item.
    public static let maximumRepresentations = 64
    /// The longest type identifier.
    public static let maximumTypeLength = 256

    /// One representation to send or received.
    public struct Part: Equatable, Sendable {
        public var type: String
        public var derivedFrom: String?
        public var size: Int

        public init(type: String, derivedFrom: String?, size: Int) {
            self.type = type
            self.derivedFrom = derivedFrom
            self.size = size
        }
    }

    /// A declared transfer.
    public struct Header: Equatable, Sendable {
        public var transfer: Int64
        /// When the content changed on the sender (milliseconds since 1970).
        public var changed: Int64
        /// The exchange on connect (newest wins) rather than a change.
        public var onConnect: Bool
        public var parts: [Part]

        public init(transfer: Int64, changed: Int64, onConnect: Bool, parts: [Part]) {
            self.transfer = transfer
            self.changed = changed
            self.onConnect = onConnect
            self.parts = parts
        }

        public func packet(now: Int64) -> NetworkPacket {
            let parts = parts.map { part -> JSONValue in
                var members: [(String, JSONValue)] = [("type", .string(part.type)), ("size", .integer(Int64(part.size)))]
                if let derivedFrom = part.derivedFrom { members.append(("derivedFrom", .string(derivedFrom))) }
                return .object(members)
            }
            return NetworkPacket(
                type: PacketType.richClipboard,
                body: [("transfer", .integer(transfer)), ("timestamp", .integer(changed)), ("connect", .bool(onConnect)), ("representations", .array(parts))],
                now: now)
        }
    }

    static func validType(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= maximumTypeLength && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// The header a packet declares, validated against `maximumTotal` bytes for the whole item.
    public static func header(_ packet: NetworkPacket, maximumTotal: Int) throws -> Header {
        let body = packet.body
        guard let transfer = body["transfer"]?.integer, let list = body["representations"]?.array else {
            throw PacketError("pbctl.clipboard: no transfer or representations")
        }
        guard !list.isEmpty, list.count <= maximumRepresentations else {
            throw PacketError("pbctl.clipboard: 1 to \(maximumRepresentations) representations")
        }
        var parts: [Part] = []
        var total = 0
        for value in list {
            guard let type = value["type"]?.string, validType(type), let size = value["size"]?.integer, size >= 0, size <= Int64(maximumTotal) else {
                throw PacketError("pbctl.clipboard: a representation without a valid type and size")
            }
            let derivedFrom = value["derivedFrom"]?.string
            if let derivedFrom, !validType(derivedFrom) { throw PacketError("pbctl.clipboard: a bad derivedFrom") }
            total += Int(size)
            guard total <= maximumTotal else { throw PacketError("pbctl.clipboard: over \(maximumTotal) bytes in all") }
            parts.append(Part(type: type, derivedFrom: derivedFrom, size: Int(size)))
        }
        let changed = max(0, body["timestamp"]?.integer ?? 0)
        return Header(transfer: transfer, changed: changed, onConnect: body["connect"]?.bool ?? false, parts: parts)
    }

    public static func chunk(transfer: Int64, part: Int, bytes: Data, now: Int64) -> NetworkPacket {
        NetworkPacket(
            type: PacketType.richChunk,
            body: [("transfer", .integer(transfer)), ("index", .integer(Int64(part))), ("data", .string(bytes.base64EncodedString()))], now: now)
    }

    public static func end(transfer: Int64, now: Int64) -> NetworkPacket {
        NetworkPacket(type: PacketType.richEnd, body: [("transfer", .integer(transfer))], now: now)
    }
}

/// Sends one item: the header, then each representation's chunks, then the end, one packet at a time
/// as the link has room, so only one chunk is ever encoded at once.
public struct RichClipboardSender: Sendable {
    public let header: RichClipboard.Header
    private let contents: [Data]
    private var part = 0
    private var offset = 0
    private var headerSent = false
    public private(set) var finished = false

    public init(transfer: Int64, changed: Int64, onConnect: Bool, representations: [(type: String, derivedFrom: String?, data: Data)]) {
        header = RichClipboard.Header(
            transfer: transfer, changed: changed, onConnect: onConnect,
            parts: representations.map { RichClipboard.Part(type: $0.type, derivedFrom: $0.derivedFrom, size: $0.data.count) })
        contents = representations.map(\.data)
    }

    /// The next packet, nil once the end was given.
    public mutating func next(now: Int64) -> NetworkPacket? {
        if finished { return nil }
        if !headerSent {
            headerSent = true
            return header.packet(now: now)
        }
        while part < contents.count, offset >= contents[part].count {
            part += 1
            offset = 0
        }
        guard part < contents.count else {
            finished = true
            return RichClipboard.end(transfer: header.transfer, now: now)
        }
        let data = contents[part]
        let upper = min(data.count, offset + RichClipboard.chunkSize)
        let bytes = data.subdata(in: data.startIndex + offset..<data.startIndex + upper)
        offset = upper
        return RichClipboard.chunk(transfer: header.transfer, part: part, bytes: bytes, now: now)
    }
}

/// Receives items from one peer: checks each packet against the declared transfer (its number, the
/// representations in order, no byte past a declared size, every size met at the end) and hands the
/// bytes on as they come, so the service can spool them instead of holding them. A new header
/// abandons a transfer still open (the newer content wins).
public struct RichClipboardReceiver: Sendable {
    public enum Output: Equatable, Sendable {
        case started(RichClipboard.Header)
        case bytes(part: Int, Data)
        case finished(RichClipboard.Header)
        /// The open transfer is dropped, with why.
        case abandoned(String)
    }

    public let maximumTotal: Int
    public private(set) var open: RichClipboard.Header?
    private var received: [Int] = []
    private var part = 0

    public init(maximumTotal: Int) { self.maximumTotal = maximumTotal }

    public mutating func handle(_ packet: NetworkPacket) -> [Output] {
        switch packet.type {
        case PacketType.richClipboard:
            var outputs: [Output] = []
            if open != nil { outputs.append(.abandoned("a newer transfer began")) }
            open = nil
            do {
                let header = try RichClipboard.header(packet, maximumTotal: maximumTotal)
                open = header
                received = Array(repeating: 0, count: header.parts.count)
                part = 0
                outputs.append(.started(header))
            } catch {
                outputs.append(.abandoned("\(error)"))
            }
            return outputs
        case PacketType.richChunk:
            guard let header = open else { return [] }
            guard packet.body["transfer"]?.integer == header.transfer, let index = packet.body["index"]?.integer,
                let text = packet.body["data"]?.string
            else { return abandon("a chunk of another transfer, or without data") }
            guard Int64(part) <= index, index < Int64(header.parts.count) else { return abandon("a chunk out of order") }
            guard let bytes = Data(base64Encoded: text), !bytes.isEmpty else { return abandon("a chunk that is not base64") }
            let position = Int(index)
            // Earlier parts are complete once a later one starts.
            for earlier in part..<position where received[earlier] != header.parts[earlier].size {
                return abandon("representation \(earlier) ended short")
            }
            part = position
            guard received[position] + bytes.count <= header.parts[position].size else { return abandon("more bytes than declared") }
            received[position] += bytes.count
            return [.bytes(part: position, bytes)]
        case PacketType.richEnd:
            guard let header = open else { return [] }
            guard packet.body["transfer"]?.integer == header.transfer else { return abandon("the end of another transfer") }
            guard received == header.parts.map(\.size) else { return abandon("a transfer ended short") }
            open = nil
            return [.finished(header)]
        default:
            return []
        }
    }

    private mutating func abandon(_ why: String) -> [Output] {
        open = nil
        return [.abandoned(why)]
    }
}
