import Pasteboard

// KDE Connect's packets, device records and control messages are JSON read with the model's bounded
// reader (``JSONValue``, the one JSON codec); what is KDE Connect's own is below: the bounds of a
// peer's packet, and reading its integers as KDE Connect writes them.

extension JSONLimits {
    /// The bounds of JSON a peer or a state file hands over: `maximumBytes` in all, 8 levels, 4096
    /// members a container, so a hostile peer's packet costs at most its own size.
    public static func packet(maximumBytes: Int) -> JSONLimits {
        JSONLimits(maximumBytes: maximumBytes, maximumDepth: 8, maximumMembers: 4096)
    }
}

extension JSONValue {
    /// An integer, or a double with an exact integer value, or a string of decimal digits (KDE Connect
    /// 22.12 sends a packet's id as a string).
    public var integer: Int64? {
        switch self {
        case .integer(let n): return n
        case .double(let d) where d.rounded() == d && abs(d) < 9.0e15: return Int64(d)
        case .string(let s) where !s.isEmpty && s.utf8.count <= 18 && s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }): return Int64(s)
        default: return nil
        }
    }

    /// An array of strings, nil when it is not one.
    public var strings: [String]? {
        guard let array else { return nil }
        var out: [String] = []
        for value in array {
            guard let s = value.string else { return nil }
            out.append(s)
        }
        return out
    }
}
