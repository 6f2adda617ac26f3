/// Whether a Wayland transfer delivered all its owner meant to send, as a pure decision. The protocol
/// carries no length, and an owner that dies mid-write closes its pipe just as one that finished does.
/// No wait on the compositor can tell them apart (it may report the death late, on a loaded machine
/// by hundreds of milliseconds); what can is asking the owner again (`WaylandConnection.probe`): a
/// second `receive` on the same offer after the end of data. An owner alive writes into the new pipe;
/// a dead one never can (the compositor closes the descriptor it cannot pass on, or queues it to a
/// client it then destroys), so its pipe ends unwritten. The verdict at the end of data:
///
/// - A quick transfer (under ``quick`` from the request to the end of data) that fits in the pipe (less
///   than ``oneWrite`` bytes) is whole, whatever the selection did next: the owner wrote it at once (a
///   program that clears its selection as soon as its one paste is written, such as `wl-copy -o`, does
///   so then), and a small paste waits for nothing.
/// - Else, for an offer marked transient (an owner that serves one paste, or clears its selection at the
///   end of its lifetime, on purpose, while it may still be writing): cleared while the writer still
///   held the pipe open is a writer that outlived its selection (whole); cleared after it closed is cut
///   short; not cleared is watched for ``grace`` (``confirmed(cleared:)``). Such an owner refuses a
///   second request, so the timing is all there is; the daemon never keeps transient content.
/// - Else, the selection cleared since the request (its owner gone, whether before or after the end of
///   data: a dying owner closes its socket and its pipe in no set order, and a writer it forked may
///   write on) is cut short: pbctl cannot ask again, and keeps nothing it cannot confirm.
/// - Else ``Verdict/confirm``: the reader asks the owner again, one probe per offer (the daemon asks
///   once after all the types of a content); where a second request cannot tell (nothing arrived; the
///   selection taken by another client meanwhile, its offer gone) it watches the selection for
///   ``grace`` (``confirmed(cleared:)``).
/// pbctl's own paste-once owner keeps the selection a moment after the one paste
/// (``WaylandOwnerStateMachine/Configuration/pasteLinger``) for that watch; another program's owner that
/// exits right after serving one paste of more than ``oneWrite`` bytes is reported as cut short.
/// A selection taken by another client is no clearing: the old owner finishes the transfers under way.
public struct TransferCompleteness: Sendable, Equatable {
    public enum Verdict: Sendable, Equatable {
        case whole
        case cutShort
        /// Not known yet: ask the owner again, or watch the selection for ``grace`` nanoseconds, then
        /// ``confirmed(cleared:)``.
        case confirm
    }

    /// The bytes an owner's single write delivers whole: the pipe's capacity.
    public let oneWrite: Int
    /// Nanoseconds within which a transfer counts as written at once.
    public let quick: UInt64
    /// How long a cleared selection may take to be reported after its owner's death, where the
    /// selection is watched (an empty transfer, a transient offer).
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

    /// The verdict at the end of data: `received` bytes in all, `duration` nanoseconds from the request,
    /// from an offer marked `transient` or not.
    public func verdict(received: Int, duration: UInt64, transient: Bool = false) -> Verdict {
        if received > 0, received < oneWrite, duration <= quick { return .whole }
        switch clearedAfterWriterClosed {
        case nil: return .confirm
        case false?: return transient ? .whole : .cutShort
        case true?: return .cutShort
        }
    }

    /// The verdict after watching the selection: `cleared` says whether it was cleared meanwhile.
    public func confirmed(cleared: Bool) -> Verdict {
        switch clearedAfterWriterClosed {
        case false?: return .whole  // a transient offer's writer that outlived its selection
        case true?: return .cutShort
        case nil: return cleared ? .cutShort : .whole
        }
    }
}
