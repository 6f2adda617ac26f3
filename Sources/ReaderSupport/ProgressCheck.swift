/// Checks, in debug builds, that a reader's loop consumed input on every pass.
///
/// Every loop over outside bytes must consume input or end: a pass that leaves the position where it
/// was repeats forever (an RTF field instruction once did, on a U+00A0 separator). A reader calls
/// ``advance(to:)`` at the top of its main loop with its position; the position must grow from pass
/// to pass. Release builds compile it to nothing (the fuzz build keeps it: `-assert-config Debug`).
public struct ProgressCheck: Sendable {
    @usableFromInline var last = Int.min
    @usableFromInline let reader: StaticString

    @inlinable
    public init(_ reader: StaticString) { self.reader = reader }

    @inlinable
    public mutating func advance(to position: Int) {
        assert(position > last, "\(reader): a pass of the main loop consumed no input (at \(position))")
        last = position
    }
}
