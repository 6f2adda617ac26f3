import Foundation
import XCTest
@testable import PasteboardWayland
@testable import Pasteboard

/// The daemon's fetch of a new selection without an owner: the receives it asks for and what it keeps,
/// given how each went.
final class WaylandFetchStateMachineTests: XCTestCase {
    typealias Machine = WaylandFetchStateMachine
    let second: UInt64 = 1_000_000_000

    static func type(_ mime: String) -> TypeIdentifier {
        switch mime {
        case "text/plain;charset=utf-8", "text/plain", "UTF8_STRING", "TEXT", "STRING": .utf8PlainText
        case "text/html": .html
        case "image/png": .png
        default: TypeIdentifier(mime)
        }
    }

    static func mimes(_ type: TypeIdentifier) -> [String] {
        switch type {
        case .utf8PlainText: ["text/plain;charset=utf-8", "UTF8_STRING", "text/plain"]
        case .html: ["text/html"]
        default: []
        }
    }

    func machine(_ mimes: [String], _ configuration: Machine.Configuration = .init(), now: UInt64 = 0) -> Machine {
        Machine(mimes: mimes, configuration: configuration, now: now, type: Self.type, mimeTypes: Self.mimes)
    }

    /// The receive an action list ends with.
    func receive(_ actions: [Machine.Action]) -> String? {
        if case .receive(let mime)? = actions.last { return mime }
        return nil
    }

    func finished(_ actions: [Machine.Action]) -> Machine.Fetched? {
        if case .finished(let fetched)? = actions.last { return fetched }
        return nil
    }

    func logs(_ actions: [Machine.Action]) -> [String] {
        actions.compactMap { if case .log(let line) = $0 { line } else { nil } }
    }

    func testOneReceivePerTypeUnderThePreferredMIMETypeMarkersLeftOut() {
        let m = machine(["TEXT", "text/html", "x-kde-passwordManagerHint", "UTF8_STRING", "text/plain", "image/png", "org.nspasteboard.TransientType"])
        XCTAssertEqual(m.plan.map(\.type), [.utf8PlainText, .html, .png])
        XCTAssertEqual(m.plan.map(\.mime), ["UTF8_STRING", "text/html", "image/png"],
                       "pbctl's preferred name among those offered, else the first offered")
        XCTAssertEqual(m.plan[0].offered, ["TEXT", "UTF8_STRING", "text/plain"], "each type's names, as offered")
        XCTAssertEqual(machine(["a/1", "a/2", "a/3"], .init(maxTypes: 2)).plan.map(\.mime), ["a/1", "a/2"], "at most maxTypes types")
        XCTAssertEqual(machine(["text/plain", "a/1"], .init(maxTypes: 1)).plan.map(\.offered), [["text/plain"]])
    }

    func testEachTypeIsReceivedInTurnAndKept() throws {
        var m = machine(["text/plain", "text/html"])
        XCTAssertEqual(receive(m.start(now: 0)), "text/plain")
        XCTAssertEqual(receive(m.received(.complete(Data("hi".utf8)), now: 1)), "text/html")
        let fetched = try XCTUnwrap(finished(m.received(.complete(Data("<p>hi</p>".utf8)), now: 2)))
        XCTAssertEqual(fetched.representations.map(\.type), [.utf8PlainText, .html])
        XCTAssertEqual(try fetched.representations[1].data(), Data("<p>hi</p>".utf8))
        XCTAssertEqual(fetched.names, [.utf8PlainText: ["text/plain"], .html: ["text/html"]])
        XCTAssertEqual(fetched.skipped, [])
        XCTAssertTrue(m.received(.complete(Data()), now: 3).isEmpty, "nothing after the end")
    }

    /// Over the cap: read to its end (the owner is not cut off), not kept, and listed as skipped with
    /// its size; a failure once over the cap is listed without a size; other failures only logged.
    func testTypesOverTheCapAreSkippedWithTheirSize() throws {
        var m = machine(["text/plain", "text/html", "image/png"], .init(maxRepresentationBytes: 10))
        _ = m.start(now: 0)
        let over = m.received(.overLimit(size: 300), now: 1)
        XCTAssertEqual(logs(over), ["text/plain not kept: 300 bytes, over 10"])
        XCTAssertEqual(receive(over), "text/html")
        let failed = m.received(.failed("more than 10 bytes, still sending at the fetch deadline", overLimit: true), now: 2)
        XCTAssertEqual(logs(failed), ["text/html not kept: more than 10 bytes, still sending at the fetch deadline"])
        let fetched = try XCTUnwrap(finished(m.received(.failed("the owner stopped sending", overLimit: false), now: 3)))
        XCTAssertEqual(fetched.representations.count, 0)
        XCTAssertEqual(fetched.skipped, [TypeSummary(type: .utf8PlainText, size: 300), TypeSummary(type: .html)])
    }

    /// The fetch deadline: no type begins after it (each one left out is logged).
    func testNoTypeBeginsAfterTheDeadline() throws {
        var m = machine(["text/plain", "text/html", "image/png"], .init(fetchDeadline: 8 * second), now: 100 * second)
        XCTAssertEqual(m.deadline, 108 * second)
        _ = m.start(now: 100 * second)
        let late = m.received(.complete(Data("hi".utf8)), now: 108 * second)
        XCTAssertEqual(logs(late), ["fetch deadline passed: public.html left out", "fetch deadline passed: public.png left out"])
        let fetched = try XCTUnwrap(finished(late))
        XCTAssertEqual(fetched.representations.map(\.type), [.utf8PlainText], "what came in time is kept")

        var expired = machine(["text/plain"], .init(fetchDeadline: 0))
        XCTAssertEqual(logs(expired.start(now: 0)), ["fetch deadline passed: public.utf8-plain-text left out"])
    }

