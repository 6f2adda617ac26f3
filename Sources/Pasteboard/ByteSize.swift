/// A size as users write one, the one reading of it for every option, variable and configuration key:
/// `512`, `64K`, `300M`, `2G`, `1T` (powers of 1024; a trailing `B` or `iB` accepted, any case).
public enum ByteSize {
    /// The bytes `text` says; nil when it is no size or more than an `Int` holds. Zero is a size: each
    /// caller says whether it takes it (`--max-size 0` is refused, `PBCTL_OSC52_MAX=0` sends no text).
    public static func parse(_ text: String) -> Int? {
        var digits = text.uppercased()
        for suffix in ["IB", "B"] where digits.hasSuffix(suffix) && digits.count > suffix.count { digits.removeLast(suffix.count) }
        var shift = 0
        if let last = digits.last, let index = ["K", "M", "G", "T"].firstIndex(of: String(last)) {
            shift = 10 * (index + 1)
            digits.removeLast()
        }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(digits), value <= Int.max >> shift else {
            return nil
        }
        return value << shift
    }
}
