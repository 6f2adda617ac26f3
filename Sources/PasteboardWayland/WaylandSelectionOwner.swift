#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import SystemIO

/// Serves one item on the Wayland selection: the driver of a ``WaylandOwnerStateMachine`` (which decides
/// what each `send`, write, wait and the time lead to), performing its actions on the connection and on
/// the readers' pipes (through `Connection/`). It ends when another client takes the selection
/// (`cancelled`), after one paste (`pasteOnce`) or after `lifetime` seconds (clearing the selection),
/// the transfers under way finished first.
///
/// Run alone (``run()``: `copy`'s detached owner, `__serve-wayland`, `copy --foreground`) or stepped from
/// the clipboard manager's poll loop, which serves one owner per selection at once.
final class WaylandSelectionOwner {
    let connection: WaylandConnection
    let item: Item
    let primary: Bool
    let log: (@Sendable (String) -> Void)?
    private(set) var machine: WaylandOwnerStateMachine

    init(
        connection: WaylandConnection, item: Item, primary: Bool, mimeTypes: (TypeIdentifier) -> [String], pasteOnce: Bool,
        lifetime: Double?, log: (@Sendable (String) -> Void)?
    ) {
        self.connection = connection
        self.item = item
        self.primary = primary
        self.log = log
        machine = WaylandOwnerStateMachine(
            types: item.representations.map(\.type), sensitive: item.metadata.flags.contains(.sensitive),
            transient: item.metadata.flags.contains(.transient), mimeTypes: mimeTypes,
            configuration: .init(pasteOnce: pasteOnce, lifetime: lifetime.map { UInt64(max(0, $0) * 1e9) }))
    }

    /// Creates the source, sets it as the selection and waits (one round trip) until it is.
    func claim(deadline: UInt64) throws {
        let mimes = machine.offeredMIMETypes
        let (source, messages) = connection.client.createSource(offering: mimes)
        connection.send(messages)
        connection.send(connection.client.setSelection(source, primary: primary))
        try connection.roundTrip(deadline: deadline)
        machine.claimed(source: source, now: MonotonicClock.nanoseconds())
        log?("owner: offered \(mimes.joined(separator: ","))")
    }

    /// Serves until the selection is taken, the one paste is done, or the lifetime ends; then the
    /// transfers under way are finished. When the compositor goes away, they are finished too (their
    /// pipes do not depend on it): a reader gets the whole content or, if it stalls, nothing more after
    /// 5 s.
    func run() throws {
        do {
            try serve()
        } catch {
            perform(machine.stop(.failed("\(error)")))
            finishTransfers()
            throw error
        }
        finishTransfers()
    }

    /// The loop while the selection is served: the compositor's events, the readers' pipes and the time,
    /// in one poll (at most a second).
    private func serve() throws {
        while machine.isServing {
            let now = MonotonicClock.nanoseconds()
            perform(machine.tick(now: now))
            guard machine.isServing else { break }
            if let reader = machine.pasteReader {
                perform(
                    machine.pasteReader(
                        unread: WaylandPipes.unreadBytes(reader), gone: WaylandPipes.readerGone(reader, waitingAtMost: 0), now: now))
                guard machine.isServing else { break }
            }
            // Events first: a `send` starts a transfer, `cancelled` ends the serving.
            if try connection.hasBufferedEvents() {
                try handle(try connection.nextEvent(deadline: now))
                continue
            }
            let descriptors = machine.transferDescriptors
            let ready = try WaylandPipes.poll(
                [.readable(connection.fd)] + descriptors.map(WaylandPipes.Wait.writable), milliseconds: pollTimeout(now: now))
            if ready[0] {
                try handle(try connection.nextEvent(deadline: MonotonicClock.nanoseconds() + 1_000_000))
            }
            serviceTransfers(descriptors, ready: ready.dropFirst())
        }
    }

