#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Pasteboard
import SystemIO

/// The store's changes as they happen (`pbctl watch`, `pbctl daemon --kdeconnect` without a display):
/// inotify on the store's folder and the pasteboard's package, where a write renames `Info.json` into
/// place, confirmed by the change count, which rises with every write and clear. While every watch it
/// needs is in place the wait has no time-out (an idle watcher is never woken); where inotify is not
/// available (a full watch table, no such folder to watch) the count is also read once a second.
extension FileStore: PasteboardWatching {
    /// A copy to the store is seen by nobody unless a watcher runs: `pbctl copy` still records itself.
    public var changesReachDaemons: Bool { false }

    public func watch(_ pasteboard: PasteboardName, _ body: (PasteboardChange) throws -> Bool) throws {
        try watch(pasteboard, alsoWaitingOn: []) { change, _ in try change.map(body) ?? true }
    }

    /// ``watch(_:_:)`` that also wakes when one of `descriptors` is readable: `body` then gets nil and the
    /// ready descriptors (what the store's keeper waits on beside its changes: its inbox, its stop).
    func watch(
        _ pasteboard: PasteboardName, alsoWaitingOn descriptors: [Int32], _ body: (PasteboardChange?, [Int32]) throws -> Bool
    ) throws {
        let notify = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        defer { if notify >= 0 { close(notify) } }
        let package = root + "/" + pasteboard.rawValue + ".pasteboard"
        var last = try changeCount(of: pasteboard)
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        var parentWatch: Int32 = -1
        while true {
            // Whether inotify will tell of every change: the store's folder watched (or, while it does not
            // exist, its parent), and the package watched (or, while it does not exist, the folder).
            var watched = false
            if notify >= 0 {
                // Added again on each pass: a folder made or replaced since is watched from now on (the
                // store's parent tells when the store itself appears).
                let rootWatched = inotify_add_watch(notify, root, UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_ONLYDIR)) >= 0
                if rootWatched {
                    if parentWatch >= 0 { _ = inotify_rm_watch(notify, parentWatch) }
                    parentWatch = -1
                } else if parentWatch < 0 {
                    let parent = root.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
                    parentWatch = inotify_add_watch(notify, parent.isEmpty ? "/" : parent, UInt32(IN_CREATE | IN_MOVED_TO | IN_ONLYDIR))
                }
                let packageWatch = inotify_add_watch(notify, package, UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_CREATE | IN_ONLYDIR))
                let packageMissing = packageWatch < 0 && errno == ENOENT
                watched = rootWatched ? packageWatch >= 0 || packageMissing : parentWatch >= 0
            }
            var pollers = [pollfd(fd: notify, events: Int16(POLLIN), revents: 0)]
                + descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            _ = poll(&pollers, nfds_t(pollers.count), watched ? -1 : 1000)
            if notify >= 0 { while Glibc.read(notify, &buffer, buffer.count) > 0 {} }
            let ready = zip(descriptors, pollers.dropFirst()).filter { $0.1.revents != 0 }.map(\.0)
            if !ready.isEmpty, try !body(nil, ready) { return }
            guard let count = try? changeCount(of: pasteboard), count != last else { continue }
            last = count
            let items = (try? items(in: pasteboard)) ?? []
            let types = items.first?.types.map(\.type) ?? []
            let sensitive = items.contains { $0.metadata.flags.contains(.sensitive) }
            let change = PasteboardChange(changeCount: count, owner: types.isEmpty ? nil : "store", types: types, sensitive: sensitive)
            if try !body(change, []) { return }
        }
    }
}
