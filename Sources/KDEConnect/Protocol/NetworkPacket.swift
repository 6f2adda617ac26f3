#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// One KDE Connect packet: a JSON object on one line, `{"id": N, "type": "kdeconnect.…", "body": {…}}`,
/// optionally with `payloadSize` and `payloadTransferInfo` (pbctl neither sends nor accepts payloads
/// on separate sockets: its own extension carries data inside the link, ``RichClipboard``).
/// Every packet read is checked here before anything uses it: the size of its line, that it is an
/// object with a string type and an object body, the id an integer (or digits, as KDE Connect 22.12
/// writes it).
public struct NetworkPacket: Equatable, Sendable {
    public var id: Int64
    public var type: String
    public var body: JSONValue

    /// The longest line a link takes: a chunk of pbctl's extension (``RichClipboard/chunkSize`` bytes
    /// in base64) with room to spare; a KDE Connect clipboard packet carries text up to this too.
    public static let maximumSize = 4 << 20
    /// The longest identity packet (KDE Connect refuses one over 8192 bytes too).
    public static let maximumIdentitySize = 8192
    /// The longest type name.
    public static let maximumTypeLength = 128

    public init(id: Int64, type: String, body: JSONValue) {
        self.id = id
        self.type = type
        self.body = body
    }

    public init(type: String, body: [(String, JSONValue)], now milliseconds: Int64) {
        self.init(id: milliseconds, type: type, body: .object(body))
    }

    /// The packet as a line: compact JSON and a newline.
    public func encoded() -> [UInt8] {
        var line = JSONValue.object([("id", .integer(id)), ("type", .string(type)), ("body", body)]).encoded()
        line.append(0x0A)
        return line
    }

    /// Reads one packet from a line (its newline optional), at most `maximumSize` bytes.
    /// - Throws: ``PacketError`` saying what is wrong.
    public static func decode(_ line: some Collection<UInt8>, maximumSize: Int = NetworkPacket.maximumSize) throws -> NetworkPacket {
        guard line.count <= maximumSize else { throw PacketError("a packet over \(maximumSize) bytes") }
        let value: JSONValue
        do {
            value = try JSONValue.parse(Array(line), limits: JSONLimits.packet(maximumBytes: maximumSize))
        } catch let error as JSONError {
            throw PacketError("not JSON: \(error)")
        }
        guard case .object = value else { throw PacketError("not a JSON object") }
        guard let type = value["type"]?.string, !type.isEmpty, type.utf8.count <= maximumTypeLength,
            type.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { throw PacketError("no packet type") }
        guard let body = value["body"], case .object = body else { throw PacketError("\(type): no body object") }
        let id = value["id"]?.integer ?? 0
        if value["payloadSize"] != nil || value["payloadTransferInfo"] != nil {
            // Payloads come on a socket of their own, which pbctl never opens: the packet is kept, its
            // payload ignored (a clipboard file from a phone is not taken).
        }
        return NetworkPacket(id: id, type: type, body: body)
    }
}

public struct PacketError: Error, Equatable, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The packet types pbctl speaks.
public enum PacketType {
    public static let identity = "kdeconnect.identity"
    public static let pair = "kdeconnect.pair"
    public static let clipboard = "kdeconnect.clipboard"
    public static let clipboardConnect = "kdeconnect.clipboard.connect"
    /// pbctl's extension: every representation of a clipboard item (``RichClipboard``).
    public static let richClipboard = "pbctl.clipboard"
    public static let richChunk = "pbctl.clipboard.chunk"
    public static let richEnd = "pbctl.clipboard.end"
}

/// Splits a byte stream into lines, holding at most `maximumLine` bytes of an unfinished one: a peer
/// that never sends a newline is refused, not buffered without end.
public struct LineSplitter: Sendable {
    public let maximumLine: Int
    private var pending: [UInt8] = []

    public init(maximumLine: Int) { self.maximumLine = maximumLine }

    /// Takes bytes; returns the complete lines (without their newlines).
    /// - Throws: ``PacketError`` when a line grows past `maximumLine`.
    public mutating func take(_ bytes: some Collection<UInt8>) throws -> [[UInt8]] {
        var lines: [[UInt8]] = []
        for byte in bytes {
            if byte == 0x0A {
                if !pending.isEmpty { lines.append(pending) }
                pending.removeAll(keepingCapacity: true)
            } else {
                guard pending.count < maximumLine else { throw PacketError("a line over \(maximumLine) bytes") }
                pending.append(byte)
            }
        }
        return lines
    }

    public var bufferedCount: Int { pending.count }
}
