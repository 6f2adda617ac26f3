// The Wayland wire format, pure: a message is the object id (32 bits), then the size in bytes (upper 16
// bits) and the opcode (lower 16 bits), then the arguments, each padded to 32 bits. File descriptors
// travel beside the bytes (SCM_RIGHTS), in order.

/// One argument of a request or event.
public enum WaylandArgument: Equatable, Sendable {
    case int(Int32)
    case uint(UInt32)
    case fixed(Int32)
    /// A string (nil: a null string, length 0 on the wire).
    case string(String?)
    /// An object id (0: null).
    case object(UInt32)
    case newID(UInt32)
    case array([UInt8])
    /// A file descriptor: not in the bytes, the next one of the message's ancillary data.
    case fd(Int32)
}

public enum WaylandArgumentType: Sendable {
    case int, uint, fixed, string, object, newID, array, fd
}

public struct WaylandMessage: Equatable, Sendable {
    public var object: UInt32
    public var opcode: UInt16
    public var arguments: [WaylandArgument]

    public init(object: UInt32, opcode: UInt16, arguments: [WaylandArgument] = []) {
        self.object = object
        self.opcode = opcode
        self.arguments = arguments
    }
}

public struct WaylandWireError: Error, Equatable, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }
}

public enum WaylandWire {
    /// The largest message the protocol allows (the size field is 16 bits).
    public static let maximumMessageSize = 4096

    /// The message's bytes and the descriptors to send with them.
    public static func encode(_ message: WaylandMessage) -> (bytes: [UInt8], fds: [Int32]) {
        var body: [UInt8] = []
        var fds: [Int32] = []
        func word(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { body.append(contentsOf: $0) } }
        for argument in message.arguments {
            switch argument {
            case .int(let v), .fixed(let v): word(UInt32(bitPattern: v))
            case .uint(let v), .object(let v), .newID(let v): word(v)
            case .string(let s):
                guard let s else {
                    word(0)
                    continue
                }
                let bytes = Array(s.utf8) + [0]
                word(UInt32(bytes.count))
                body += bytes
                while body.count % 4 != 0 { body.append(0) }
            case .array(let a):
                word(UInt32(a.count))
                body += a
                while body.count % 4 != 0 { body.append(0) }
            case .fd(let fd): fds.append(fd)
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8 + body.count)
        withUnsafeBytes(of: message.object.littleEndian) { bytes.append(contentsOf: $0) }
        let sizeAndOpcode = UInt32(8 + body.count) << 16 | UInt32(message.opcode)
        withUnsafeBytes(of: sizeAndOpcode.littleEndian) { bytes.append(contentsOf: $0) }
        return (bytes + body, fds)
    }

    /// The header at the start of `bytes`: object, opcode and whole size; nil until 8 bytes are there.
    public static func header(_ bytes: ArraySlice<UInt8>) throws -> (object: UInt32, opcode: UInt16, size: Int)? {
        guard bytes.count >= 8 else { return nil }
        let object = word(bytes, bytes.startIndex)
        let second = word(bytes, bytes.startIndex + 4)
        let size = Int(second >> 16)
        guard size >= 8, size % 4 == 0 else { throw WaylandWireError(message: "a message of size \(size)") }
        return (object, UInt16(second & 0xFFFF), size)
    }

    /// The arguments of a message body, by their types; descriptors are taken from `fds` in order.
    public static func arguments(_ body: ArraySlice<UInt8>, types: [WaylandArgumentType], fds: inout [Int32]) throws -> [WaylandArgument] {
        var arguments: [WaylandArgument] = []
        var i = body.startIndex
        func next() throws -> UInt32 {
            guard i + 4 <= body.endIndex else { throw WaylandWireError(message: "a message shorter than its arguments") }
            defer { i += 4 }
            return word(body, i)
        }
        for type in types {
            switch type {
            case .int: arguments.append(.int(Int32(bitPattern: try next())))
            case .fixed: arguments.append(.fixed(Int32(bitPattern: try next())))
            case .uint: arguments.append(.uint(try next()))
            case .object: arguments.append(.object(try next()))
            case .newID: arguments.append(.newID(try next()))
            case .string, .array:
                let length = Int(try next())
                guard length <= body.endIndex - i else { throw WaylandWireError(message: "a string or array longer than its message") }
                let bytes = body[i..<i + length]
                i += (length + 3) & ~3
                guard i <= body.endIndex else { throw WaylandWireError(message: "padding past the message") }
                if type == .array {
                    arguments.append(.array(Array(bytes)))
                } else if length == 0 {
                    arguments.append(.string(nil))
                } else {
                    guard bytes.last == 0 else { throw WaylandWireError(message: "a string without its NUL") }
                    arguments.append(.string(String(decoding: bytes.dropLast(), as: UTF8.self)))
                }
            case .fd:
                guard !fds.isEmpty else { throw WaylandWireError(message: "a message announced a file descriptor that did not come") }
                arguments.append(.fd(fds.removeFirst()))
            }
        }
        return arguments
    }

    static func word(_ bytes: ArraySlice<UInt8>, _ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }
}
