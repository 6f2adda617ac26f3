/// Whether a Wayland transfer delivered all its owner meant to send, as a pure decision. The protocol
/// carries no length, and an owner that dies mid-write closes its pipe just as one that finished does:
/// what tells them apart is the selection. A dead owner's source is destroyed, so the selection is
/// cleared; pbctl watches for that while the data arrives, and once more (one round trip) after its end.
///
/// - Cleared while the writer still held the pipe open: the writer outlived its selection (wl-copy
///   `--paste-once` hands the write to a `cat` and exits), so its end of data is a real end: whole.
/// - Cleared after the writer had closed, before the data was all read: it died mid-write: cut short.
/// - Not cleared by the end of data: whole if it is still the selection after a round trip, cut short
///   if it was cleared by then (the compositor reports a dead client's source before it answers a
///   later request). An owner that clears its selection on purpose as the paste ends (paste-once) must
///   give the reader that round trip first: pbctl's own owner keeps the selection for a moment after
///   the one paste (``WaylandOwnerStateMachine/Configuration/pasteLinger``).
/// A selection taken by another client is no clearing: the old owner finishes the transfers under way.
public struct TransferCompleteness: Sendable, Equatable {
    public enum Verdict: Sendable, Equatable {
        case whole
        case cutShort
        /// Not known yet: confirm with a round trip, then ``confirmed(stillSelected:)``.
        case confirm
    }

    /// nil: no clearing seen; else whether the writer had closed its end when it was seen.
    private var clearedAfterWriterClosed: Bool?

    public init() {}

    /// The selection read from was cleared; `writerClosed`: the pipe's write end was closed by then.
    public mutating func selectionCleared(writerClosed: Bool) {
        if clearedAfterWriterClosed == nil { clearedAfterWriterClosed = writerClosed }
    }

    /// The verdict at the end of data.
    public var verdict: Verdict {
        switch clearedAfterWriterClosed {
        case nil: .confirm
        case false?: .whole
        case true?: .cutShort
        }
    }

    /// The verdict after the round trip that follows the end of data: `cleared` says whether the
    /// selection was cleared meanwhile.
    public func confirmed(cleared: Bool) -> Verdict {
        if verdict != .confirm { return verdict }
        return cleared ? .cutShort : .whole
    }
}
