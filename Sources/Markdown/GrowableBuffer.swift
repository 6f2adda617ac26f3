#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An array of plain values that grows with `realloc`: the inline parser's marks and brackets.
///
/// A Swift array grows by allocating twice its capacity and moving every element over, so while it
/// grows the old and the new storage are both in memory: a paragraph that needs 100 MB of marks peaks
/// at 200 MB. Here a large buffer is a mapping that `realloc` extends in place or moves with `mremap`
/// (glibc), no byte copied, and the part not yet written is never touched: memory is what the
/// elements take. Indices are checked, as an array's are.
final class GrowableBuffer<Element: BitwiseCopyable> {
    @exclusivity(unchecked) private(set) var base: UnsafeMutablePointer<Element>?
    @exclusivity(unchecked) private(set) var count = 0
    @exclusivity(unchecked) private var capacity = 0

    init() {}

    deinit { free(base) }

    var isEmpty: Bool { count == 0 }

    subscript(index: Int) -> Element {
        @inline(__always)
        unsafeAddress {
            precondition(index >= 0 && index < count, "GrowableBuffer index out of range")
            return UnsafePointer(base!.advanced(by: index))
        }
        @inline(__always)
        unsafeMutableAddress {
            precondition(index >= 0 && index < count, "GrowableBuffer index out of range")
            return base!.advanced(by: index)
        }
    }

    var last: Element? { count > 0 ? base![count - 1] : nil }

    @inline(__always)
    func append(_ element: Element) {
        if count == capacity { grow() }
        (base! + count).initialize(to: element)
        count += 1
    }

    @inline(never)
    private func grow() {
        let newCapacity = max(64, capacity * 2)
        let (bytes, overflow) = newCapacity.multipliedReportingOverflow(by: MemoryLayout<Element>.stride)
        guard !overflow, let grown = realloc(base, bytes) else {
            fatalError("out of memory: \(newCapacity) elements of \(MemoryLayout<Element>.stride) bytes")
        }
        base = grown.assumingMemoryBound(to: Element.self)
        capacity = newCapacity
    }

    func popLast() -> Element? {
        guard count > 0 else { return nil }
        count -= 1
        return base![count]
    }

    func removeLast() {
        precondition(count > 0, "removeLast of an empty GrowableBuffer")
        count -= 1
    }

    /// Keeps the first `newCount` elements.
    func truncate(to newCount: Int) {
        precondition(newCount >= 0 && newCount <= count, "GrowableBuffer truncate out of range")
        count = newCount
    }

    /// Empties the buffer; its memory is kept for the next block.
    func removeAll() { count = 0 }
}
