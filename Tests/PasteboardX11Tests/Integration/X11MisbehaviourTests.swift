import Foundation
import Pasteboard
import XCTest
import SystemIO

@testable import PasteboardX11

/// Hostile and broken peers against a real X server: they must neither block nor crash our owner,
/// and a dead or stalled owner must fail a paste within its deadline.
final class X11MisbehaviourTests: XvfbTestCase {
    /// Runs an ``X11SelectionOwner`` serving `payload` on its own thread until `flag` stops it.
    func startOwner(display: String, payload: Data, flag: StopFlag, stepTimeout: Double = 1) throws {
        let ready = DispatchSemaphore(value: 0)
        let thread = Thread {
            do {
                let connection = try XConnection(display: display)
                var options = X11SelectionOwner.Options()
                options.stepTimeout = stepTimeout
                let owner = X11SelectionOwner(connection: connection, options: options)
                try owner.claim(Item(representations: [Representation(type: .utf8PlainText, data: payload)]),
                                selections: [.clipboard])
                ready.signal()
                while !flag.isStopped {
                    try owner.step(until: MonotonicClock.nanoseconds() + 50_000_000)
                    flag.set("transfers", owner.machine.activeTransfers)
                }
                flag.set("alive", 1)
            } catch {
                flag.set("error", 1)
                ready.signal()
            }
        }
        thread.start()
        XCTAssertEqual(ready.wait(timeout: .now() + 10), .success)
        XCTAssertNil(flag.get("error"))
    }

    func waitForNotify(_ connection: XConnection, target: XAtom) throws -> SelectionNotify {
        let deadline = MonotonicClock.nanoseconds() + 5_000_000_000
        while let event = try connection.nextEvent(deadline: deadline) {
            if case .selectionNotify(let notify, _) = event, notify.target == target { return notify }
        }
        throw XCTSkip("no SelectionNotify")
    }

    /// The quick paste's connection interns only the four atoms a read of UTF8_STRING uses: a small
    /// reply and an INCR transfer (which also asks for XFixes) both come through whole.
    func testAReadThroughAConnectionInterningFourAtomsGetsEveryByte() throws {
        let display = try requireDisplay()
        for size in [12, 3 << 20] {
            let payload = Data((0..<size).map { UInt8(0x61 + $0 % 26) })
            let flag = StopFlag()
            try startOwner(display: display, payload: payload, flag: flag)
            defer { flag.stop() }
            let connection = try XConnection(display: display, interning: X11SelectionReader.atomsForReading(.clipboard))
            XCTAssertNil(connection.atoms.atom(named: KnownAtom.targets.rawValue))
            let reader = X11SelectionReader(connection: connection, selection: .clipboard)
            var received = Data()
            try reader.readDecoded(target: KnownAtom.utf8String.rawValue, sameType: true) { received.append($0) }
            XCTAssertEqual(received, payload, "\(size) bytes")
        }
    }