    /// Once the serving is over: writes out every transfer under way, all at once, away from the
    /// compositor, dropping a reader that takes nothing for 5 s. Each wait lasts at most a second.
    private func finishTransfers() {
        if machine.isServing || machine.phase == .unclaimed { perform(machine.stop(.failed("the owner stopped serving"))) }
        while !machine.isStopped {
            let descriptors = machine.transferDescriptors
            guard let ready = try? WaylandPipes.poll(descriptors.map(WaylandPipes.Wait.writable), milliseconds: 1000) else {
                perform(machine.tick(now: .max))  // no poll, no waiting on them: every reader dropped
                continue
            }
            serviceTransfers(descriptors, ready: ready[...])
        }
    }

    /// How long the loop may wait: until the machine's next deadline, at most a second; a millisecond
    /// while the reader of the one paste empties its pipe (nothing signals that).
    func pollTimeout(now: UInt64) -> Int32 {
        if machine.pasteReader != nil { return 1 }
        guard let deadline = machine.nextDeadline else { return 1000 }
        return Int32(min(1000, (deadline > now ? deadline - now : 0) / 1_000_000 + 1))
    }

    // MARK: Steps (for a loop that serves several owners, as the clipboard manager does)

    /// The source this owner offers (0 before ``claim(deadline:)``).
    var offeredSource: UInt32 { machine.source }

    /// Whether the owner still serves the selection (false once it was taken: its transfers may still
    /// be under way, ``isDone`` says when they are over).
    var isServing: Bool { machine.isServing }

    /// Serving and transfers are over.
    var isDone: Bool { machine.isStopped }

    /// The descriptors of the transfers still writing, to poll until writable.
    var transferDescriptors: [Int32] { machine.transferDescriptors }

    /// Writes to each transfer of `descriptors` (as ``transferDescriptors`` listed them) that `ready`
    /// says is writable, then lets the time pass (readers stalled too long are dropped).
    func serviceTransfers(_ descriptors: [Int32], ready: ArraySlice<Bool>) {
        for (fd, isReady) in zip(descriptors, ready) where isReady { perform([.write(fd)]) }
        perform(machine.tick(now: MonotonicClock.nanoseconds()))
    }

    /// Applies one event; true when the owner no longer serves the selection (it was taken, or the seat
    /// went away). A `send` for another source is refused (its descriptor closed).
    @discardableResult
    func handle(_ event: DataControlClient.Event?) throws -> Bool {
        guard let event else { return false }
        if case .fatal(let message) = event {
            perform(machine.stop(.failed(message)))
            throw PasteboardError(.unavailable, message)
        }
        perform(machine.handle(event, now: MonotonicClock.nanoseconds(), produce: produce))
        return !machine.isServing
    }

    private func produce(_ content: WaylandOwnerStateMachine.Content) -> Data? {
        switch content {
        case .bytes(let data): return data
        case .representation(let index): return try? item.representations[index].data()
        }
    }

    /// Performs the machine's actions, and those its answers lead to.
    private func perform(_ actions: [WaylandOwnerStateMachine.Action]) {
        var queue = actions[...]
        while let action = queue.popFirst() {
            switch action {
            case .close(let fd):
                WaylandPipes.close(fd)
            case .makeNonBlocking(let fd):
                WaylandPipes.makeNonBlocking(fd)
            case .write(let fd):
                guard let (data, offset) = machine.pendingWrite(fd) else { continue }
                let written = WaylandPipes.write(fd, data, from: offset)
                queue.append(contentsOf: machine.wrote(fd, count: written.count, readerGone: written.failed, now: MonotonicClock.nanoseconds()))
            case .clearSelection:
                connection.send(connection.client.setSelection(nil, primary: primary))
                try? connection.flush(deadline: MonotonicClock.nanoseconds() + 2_000_000_000)
            case .log(let line):
                log?(line)
            case .stopped:
                break
            }
        }
    }
}
