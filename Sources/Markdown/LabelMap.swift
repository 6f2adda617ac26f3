/// Link reference and footnote definitions by normalised label (`MD.normalizeLabel`): an open-addressing
/// hash table whose keys are byte ranges of one buffer, so neither adding a definition nor looking one
/// up makes a string. The first definition of a label wins (`insertIfAbsent`), as the spec says.
struct LabelMap<Value> {
    private struct Entry {
        var keyStart: Int32
        var keyCount: Int32
        var hash: UInt32
        var value: Value
    }

    private var entries: [Entry] = []
    /// Entry index + 1 per slot (0: empty); the slot count is a power of two, at most half full.
    private var slots: [Int32] = []
    private var keys: [UInt8] = []

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }

    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        keys.removeAll(keepingCapacity: true)
        if !slots.isEmpty {
            slots.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        }
    }

    @inline(__always)
    private static func hash(_ key: MDBytes) -> UInt32 {
        // FNV-1a.
        var h: UInt32 = 2_166_136_261
        for c in key { h = (h ^ UInt32(c)) &* 16_777_619 }
        return h
    }

    private func find(_ key: MDBytes, _ h: UInt32) -> (slot: Int, entry: Int) {
        let mask = slots.count - 1
        var i = Int(h) & mask
        while true {
            let e = Int(slots[i]) - 1
            if e < 0 { return (i, -1) }
            let entry = entries[e]
            if entry.hash == h && Int(entry.keyCount) == key.count {
                let same = keys.withUnsafeBufferPointer { k in
                    var j = 0
                    let base = Int(entry.keyStart)
                    while j < key.count && k[base + j] == key[j] { j += 1 }
                    return j == key.count
                }
                if same { return (i, e) }
            }
            i = (i + 1) & mask
        }
    }

    /// The value stored for `key`, or nil.
    func value(_ key: MDBytes) -> Value? {
        guard !entries.isEmpty else { return nil }
        let (_, e) = find(key, Self.hash(key))
        return e < 0 ? nil : entries[e].value
    }

    func contains(_ key: MDBytes) -> Bool { value(key) != nil }

    /// Where the value stored for `key` is (for ``value(at:)``), or nil.
    func index(_ key: MDBytes) -> Int? {
        guard !entries.isEmpty else { return nil }
        let (_, e) = find(key, Self.hash(key))
        return e < 0 ? nil : e
    }

    /// The value at an index ``index(_:)`` gave.
    func value(at index: Int) -> Value { entries[index].value }

    /// Stores `value` for `key` unless the key is already there. Returns whether it was stored.
    @discardableResult
    mutating func insertIfAbsent(_ key: MDBytes, _ value: Value) -> Bool {
        if (entries.count + 1) * 2 > slots.count { grow() }
        let h = Self.hash(key)
        let (slot, e) = find(key, h)
        if e >= 0 { return false }
        let start = Int32(keys.count)
        keys.append(contentsOf: key)
        entries.append(Entry(keyStart: start, keyCount: Int32(key.count), hash: h, value: value))
        slots[slot] = Int32(entries.count)
        return true
    }

    private mutating func grow() {
        let size = max(16, slots.count * 2)
        slots = [Int32](repeating: 0, count: size)
        let mask = size - 1
        for (index, entry) in entries.enumerated() {
            var i = Int(entry.hash) & mask
            while slots[i] != 0 { i = (i + 1) & mask }
            slots[i] = Int32(index + 1)
        }
    }
}

