#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Pasteboard
import Synchronization

/// A keeper over an ``InMemoryPasteboard`` (the daemon's embedded keeper, as swift-nio's
/// `EmbeddedChannel` is a channel without sockets): it serves the restored item when empty, takes what
/// the inbox holds as the clipboard and hands it over with its origin, and hands over each "application
/// copy" a test makes (``applicationCopied(_:)``) with no origin, as a display's keeper does.
final class MemoryKeeper: ClipboardKeeping, @unchecked Sendable {
    let board = InMemoryPasteboard()
    private let stopPair: [Int32]
    private let copiesPipe: [Int32]
    private let copies = Mutex<[Item]>([])
    /// How many times ``keep(_:ready:)`` ran.
    let runs = Mutex(0)

    init() {
        var pair: [Int32] = [-1, -1]
        precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        stopPair = pair
        var fds: [Int32] = [-1, -1]
        precondition(pipe(&fds) == 0)
        copiesPipe = fds
    }

    deinit {
        for fd in stopPair + copiesPipe { close(fd) }
    }

    var info: BackendInfo { BackendInfo(name: "memory") }
    func write(_ items: [Item], to pasteboard: PasteboardName, options: CopyOptions) throws -> Int {
        try board.write(items, to: pasteboard, options: options)
    }
    func items(in pasteboard: PasteboardName) throws -> [ItemSummary] { try board.items(in: pasteboard) }
    func read(_ type: TypeIdentifier, item index: Int, from pasteboard: PasteboardName) throws -> Data {
        try board.read(type, item: index, from: pasteboard)
    }
    func clear(_ pasteboard: PasteboardName) throws { try board.clear(pasteboard) }
    func changeCount(of pasteboard: PasteboardName) throws -> Int { try board.changeCount(of: pasteboard) }

    func runningKeeper() throws -> String? { nil }
    var stopDescriptor: Int32 { stopPair[0] }
    var keptPlace: String { "memory" }

    /// The clipboard's text now.
    var text: String? {
        guard let data = try? board.read(.utf8PlainText, item: 0, from: .general) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// An application copies `item` while the daemon runs.
    func applicationCopied(_ item: Item) {
        copies.withLock { $0.append(item) }
        var byte: UInt8 = 1
        _ = Glibc.write(copiesPipe[1], &byte, 1)
    }

    /// Ends ``keep(_:ready:)`` as a signal would (the stop descriptor shut down).
    func stop() { _ = shutdown(stopPair[0], Int32(SHUT_RDWR)) }

    func keep(_ options: KeepOptions, ready: () -> Void) throws -> KeepEnd {
        runs.withLock { $0 += 1 }
        if let restore = options.restore, try board.items(in: .general).isEmpty {
            _ = try board.write([restore], to: .general, options: CopyOptions())
        }
        ready()
        while true {
            var fds = [
                pollfd(fd: stopPair[0], events: Int16(POLLIN), revents: 0), pollfd(fd: copiesPipe[0], events: Int16(POLLIN), revents: 0),
                pollfd(fd: options.inbox?.descriptor ?? -1, events: Int16(POLLIN), revents: 0),
            ]
            guard poll(&fds, 3, 30_000) > 0 else { return .lost(reason: "nothing happened for 30 s") }
            if fds[0].revents != 0 { return .replaced }
            if fds[1].revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 64)
                _ = Glibc.read(copiesPipe[0], &buffer, buffer.count)
                for item in copies.withLock({ copies in defer { copies.removeAll() }; return copies }) {
                    _ = try board.write([item], to: .general, options: CopyOptions())
                    options.record?(KeptContent(item: item, application: "editor", selection: "clipboard", skipped: []))
                }
            }
            if fds[2].revents != 0, let offered = options.inbox?.takeNewest() {
                _ = try board.write([options.complete?(offered.item) ?? offered.item], to: .general, options: CopyOptions())
                options.record?(
                    KeptContent(item: offered.item, application: offered.origin.label, selection: "clipboard", skipped: [], origin: offered.origin))
            }
        }
    }
}

/// A peer that remembers what it is told, and delivers what a test makes it receive, from device `id`.
final class RecordingPeer: ClipboardPeer, @unchecked Sendable {
    let id: String
    let heard = Mutex<[KeptContent]>([])
    private let delivery = Mutex<(@Sendable (OfferedItem) -> Void)?>(nil)
    let stopped = Mutex(false)

    init(id: String) { self.id = id }

    var origin: ItemOrigin { ItemOrigin(.device(id: id), label: "Test: \(id)") }

    func start(deliver: @escaping @Sendable (OfferedItem) -> Void) throws { delivery.withLock { $0 = deliver } }
    func accepts(origin: ItemOrigin) -> Bool { origin.kind != .device(id: id) }
    func localChange(_ kept: KeptContent) { heard.withLock { $0.append(kept) } }
    func stop() { stopped.withLock { $0 = true } }
    var summary: String { "test peer \(id)" }

    /// The device sends `text`.
    func receive(_ text: String) {
        let deliver = delivery.withLock { $0 }
        deliver?(OfferedItem(item: Item.text(text), origin: origin))
    }

    var heardTexts: [String] { heard.withLock { $0.map { $0.item.textForTests } } }
}

extension Item {
    static func text(_ text: String) -> Item { Item(representations: [Representation(type: .utf8PlainText, data: Data(text.utf8))]) }
    var textForTests: String {
        (try? representation(for: .utf8PlainText)?.data()).flatMap { $0.map { String(decoding: $0, as: UTF8.self) } } ?? ""
    }
}

/// Waits (at most `seconds`, a bound on a hang, not a timing assertion) until `condition` holds.
func eventually(_ seconds: Double = 20, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}

/// A folder of its own for a test, removed by the caller.
func temporaryFolder() -> String {
    let path = NSTemporaryDirectory() + "pbctl-clipboardmanager-\(getpid())-\(UUID().uuidString)"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Moves a non-Sendable value into a thread's closure (the test owns both sides).
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
