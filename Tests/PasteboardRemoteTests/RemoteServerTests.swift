import Foundation
import Pasteboard
import SystemIO
import XCTest

@testable import PasteboardRemote

/// A remote pbctl and the local server, in one process over a real Unix socket, with an in-memory
/// clipboard behind the server: every request both ways, the policy, and a stream of megabytes.
final class RemoteServerTests: XCTestCase {
    var folder = ""
    var server: RemoteServer!
    var local: InMemoryPasteboard!
    var written: [Item] = []

    func start(_ policy: RemoteServer.Policy = RemoteServer.Policy()) throws {
        folder = NSTemporaryDirectory() + "pbctl-remote-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        local = InMemoryPasteboard()
        let backend = local!
        server = try RemoteServer(
            socketPath: folder + "/socket", policy: policy, origin: ForeignContent.Origin(host: "far-host", label: "pbctl ssh: far-host"), place: "test", temporaryFolder: folder, log: nil,
            open: { backend },
            makeItem: { received, metadata in Item(representations: received, metadata: metadata) },
            afterWrite: { _, _, _, _ in })
        let running = server!
        DispatchQueue.global().async { running.run() }
    }

    override func tearDown() {
        server?.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    func text(_ string: String, _ type: TypeIdentifier = .utf8PlainText) -> Item {
        Item(representations: [Representation(type: type, data: Data(string.utf8))])
    }

    func testEveryRequestBothWays() throws {
        try start()
        let remote = try RemotePasteboard(path: folder + "/socket", timeout: 2)
        XCTAssertEqual(remote.place, "test")
        XCTAssertEqual(try remote.items(in: .general), [])
        try local.write([text("from here")], to: .general)
        XCTAssertEqual(try remote.items(in: .general).first?.types.map(\.type), [.utf8PlainText])
        XCTAssertEqual(try remote.read(.utf8PlainText, item: 0, from: .general), Data("from here".utf8))
        XCTAssertThrowsError(try remote.read(.png, item: 0, from: .general))
        var item = text("# there", .markdown)
        item.set(Representation(type: .html, derivedFrom: .markdown) { Data("<h1>there</h1>".utf8) })
        try remote.write([item], to: .general, options: CopyOptions())
        XCTAssertEqual(try local.read(.markdown, item: 0, from: .general), Data("# there".utf8))
        XCTAssertEqual(try local.items(in: .general).first?.types.map(\.type), [.markdown], "promised types are made on this side, not sent")
        XCTAssertGreaterThan(try remote.changeCount(of: .general), 0)
        try remote.clear(.general)
        XCTAssertEqual(try local.items(in: .general), [])
    }

    func testMegabytesStreamBothWaysByteExact() throws {
        try start()
        let remote = try RemotePasteboard(path: folder + "/socket", timeout: 2)
        var bytes = Data(count: 5 << 20)
        bytes.withUnsafeMutableBytes { raw in for i in 0..<raw.count { raw[i] = UInt8(truncatingIfNeeded: i &* 131 &+ i >> 9) } }
        try remote.write([Item(representations: [Representation(type: .data, data: bytes)])], to: .general, options: CopyOptions())
        XCTAssertEqual(try local.read(.data, item: 0, from: .general), bytes)
        XCTAssertEqual(try remote.read(.data, item: 0, from: .general), bytes)
    }

    func testSensitiveContentIsNotServedUnlessAllowed() throws {
        try start()
        var secret = text("hunter2")
        secret.metadata.flags.insert(.sensitive)
        try local.write([secret], to: .general)
        let remote = try RemotePasteboard(path: folder + "/socket", timeout: 2)
        XCTAssertEqual(try remote.items(in: .general), [])
        XCTAssertThrowsError(try remote.read(.utf8PlainText, item: 0, from: .general)) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .empty)
        }
        server.stop()
        var policy = RemoteServer.Policy()
        policy.allowSensitive = true
        try start(policy)
        try local.write([secret], to: .general)
        XCTAssertEqual(try RemotePasteboard(path: folder + "/socket", timeout: 2).read(.utf8PlainText, item: 0, from: .general), Data("hunter2".utf8))
    }

    func testReadOnlyAndWriteOnly() throws {
        var policy = RemoteServer.Policy()
        policy.canWrite = false
        try start(policy)
        try local.write([text("kept")], to: .general)
        let remote = try RemotePasteboard(path: folder + "/socket", timeout: 2)
        XCTAssertFalse(remote.canWrite)
        XCTAssertThrowsError(try remote.write([text("no")], to: .general, options: CopyOptions())) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .refused)
        }
        XCTAssertEqual(try remote.read(.utf8PlainText, item: 0, from: .general), Data("kept".utf8), "the connection still works after a refusal")
        XCTAssertThrowsError(try remote.clear(.general))
        server.stop()
        policy = RemoteServer.Policy()
        policy.canRead = false
        try start(policy)
        let writer = try RemotePasteboard(path: folder + "/socket", timeout: 2)
        XCTAssertThrowsError(try writer.items(in: .general))
        try writer.write([text("in")], to: .general, options: CopyOptions())
        XCTAssertEqual(try local.read(.utf8PlainText, item: 0, from: .general), Data("in".utf8))
    }

    func testANonAnsweringSocketFailsFast() throws {
        folder = NSTemporaryDirectory() + "pbctl-remote-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        XCTAssertThrowsError(try RemotePasteboard(path: folder + "/missing", timeout: 1)) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .unavailable)
        }
        // A socket that accepts but never answers: the greeting times out.
        let listener = try RemoteServerTestListener(path: folder + "/silent")
        let started = MonotonicClock.seconds()
        XCTAssertThrowsError(try RemotePasteboard(path: folder + "/silent", timeout: 0.5))
        XCTAssertLessThan(MonotonicClock.seconds() - started, 5)
        _ = listener
    }
}

/// A Unix socket that accepts connections (the kernel's backlog) and never says anything.
final class RemoteServerTestListener {
    let fd: Int32
    init(path: String) throws { fd = try RemoteServer.listen(path) }
    deinit { close(fd) }
}
