/// A growable byte buffer: appends are a capacity check and a copy, without an array's uniqueness check
/// and reference counting on every call (the HTML writer makes one or more per few bytes of output).
/// Non-copyable, so its memory has one owner and is freed once.
struct ByteBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 256) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    var isEmpty: Bool { count == 0 }
    var last: UInt8? { count > 0 ? base[count - 1] : nil }

    @inline(__always) mutating func append(_ c: UInt8) {
        if count == capacity { grow(1) }
        base[count] = c
        count += 1
    }

    @inline(__always) mutating func append(contentsOf b: MDBytes) {
        let n = b.count
        guard n > 0 else { return }
        if count + n > capacity { grow(n) }
        (base + count).update(from: b.baseAddress!, count: n)
        count += n
    }

    mutating func append<S: Sequence>(contentsOf bytes: S) where S.Element == UInt8 {
        for c in bytes { append(c) }
    }

    private mutating func grow(_ needed: Int) {
        let newCapacity = max(capacity * 2, count + needed)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    mutating func removeAll() { count = 0 }

    func withUnsafeBufferPointer<R>(_ body: (MDBytes) throws -> R) rethrows -> R {
        try body(MDBytes(start: base, count: count))
    }

    /// The bytes as an array (one copy).
    func array() -> [UInt8] { Array(MDBytes(start: base, count: count)) }
}
