/// The name of a pasteboard: `general` (the clipboard), `primary` (the X11 selection), `find`, or any
/// name matching `[A-Za-z0-9._-]{1,64}`.
public struct PasteboardName: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// Returns nil when `rawValue` is not a valid name.
    public init?(_ rawValue: String) {
        guard (1...64).contains(rawValue.utf8.count),
            rawValue.utf8.allSatisfy({ b in
                (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39)
                    || b == 0x2E || b == 0x5F || b == 0x2D
            }),
            rawValue != ".", rawValue != ".."
        else { return nil }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public static let general = PasteboardName("general")!
    public static let primary = PasteboardName("primary")!
    public static let find = PasteboardName("find")!
}
