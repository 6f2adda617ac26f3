#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// Serves one item on the Wayland selection: offers every representation under its MIME types, answers
/// each `send` by writing into the client's descriptor without blocking (several transfers at once, a
/// stalled reader never holds up another), and ends when another client takes the selection
/// (`cancelled`), after one paste (`pasteOnce`) or after `lifetime` seconds (clearing the selection).
final class WaylandSelectionOwner {
    let connection: WaylandConnection
    let item: Item
    let primary: Bool
    let pasteOnce: Bool
    let lifetime: Double?
    let log: (@Sendable (String) -> Void)?
    /// Each offered MIME type and the representation it serves, in offer order.
    let offers: [(mime: String, index: Int)]
    private var source: UInt32 = 0

    private struct Transfer {
        var fd: Int32
        var data: Data
        var offset: Int
        var lastProgress: UInt64
    }
    private var transfers: [Transfer] = []
    /// Transfers written in full.
    private var completed = 0
    /// With `pasteOnce`: a copy of the first finished transfer's descriptor, to see its reader empty it.
    private var onePaste: Int32 = -1
    /// A reader that takes nothing for this long is dropped (its descriptor closed).
    static let stalledTransferLimit: UInt64 = 60_000_000_000

    init(
        connection: WaylandConnection, item: Item, primary: Bool, mimeTypes: (TypeIdentifier) -> [String], pasteOnce: Bool,
        lifetime: Double?, log: (@Sendable (String) -> Void)?
    ) {
        self.connection = connection
        self.item = item
        self.primary = primary
        self.pasteOnce = pasteOnce
        self.lifetime = lifetime
        self.log = log
        var offers: [(String, Int)] = []
        for (index, representation) in item.representations.enumerated() {
            var names = mimeTypes(representation.type)
            if names.isEmpty, representation.type.rawValue.contains("/") { names = [representation.type.rawValue] }
            for mime in names where !offers.contains(where: { $0.0 == mime }) { offers.append((mime, index)) }
        }
        self.offers = offers
    }

    func claim(deadline: UInt64) throws {
        var mimes = offers.map(\.mime)
        if item.metadata.flags.contains(.sensitive) { mimes.append(WaylandBackend.passwordHint) }
        let (source, messages) = connection.client.createSource(offering: mimes)
        self.source = source
        connection.send(messages)
        connection.send(connection.client.setSelection(source, primary: primary))
        try connection.roundTrip(deadline: deadline)
        log?("owner: offered \(mimes.joined(separator: ","))")
    }

    /// Serves until the selection is taken, the one paste is done, or the lifetime ends. When the
    /// compositor goes away, the transfers under way are finished first (their pipes do not depend on
    /// it): a reader gets the whole content or, if it stalls, nothing more after 5 s.
    func run() throws {
        do {
            try serve()
        } catch {
            finish()
            throw error
        }
    }

    /// Writes out every transfer under way, all at once, dropping a reader that takes nothing for 5 s;
    /// for an owner about to stop serving.
    func finish() {
        let stallLimit: UInt64 = 5_000_000_000
        while !transfers.isEmpty {
            var pollers = transfers.map { pollfd(fd: $0.fd, events: Int16(POLLOUT), revents: 0) }
            if poll(&pollers, nfds_t(pollers.count), 1000) < 0, errno != EINTR { break }
            for (index, poller) in pollers.enumerated() where poller.revents != 0 {
                if step(&transfers[index]) { completed += 1 }
            }
            let now = waylandNow()
            for k in transfers.indices where transfers[k].fd >= 0 && now - transfers[k].lastProgress > stallLimit {
                close(transfers[k].fd)
                transfers[k].fd = -1
            }
            transfers.removeAll { $0.fd < 0 }
        }
        for transfer in transfers { close(transfer.fd) }
        transfers = []
    }