    func testAnOfferOfMarkersOnlyFetchesNothing() throws {
        var m = machine(["org.nspasteboard.ConcealedType"])
        XCTAssertEqual(m.plan.count, 0)
        let fetched = try XCTUnwrap(finished(m.start(now: 0)))
        XCTAssertTrue(fetched.representations.isEmpty)
    }

    /// The sink: keeps up to the cap, then only counts (so the owner writes to its end), and stops the
    /// read at the drain deadline.
    func testTheCappedSinkCountsPastItsCapUntilTheDeadline() throws {
        var clock: UInt64 = 0
        let sink = CappedSink(limit: 4, drainUntil: 10, now: { clock })
        try sink.write(Data("abc".utf8))
        XCTAssertEqual(sink.outcome(error: nil), .complete(Data("abc".utf8)))
        try sink.write(Data("de".utf8))
        XCTAssertTrue(sink.isOverLimit)
        XCTAssertEqual(sink.data, Data(), "nothing held past the cap")
        try sink.write(Data(count: 100))
        XCTAssertEqual(sink.size, 105)
        XCTAssertEqual(sink.outcome(error: nil), .overLimit(size: 105))
        clock = 10
        XCTAssertThrowsError(try sink.write(Data("f".utf8))) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .timedOut)
            XCTAssertEqual(sink.outcome(error: error), .failed("more than 4 bytes, still sending at the fetch deadline", overLimit: true))
        }
        // Under the cap, the deadline does not cut a transfer.
        let small = CappedSink(limit: 4, drainUntil: 0, now: { 100 })
        try small.write(Data("ab".utf8))
        XCTAssertEqual(small.outcome(error: PasteboardError(.timedOut, "stalled")), .failed("stalled", overLimit: false))
    }

    /// The probe an action list ends with.
    func probe(_ actions: [Machine.Action]) -> String? {
        if case .probe(let mime)? = actions.last { return mime }
        return nil
    }

    /// Ends of data not confirmed as the owner's own: one probe after the last type, under the last such
    /// type that brought bytes; an owner alive keeps everything.
    func testUnconfirmedEndsAreProbedOnceAfterTheLastType() throws {
        var m = machine(["text/plain", "text/html", "image/png"])
        XCTAssertEqual(receive(m.start(now: 0)), "text/plain")
        XCTAssertEqual(receive(m.received(.unconfirmed(Data("text".utf8)), now: 1)), "text/html")
        XCTAssertEqual(receive(m.received(.unconfirmed(Data("<b>".utf8)), now: 2)), "image/png")
        XCTAssertEqual(probe(m.received(.complete(Data([1])), now: 3)), "text/html", "one probe, after the last receive")
        let fetched = try XCTUnwrap(finished(m.probed(alive: true, now: 4)))
        XCTAssertEqual(fetched.representations.map(\.type), [.utf8PlainText, .html, .png])
        XCTAssertTrue(fetched.skipped.isEmpty)
        XCTAssertTrue(m.probed(alive: true, now: 5).isEmpty, "only one probe is answered")
    }

    /// A probe that finds the owner dead (or cannot ask it) keeps nothing unconfirmed: reported cut short.
    func testAProbeThatFindsTheOwnerGoneKeepsNothingUnconfirmed() throws {
        for alive in [false, nil] as [Bool?] {
            var m = machine(["text/plain", "text/html"])
            _ = m.start(now: 0)
            _ = m.received(.complete(Data("whole".utf8)), now: 1)
            XCTAssertEqual(probe(m.received(.unconfirmed(Data("<b>cut".utf8)), now: 2)), "text/html")
            let actions = m.probed(alive: alive, reason: "the offer is gone", now: 3)
            let fetched = try XCTUnwrap(finished(actions))
            XCTAssertEqual(fetched.representations.map(\.type), [.utf8PlainText])
            XCTAssertEqual(fetched.skipped, [TypeSummary(type: .html, cutShort: true)], "\(String(describing: alive))")
            XCTAssertNil(fetched.names[.html])
            XCTAssertEqual(logs(actions).count, 1)
        }
    }

    /// No probe when every end was confirmed, when only empty transfers were unconfirmed, or when the
    /// fetch was cut short already.
    func testNoProbeWhenNothingNeedsIt() throws {
        var confirmed = machine(["text/plain"])
        _ = confirmed.start(now: 0)
        XCTAssertNotNil(finished(confirmed.received(.complete(Data("a".utf8)), now: 1)))
        var empty = machine(["text/plain"])
        _ = empty.start(now: 0)
        XCTAssertNotNil(finished(empty.received(.unconfirmed(Data()), now: 1)))
        var cut = machine(["text/plain", "text/html"])
        _ = cut.start(now: 0)
        _ = cut.received(.unconfirmed(Data("a".utf8)), now: 1)
        XCTAssertNotNil(finished(cut.received(.cutShort("gone"), now: 2)))
    }
}