    func testMisbehavingRequestorsDoNotDelayAnotherPaste() throws {
        let display = try requireDisplay()
        let payload = Data((0..<(12 << 20)).map { UInt8(truncatingIfNeeded: $0 % 251) })
        let flag = StopFlag()
        try startOwner(display: display, payload: payload, flag: flag, stepTimeout: 1)
        defer { flag.stop() }

        let bad = try XConnection(display: display)
        let clipboard = bad.atoms[.clipboard]
        let utf8 = bad.atoms[.utf8String]
        // 1. A requestor that never deletes the INCR property.
        let lazy = bad.createWindow()
        bad.convertSelection(selection: clipboard, target: utf8, property: bad.atoms[.pbctlData], requestor: lazy, time: 0)
        try bad.flush()
        let first = try waitForNotify(bad, target: utf8)
        XCTAssertEqual(first.property, bad.atoms[.pbctlData])
        XCTAssertEqual(try bad.getProperty(window: lazy, property: bad.atoms[.pbctlData]).type, bad.atoms[.incr])
        // 2. A requestor that starts the transfer, then destroys its window mid-transfer.
        let doomed = bad.createWindow()
        bad.convertSelection(selection: clipboard, target: utf8, property: bad.atoms[.pbctlData], requestor: doomed, time: 0)
        try bad.flush()
        _ = try waitForNotify(bad, target: utf8)
        _ = try bad.getProperty(window: doomed, property: bad.atoms[.pbctlData], delete: true)
        try bad.flush()
        usleep(50_000)
        bad.destroyWindow(doomed)
        // 3. A nested MULTIPLE with a None property, and a bogus (never-written) parameter property.
        let nested = bad.createWindow()
        bad.changeProperty(PropertyWrite(window: nested, property: bad.atoms[.pbctlMultiple], type: bad.atoms[.atomPair],
                                         format: 32, bytes: PropertyValue.bytes(of: [bad.atoms[.multiple], bad.atoms[.pbctlSave], utf8, 0])))
        bad.convertSelection(selection: clipboard, target: bad.atoms[.multiple], property: bad.atoms[.pbctlMultiple], requestor: nested, time: 0)
        bad.convertSelection(selection: clipboard, target: bad.atoms[.multiple], property: bad.atoms[.pbctlTargets], requestor: nested, time: 0)
        try bad.flush()
        let multiple = try waitForNotify(bad, target: bad.atoms[.multiple])
        XCTAssertEqual(multiple.property, bad.atoms[.pbctlMultiple])
        let pairs = try bad.getProperty(window: nested, property: bad.atoms[.pbctlMultiple]).items32
        XCTAssertEqual(pairs, [bad.atoms[.multiple], 0, utf8, 0], "nested MULTIPLE and None property both fail")
        let bogus = try waitForNotify(bad, target: bad.atoms[.multiple])
        XCTAssertEqual(bogus.property, 0, "MULTIPLE without parameters is refused")

        // Meanwhile a well-behaved paste completes promptly and byte-exact.
        let good = try XConnection(display: display)
        let reader = X11SelectionReader(connection: good, selection: .clipboard, stepTimeout: 5)
        let start = Date()
        var received = Data()
        try reader.read(target: KnownAtom.utf8String.rawValue) { received.append($0) }
        XCTAssertLessThan(Date().timeIntervalSince(start), 3)
        XCTAssertEqual(received, payload)

        // The stalled transfer is dropped after its step timeout; the owner keeps running.
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertEqual(flag.get("transfers"), 0)
        XCTAssertNil(flag.get("error"))
        XCTAssertEqual(try good.selectionOwner(good.atoms[.clipboard]) != 0, true)
    }

    /// A fake owner that answers with INCR, sends one chunk, then dies (closes its connection) or stalls.
    func startDyingOwner(display: String, stall: Bool, flag: StopFlag) {
        let ready = DispatchSemaphore(value: 0)
        Thread {
            guard let connection = try? XConnection(display: display) else { ready.signal(); return }
            let clipboard = connection.atoms[.clipboard]
            let window = connection.utilityWindow
            // Claim and verify, as a real owner does: a claim whose time is older than the selection's
            // last change (the previous test's owner going away) is silently ignored by the server.
            for _ in 0..<20 {
                guard let time = try? connection.serverTime() else { break }
                connection.setSelectionOwner(clipboard, window: window, time: time)
                if (try? connection.selectionOwner(clipboard)) == window { break }
                usleep(20_000)
            }
            ready.signal()
            var chunks = 0
            while !flag.isStopped {
                guard let event = try? connection.nextEvent(deadline: MonotonicClock.nanoseconds() + 50_000_000) else { continue }
                switch event {
                case .selectionRequest(let request):
                    connection.selectEvents(on: request.requestor, mask: XConnection.propertyChangeMask)
                    connection.changeProperty(PropertyWrite(window: request.requestor, property: request.property,
                                                            type: connection.atoms[.incr], format: 32, bytes: PropertyValue.bytes(of: [1_000_000])))
                    connection.sendSelectionNotify(SelectionNotify(requestor: request.requestor, selection: request.selection,
                                                                   target: request.target, property: request.property, time: request.time))
                    try? connection.flush()
                case .propertyNotify(let w, let atom, _, true) where w != window:
                    chunks += 1
                    if chunks == 1 {
                        connection.changeProperty(PropertyWrite(window: w, property: atom, type: connection.atoms[.utf8String],
                                                                format: 8, bytes: Data(repeating: 65, count: 1000)))
                        try? connection.flush()
                    } else if !stall {
                        return  // The connection is dropped: the owner died mid-transfer.
                    }
                default: break
                }
            }
        }.start()
        _ = ready.wait(timeout: .now() + 10)
    }

