import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest
@testable import PasteboardWayland
@testable import Pasteboard

/// What a paste costs in round trips, against a real compositor: a headless sway run as an unprivileged
/// user (scripts/headless-sway.sh, as `pbctlTests/WaylandTests` start it), wl-copy owning the selection.
/// Two: the registry, then the bound device (whose first events bring the selection and its offer);
/// listing the types and reading one answer from the offer cached by those events.
final class WaylandRoundTripTests: XCTestCase {
    nonisolated(unsafe) static var socket: String?
    nonisolated(unsafe) static var swayPID: Int32 = 0
    nonisolated(unsafe) static var problem = "headless sway did not start"
    nonisolated(unsafe) static var directory = ""
    /// wl-copy processes this test started, ended by their pid.
    var owners: [Process] = []

    override class func setUp() {
        super.setUp()
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sway") else {
            problem = "sway is not installed (TEST_DEPS)"
            return
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/headless-sway.sh").path
        directory = NSTemporaryDirectory() + "pbctl-roundtrips-\(getpid())"
        guard let output = popen("/bin/bash '\(script)' '\(directory)' 2>&1", "r") else { return }
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, output)
            guard n > 0 else { break }
            text += String(decoding: buffer[0..<n], as: UTF8.self)
        }
        let status = pclose(output)
        let parts = text.split(separator: " ")
        guard status == 0, parts.count == 2 else {
            problem = "headless sway did not start: \(text)"
            return
        }
        socket = String(parts[0])
        swayPID = Int32(parts[1].trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    override class func tearDown() {
        if swayPID > 0 { kill(swayPID, SIGTERM) }
        try? FileManager.default.removeItem(atPath: directory)
        super.tearDown()
    }

    override func setUpWithError() throws {
        guard Self.socket != nil else { throw XCTSkip(Self.problem) }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/wl-copy") else { throw XCTSkip("wl-copy is not installed (wl-clipboard, TEST_DEPS)") }
    }

    override func tearDown() {
        for owner in owners where owner.isRunning {
            owner.terminate()
            owner.waitUntilExit()
        }
        super.tearDown()
    }

    var environment: [String: String] { ["WAYLAND_DISPLAY": Self.socket!] }

    /// Starts `wl-copy --foreground` owning the selection with `text`, and waits until a client sees it.
    func copy(_ text: String) throws {
        let owner = Process()
        owner.executableURL = URL(fileURLWithPath: "/usr/bin/wl-copy")
        owner.arguments = ["--foreground", text]
        owner.environment = environment
        owner.standardOutput = FileHandle.nullDevice
        try owner.run()
        owners.append(owner)
        let end = Date().addingTimeInterval(10)
        while Date() < end {
            if let backend = try? WaylandBackend(environment: environment),
               let data = try? backend.read(.utf8PlainText, item: 0, from: .general), data == Data(text.utf8) {
                return
            }
            usleep(20_000)
        }
        XCTFail("wl-copy did not take the selection")
    }

    func testAPasteMakesTwoRoundTrips() throws {
        try copy("two round trips")
        let backend = try WaylandBackend(environment: environment)
        XCTAssertEqual(backend.connection.roundTrips - backend.connection.confirmationRoundTrips, 2, "connecting: the registry, then the device")
        // What `pbctl paste` asks: the types, then one of them.
        let items = try backend.items(in: .general)
        XCTAssertEqual(items.first?.types.first?.type, .utf8PlainText)
        let sink = DataSink()
        try backend.read(.utf8PlainText, item: 0, from: .general, into: sink)
        XCTAssertEqual(String(decoding: sink.data, as: UTF8.self), "two round trips")
        XCTAssertEqual(backend.connection.roundTrips - backend.connection.confirmationRoundTrips, 2, "listing and reading a small text cost no round trip")
        // Again: still none.
        XCTAssertEqual(try backend.read(.utf8PlainText, item: 0, from: .general), Data("two round trips".utf8))
        XCTAssertEqual(try backend.changeCount(of: .general) > 0, true)
        XCTAssertEqual(backend.connection.roundTrips - backend.connection.confirmationRoundTrips, 2)

        // The fast paste: the same connection, then the receive.
        let connection = try WaylandBackend.connect(display: Self.socket, runtimeDirectory: nil)
        let offer = try XCTUnwrap(connection.client.selection)
        let fast = DataSink()
        try connection.receive(offer: offer, mime: "text/plain;charset=utf-8", primary: false, into: fast, stepTimeout: 5)
        XCTAssertEqual(fast.data, Data("two round trips".utf8))
        XCTAssertEqual(connection.roundTrips - connection.confirmationRoundTrips, 2)
    }

    /// The offer cached per selection follows the selection: a new owner's content is what the same
    /// backend reads once the compositor's events have come, still without a round trip.
    func testTheCachedOfferFollowsANewSelection() throws {
        try copy("first")
        let backend = try WaylandBackend(environment: environment)
        XCTAssertEqual(try backend.read(.utf8PlainText, item: 0, from: .general), Data("first".utf8))
        var readCount = 1
        try copy("second")
        let end = Date().addingTimeInterval(5)
        var pasted = Data()
        while Date() < end {
            readCount += 1
            pasted = (try? backend.read(.utf8PlainText, item: 0, from: .general)) ?? Data()
            if pasted == Data("second".utf8) { break }
            usleep(10_000)
        }
        XCTAssertEqual(String(decoding: pasted, as: UTF8.self), "second")
        XCTAssertEqual(backend.connection.roundTrips, 2, "none to learn of the new selection (\(readCount) reads)")
    }
}
