/// What a selection offers, as one number: FNV-1a over its MIME types in the order offered (0 for no
/// selection). Two selections of the same types look alike; what tells them apart is the change that
/// the daemon or a copy counts (`WaylandChangeCounter`).
enum SelectionFingerprint {
    static func of(_ mimes: [String]?) -> UInt64 {
        guard let mimes, !mimes.isEmpty else { return 0 }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for mime in mimes {
            for byte in mime.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
            hash ^= 0xFF
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash == 0 ? 1 : hash
    }
}
