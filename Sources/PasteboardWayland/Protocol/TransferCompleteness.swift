/// Whether a Wayland transfer delivered all its owner meant to send, as a pure decision. The protocol
/// carries no length, and an owner that dies mid-write closes its pipe just as one that finished does:
/// what tells them apart is the selection, which the compositor clears when its owner dies (within
/// milliseconds: under ``grace``). pbctl watches for that while the data arrives, and after its end:
///
/// - Cleared while the writer still held the pipe open: the writer outlived its selection (wl-copy hands
///   the write to a `cat`, which a killed wl-copy leaves writing), so its end of data is a real end: whole.
/// - A quick transfer (under ``quick`` from the request to the end of data) that fits in the pipe (less
///   than ``oneWrite`` bytes) is whole, whatever the selection did next: the owner wrote it at once (a
///   program that clears its selection as soon as its one paste is written, such as `wl-copy -o`, does
///   so then), and a small paste waits for nothing.
/// - Anything else — nothing at all, more than the pipe holds, or data that came over a while — cut
///   short if the selection was cleared after the writer closed, else confirmed: cut short if it is
///   cleared within ``grace`` after the end, whole if not.
/// An owner that clears its selection on purpose as such a paste ends looks the same as one that died:
/// pbctl's own owner keeps the selection a moment after the one paste
/// (``WaylandOwnerStateMachine/Configuration/pasteLinger``); another program's is reported as cut short.
/// A selection taken by another client is no clearing: the old owner finishes the transfers under way.
public struct TransferCompleteness: Sendable, Equatable {
    public enum Verdict: Sendable, Equatable {
        case whole
        case cutShort
        /// Not known yet: watch the selection for ``grace`` nanoseconds, then ``confirmed(cleared:)``.
        case confirm
    }

    /// The bytes an owner's single write delivers whole: the pipe's capacity.
    public let oneWrite: Int
    /// Nanoseconds within which a transfer counts as written at once.
    public let quick: UInt64
    /// How long a cleared selection may take to be reported after its owner's death.
    public let grace: UInt64

    /// nil: no clearing seen; else whether the writer had closed its end when it was seen.
    private var clearedAfterWriterClosed: Bool?

    public init(oneWrite: Int = 1 << 20, quick: UInt64 = 20_000_000, grace: UInt64 = 10_000_000) {
        self.oneWrite = oneWrite
        self.quick = quick
        self.grace = grace
    }

    /// The selection read from was cleared; `writerClosed`: the pipe's write end was closed by then.
    public mutating func selectionCleared(writerClosed: Bool) {
        if clearedAfterWriterClosed == nil { clearedAfterWriterClosed = writerClosed }
    }

    /// The verdict at the end of data: `received` bytes in all, `duration` nanoseconds from the request.
    public func verdict(received: Int, duration: UInt64) -> Verdict {
        if clearedAfterWriterClosed == false { return .whole }
        if received > 0, received < oneWrite, duration <= quick { return .whole }
        return clearedAfterWriterClosed == true ? .cutShort : .confirm
    }

    /// The verdict after watching the selection: `cleared` says whether it was cleared meanwhile.
    public func confirmed(cleared: Bool) -> Verdict {
        switch clearedAfterWriterClosed {
        case false?: return .whole
        case true?: return .cutShort
        case nil: return cleared ? .cutShort : .whole
        }
    }
}
