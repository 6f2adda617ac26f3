/// An X protocol error code, in the style of swift-system's `Errno`.
public struct XProtocolError: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    /// The major opcode of the failed request.
    public var majorOpcode: UInt8
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
        self.majorOpcode = 0
    }
    public init(code: UInt8, majorOpcode: UInt8) {
        self.rawValue = code
        self.majorOpcode = majorOpcode
    }

    public static let badValue = XProtocolError(rawValue: 2)
    public static let badWindow = XProtocolError(rawValue: 3)
    public static let badAtom = XProtocolError(rawValue: 5)
    public static let badMatch = XProtocolError(rawValue: 8)
    public static let badAlloc = XProtocolError(rawValue: 11)
    public static let badLength = XProtocolError(rawValue: 16)

    public static func == (lhs: XProtocolError, rhs: XProtocolError) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    public var description: String {
        let name: String
        switch rawValue {
        case 2: name = "BadValue"
        case 3: name = "BadWindow"
        case 5: name = "BadAtom"
        case 8: name = "BadMatch"
        case 11: name = "BadAlloc"
        case 16: name = "BadLength"
        default: name = "X error \(rawValue)"
        }
        return "\(name) (request \(majorOpcode))"
    }
}