    private func serve() throws {
        let end = lifetime.map { waylandNow() + UInt64($0 * 1e9) }
        while true {
            let now = waylandNow()
            if let end, now >= end {
                connection.send(connection.client.setSelection(nil, primary: primary))
                try? connection.flush(deadline: waylandNow() + 2_000_000_000)
                log?("owner: lifetime over, selection cleared")
                finish()  // a paste that began in time still gets all of it
                return
            }
            if pasteOnce, completed > 0 {
                awaitOnePasteRead()
                connection.send(connection.client.setSelection(nil, primary: primary))
                try? connection.flush(deadline: waylandNow() + 2_000_000_000)
                log?("owner: pasted once, selection cleared")
                finish()  // let transfers still running finish
                return
            }
            // Events first: a `send` starts a transfer, `cancelled` ends the owner.
            if try connection.hasBufferedEvents() {
                if try handle(try connection.nextEvent(deadline: now)) { return }
                continue
            }
            var pollers = [pollfd(fd: connection.fd, events: Int16(POLLIN), revents: 0)]
            for fd in transferDescriptors { pollers.append(pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)) }
            var timeout: Int32 = 1000
            if let end { timeout = Int32(min(1000, max(0, Int64(end) - Int64(now)) / 1_000_000 + 1)) }
            let ready = poll(&pollers, nfds_t(pollers.count), timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                throw PasteboardError(.io, "poll: \(String(cString: strerror(errno)))")
            }
            if pollers[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                guard let event = try connection.nextEvent(deadline: waylandNow() + 1_000_000) else { continue }
                if try handle(event) { return }
            }
            serviceTransfers(pollers.dropFirst().map(\.revents))
        }
    }

    // MARK: Steps (for a loop that serves several owners, as the clipboard manager does)

    /// The source this owner offers (0 before ``claim(deadline:)``).
    var offeredSource: UInt32 { source }

    /// The descriptors of the transfers still writing, to poll for `POLLOUT`.
    var transferDescriptors: [Int32] { transfers.map(\.fd) }

    /// Writes to each transfer whose poll result in `revents` (in ``transferDescriptors`` order) is set,
    /// then drops readers that took nothing for ``stalledTransferLimit``.
    func serviceTransfers(_ revents: [Int16]) {
        for (index, events) in revents.enumerated() where events != 0 && index < transfers.count {
            if step(&transfers[index]) { completed += 1 }
        }
        let now = waylandNow()
        for k in transfers.indices where transfers[k].fd >= 0 && now - transfers[k].lastProgress > Self.stalledTransferLimit {
            close(transfers[k].fd)
            transfers[k].fd = -1
        }
        transfers.removeAll { $0.fd < 0 }
    }

    /// Applies one event; true when the owner should stop (the selection was taken). A `send` for
    /// another source is refused (its descriptor closed): give an owner only its own source's events.
    func handle(_ event: DataControlClient.Event?) throws -> Bool {
        guard let event else { return false }
        switch event {
        case .send(let from, let mime, let fd) where from == source:
            let data: Data?
            if mime == WaylandBackend.passwordHint, item.metadata.flags.contains(.sensitive) {
                data = Data("secret".utf8)  // KDE's hint: password managers and clipboard managers skip it
            } else {
                data = offers.first(where: { $0.mime == mime }).flatMap { try? item.representations[$0.index].data() }
            }
            guard let data else {
                close(fd)  // a type we did not offer, or one that cannot be produced: the reader gets nothing
                log?("owner: refused \(mime)")
                return false
            }
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            log?("owner: sending \(mime) (\(data.count) bytes)")
            // Write what the pipe takes at once: a small paste is done without another trip through poll.
            var transfer = Transfer(fd: fd, data: data, offset: 0, lastProgress: waylandNow())
            if step(&transfer) {
                completed += 1
            } else if transfer.fd >= 0 {
                transfers.append(transfer)
            }
            return false
        case .send(_, _, let fd):
            close(fd)
            return false
        case .cancelled(let from) where from == source:
            log?("owner: another client took the selection")
            finish()
            return true
        case .fatal(let message):
            throw PasteboardError(.unavailable, message)
        case .finished:
            return true
        default:
            return false
        }
    }

    /// Waits (at most 2 s) until the reader of the one paste has taken the bytes left in its pipe, or
    /// closed it. Clearing the selection at once races the reader: wl-paste 2.1 makes a round trip
    /// after asking, and a `selection` of nothing arriving in it makes it say "No selection" instead of
    /// reading what it was sent. wl-copy waits the same way, for its `cat` to end.
    private func awaitOnePasteRead() {
        guard onePaste >= 0 else { return }
        defer {
            close(onePaste)
            onePaste = -1
        }
        let end = waylandNow() + 2_000_000_000
        while waylandNow() < end {
            var unread: Int32 = 0
            // FIONREAD on either end of a pipe: the bytes in it. Anything else (a file) counts as read.
            guard ioctl(onePaste, UInt(FIONREAD), &unread) == 0, unread > 0 else { return }
            var poller = pollfd(fd: onePaste, events: 0, revents: 0)
            if poll(&poller, 1, 1) > 0, poller.revents & Int16(POLLERR | POLLHUP) != 0 { return }  // reader gone
        }
    }

    /// Writes what the descriptor takes now; true when the transfer is complete (then closed).
    private func step(_ transfer: inout Transfer) -> Bool {
        while transfer.offset < transfer.data.count {
            let n = transfer.data.withUnsafeBytes { raw in
                write(transfer.fd, raw.baseAddress! + transfer.offset, min(raw.count - transfer.offset, 1 << 20))
            }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { return false }
                close(transfer.fd)  // the reader went away (EPIPE): nothing to finish
                transfer.fd = -1
                return false
            }
            transfer.offset += n
            transfer.lastProgress = waylandNow()
        }
        if pasteOnce, onePaste < 0 { onePaste = fcntl(transfer.fd, F_DUPFD_CLOEXEC, 0) }
        close(transfer.fd)
        transfer.fd = -1
        return true
    }
}