    func testOwnerKilledMidIncrFailsThePasteQuicklyWithAClearError() throws {
        let display = try requireDisplay()
        let flag = StopFlag()
        defer { flag.stop() }
        startDyingOwner(display: display, stall: false, flag: flag)
        let reader = X11SelectionReader(connection: try XConnection(display: display), selection: .clipboard, stepTimeout: 3)
        let start = Date()
        var received = 0
        XCTAssertThrowsError(try reader.read(target: KnownAtom.utf8String.rawValue) { chunk in received += chunk.count }) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .timedOut, "\(error)")
            XCTAssertTrue("\(error)".contains("exited"), "\(error)")
        }
        XCTAssertEqual(received, 1000)
        XCTAssertLessThan(Date().timeIntervalSince(start), 2.5, "XFixes reports the owner's exit before the deadline")
    }

    func testStalledOwnerFailsThePasteAtTheStepDeadline() throws {
        let display = try requireDisplay()
        let flag = StopFlag()
        defer { flag.stop() }
        startDyingOwner(display: display, stall: true, flag: flag)
        let reader = X11SelectionReader(connection: try XConnection(display: display), selection: .clipboard, stepTimeout: 1)
        let start = Date()
        XCTAssertThrowsError(try reader.read(target: KnownAtom.utf8String.rawValue) { _ in }) { error in
            XCTAssertEqual(error as? ConversionFailure, .timedOut(phase: "waiting for the next INCR chunk"))
        }
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertGreaterThanOrEqual(elapsed, 0.9)
        XCTAssertLessThan(elapsed, 2.5)
    }

    func testOwnershipIsClaimedWithAServerTimestampAndVerified() throws {
        let display = try requireDisplay()
        let connection = try XConnection(display: display)
        let owner = X11SelectionOwner(connection: connection)
        let before = try connection.serverTime()
        try owner.claim(Item(representations: [Representation(type: .utf8PlainText, data: Data("t".utf8))]), selections: [.clipboard, .primary])
        let time = try XCTUnwrap(owner.machine.acquisitionTime(of: connection.atoms[.clipboard]))
        XCTAssertNotEqual(time, 0, "never CurrentTime")
        XCTAssertFalse(time.isEarlier(than: before))
        XCTAssertEqual(try connection.selectionOwner(connection.atoms[.clipboard]), connection.utilityWindow)
        XCTAssertNotEqual(try connection.selectionOwner(connection.atoms[.primary]), 0)
        // TIMESTAMP answers the acquisition time (read from another client while we serve).
        let flag = StopFlag()
        let display2 = display
        Thread {
            guard let other = try? XConnection(display: display2) else { return }
            let reader = X11SelectionReader(connection: other, selection: .clipboard)
            var bytes = Data()
            if (try? reader.read(target: KnownAtom.timestamp.rawValue) { bytes.append($0) }) != nil {
                flag.set("timestamp", Int(PropertyValue(type: 19, format: 32, bytes: bytes).items32?.first ?? 0))
            }
            flag.stop()
        }.start()
        let deadline = MonotonicClock.nanoseconds() + 5_000_000_000
        while !flag.isStopped && MonotonicClock.nanoseconds() < deadline {
            try owner.step(until: MonotonicClock.nanoseconds() + 20_000_000)
        }
        XCTAssertEqual(flag.get("timestamp"), Int(time))
    }
}
