import Foundation
import XCTest
@testable import PasteboardWayland
@testable import Pasteboard

/// The daemon's decisions without a compositor: which selection it fetches, keeps, records and offers
/// again, and when.
final class WaylandManagerStateMachineTests: XCTestCase {
    typealias Machine = WaylandManagerStateMachine
    let second: UInt64 = 1_000_000_000

    /// Live offers: 1 and 2 plain text, 3 marked secret (KDE), 4 transient, 5 concealed, 6 no types.
    let offers: ObjectTable<[String]> = {
        var offers = ObjectTable<[String]>()
        offers[1] = ["text/plain"]
        offers[2] = ["text/html", "text/plain"]
        offers[3] = ["text/plain", "x-kde-passwordManagerHint"]
        offers[4] = ["text/plain", "org.nspasteboard.TransientType"]
        offers[5] = ["org.nspasteboard.ConcealedType", "text/plain"]
        offers[6] = []
        return offers
    }()

    func fetched(_ text: String, skipped: [TypeSummary] = []) -> WaylandFetchStateMachine.Fetched {
        .init(representations: [Representation(type: .utf8PlainText, data: Data(text.utf8))], names: [.utf8PlainText: ["text/plain"]], skipped: skipped)
    }

    /// The actions as text, without the changes counted (``testEveryForeignSelectionIsCountedOnce``).
    func describe(_ actions: [Machine.Action]) -> [String] { actions.map(\.description).filter { !$0.hasPrefix("changed ") } }

    /// Each new selection of another client is a change to count (the compositor's shared count), the
    /// manager's own offer is none, and neither is a clearing (it is served again, or counted by readers).
    func testEveryForeignSelectionIsCountedOnce() {
        var (m, _) = started(selection: 1)
        XCTAssertEqual(m.step(now: 0, offers: offers).map(\.description), ["changed clipboard [\"text/plain\"]", "fetch clipboard offer 1"])
        _ = m.fetched(primary: false, fetched("one"), metadata: ItemMetadata())
        m.selectionChanged(primary: false, offer: 3, current: 3)
        XCTAssertEqual(m.step(now: 1, offers: offers).first?.description, "changed clipboard [\"text/plain\", \"x-kde-passwordManagerHint\"]",
                       "a secret is a change too, though not kept")
        m.selectionChanged(primary: false, offer: nil, current: nil)
        XCTAssertFalse(m.step(now: 2, offers: offers).contains { $0.description.hasPrefix("changed") })
    }

    func started(_ configuration: Machine.Configuration = .init(), selection: UInt32? = nil, primary: UInt32? = nil,
                 supportsPrimary: Bool = true, restore: Item? = nil) -> (Machine, [String]) {
        var machine = Machine(configuration: configuration)
        let actions = machine.start(selection: selection, primarySelection: primary, supportsPrimary: supportsPrimary, restore: restore)
        return (machine, describe(actions))
    }

    func testAtStartTheCurrentSelectionsAreLookedAt() {
        var (m, actions) = started(selection: 1)
        XCTAssertEqual(actions, [])
        XCTAssertFalse(m.watchesPrimary, "the clipboard only, without --primary or history.primary")
        XCTAssertTrue(m.hasPendingChanges)
        XCTAssertEqual(describe(m.step(now: 0, offers: offers)), ["fetch clipboard offer 1"])
        XCTAssertFalse(m.hasPendingChanges)

        var (both, _) = started(.init(primary: true), selection: 1, primary: 2)
        XCTAssertTrue(both.watchesPrimary)
        XCTAssertEqual(describe(both.step(now: 0, offers: offers)), ["fetch clipboard offer 1", "fetch primary offer 2"])
        XCTAssertTrue(started(.init(recordPrimary: true)).0.watchesPrimary, "history.primary watches it too")

        let (wlrOne, logs) = started(.init(primary: true), supportsPrimary: false)
        XCTAssertFalse(wlrOne.watchesPrimary)
        XCTAssertEqual(logs, ["log the compositor offers no primary selection to clipboard managers: keeping the clipboard only"])
    }

    /// The history's newest entry is served when the clipboard is empty at start, never over a content.
    func testTheNewestHistoryEntryIsServedOnAnEmptyClipboard() {
        let restore = Item(representations: [Representation(type: .utf8PlainText, data: Data("from history".utf8))])
        var (m, logs) = started(restore: restore)
        XCTAssertEqual(logs, ["log the clipboard is empty: serving the newest history entry"])
        XCTAssertEqual(describe(m.step(now: 0, offers: offers)), ["serve clipboard [\"public.utf8-plain-text\"]"])
        XCTAssertEqual(try m.kept()?.item.representations.first?.data(), Data("from history".utf8))

        var (busy, none) = started(selection: 1, restore: restore)
        XCTAssertEqual(none, [])
        XCTAssertNil(busy.kept())
        XCTAssertEqual(describe(busy.step(now: 0, offers: offers)), ["fetch clipboard offer 1"])
        XCTAssertEqual(started(restore: Item()).1, [], "an empty entry is nothing to serve")
    }

    func testWhatIsFetchedIsKeptAndRecorded() {
        var (m, _) = started(selection: 1)
        _ = m.step(now: 0, offers: offers)
        let actions = m.fetched(primary: false, fetched("hello"), metadata: ItemMetadata())
        XCTAssertEqual(describe(actions), [
            "log kept 1 types of the clipboard: public.utf8-plain-text",
            "record clipboard [\"public.utf8-plain-text\"] skipped []",
        ])
        XCTAssertEqual(m.kept()?.names, [.utf8PlainText: ["text/plain"]])
        // Something skipped for its size goes to the history with what was kept.
        let skipped = m.fetched(primary: false, fetched("again", skipped: [TypeSummary(type: .png, size: 99)]), metadata: ItemMetadata())
        XCTAssertEqual(describe(skipped).last, "record clipboard [\"public.utf8-plain-text\"] skipped [\"public.png\"]")
    }

    /// Nothing fetched: what was kept stays kept; a content too large to keep is recorded all the same,
    /// listed as skipped.
    func testAFetchOfNothingKeepsWhatWasKept() {
        var (m, _) = started(selection: 1)
        _ = m.fetched(primary: false, fetched("kept"), metadata: ItemMetadata())
        let nothing = m.fetched(primary: false, .init(representations: [], names: [:], skipped: []), metadata: ItemMetadata())
        XCTAssertEqual(describe(nothing), ["log new clipboard content: nothing could be fetched"])
        let tooLarge = m.fetched(primary: false, .init(representations: [], names: [:], skipped: [TypeSummary(type: .png, size: 1 << 30)]),
                                 metadata: ItemMetadata())
        XCTAssertEqual(describe(tooLarge), ["log new clipboard content: nothing could be fetched", "record clipboard [] skipped [\"public.png\"]"])
        XCTAssertEqual(try m.kept()?.item.representations.first?.data(), Data("kept".utf8))
    }

    /// Sensitive or transient content is neither fetched, kept nor recorded, and clears what was kept:
    /// a cleared password manager's copy is not brought back.
    func testSensitiveOrTransientContentIsNeverKept() {
        for offer in [UInt32(3), 4, 5] {
            var (m, _) = started(selection: 1)
            _ = m.step(now: 0, offers: offers)
            _ = m.fetched(primary: false, fetched("before"), metadata: ItemMetadata())
            m.selectionChanged(primary: false, offer: offer, current: offer)
            XCTAssertEqual(describe(m.step(now: 0, offers: offers)), ["log new clipboard content marked sensitive or transient: not kept"], "offer \(offer)")
            XCTAssertNil(m.kept())
            m.selectionChanged(primary: false, offer: nil, current: nil)
            XCTAssertEqual(describe(m.step(now: 0, offers: offers)), [], "nothing to serve again")
        }
        var (m, _) = started(selection: 6)
        XCTAssertEqual(describe(m.step(now: 0, offers: offers)), [], "an offer without types is not fetched")
        m.selectionChanged(primary: false, offer: 77, current: 77)
        XCTAssertEqual(describe(m.step(now: 0, offers: offers)), [], "nor one the client no longer knows")
    }

    /// A cleared selection is offered again when something is kept and nobody serves it; the manager's
    /// own offer is never fetched back; when another client takes it, the next clearing serves again.
    func testAClearedSelectionIsServedAgainUntilTakenThenAgain() {
        var (m, _) = started(selection: 1)
        _ = m.step(now: 0, offers: offers)
        _ = m.fetched(primary: false, fetched("hello"), metadata: ItemMetadata())
        m.selectionChanged(primary: false, offer: nil, current: nil)
        XCTAssertEqual(describe(m.step(now: 0, offers: offers)), ["serve clipboard [\"public.utf8-plain-text\"]"])
        XCTAssertEqual(describe(m.serving(primary: false, source: 40, ownOffer: 2)), ["log the clipboard was cleared: serving the kept content again"])
        XCTAssertEqual(m.selection(servedBy: 40), false)
        m.selectionChanged(primary: false, offer: 2, current: 2)
        XCTAssertEqual(describe(m.step(now: 0, offers: offers)), [], "its own offer")
        // Cleared while served (the compositor's doing): nobody else to serve it.
        m.selectionChanged(primary: false, offer: nil, current: nil)
        XCTAssertEqual(describe(m.step(now: 0, offers: offers)), [], "already served")
        m.stoppedServing(source: 40)
        XCTAssertNil(m.selection(servedBy: 40))
        m.selectionChanged(primary: false, offer: nil, current: nil)
        XCTAssertEqual(describe(m.step(now: 1, offers: offers)), ["serve clipboard [\"public.utf8-plain-text\"]"])
        // The offer that was its own is another client's now: fetched.
        _ = m.serving(primary: false, source: 41, ownOffer: 2)
        m.stoppedServing(source: 41)
        m.selectionChanged(primary: false, offer: 2, current: 2)
        XCTAssertEqual(describe(m.step(now: 2, offers: offers)), ["fetch clipboard offer 2"])
    }

    /// A program clearing the selection as soon as it is served must not make a busy loop: past five
    /// times a second, each serving waits a little.
    func testServingAgainAndAgainIsPaced() {
        var (m, _) = started(selection: 1)
        _ = m.fetched(primary: false, fetched("hello"), metadata: ItemMetadata())
        var paused: [Bool] = []
        for k in 0..<8 {
            m.selectionChanged(primary: false, offer: nil, current: nil)
            let actions = m.step(now: UInt64(k) * 100_000_000, offers: offers)
            guard case .serve(_, _, let pause)? = actions.first else { return XCTFail("no serve at \(k)") }
            paused.append(pause > 0)
            _ = m.serving(primary: false, source: UInt32(50 + k), ownOffer: nil)
            m.stoppedServing(source: UInt32(50 + k))
        }
        XCTAssertEqual(paused, [false, false, false, false, false, true, true, true])
        m.selectionChanged(primary: false, offer: nil, current: nil)
        guard case .serve(_, _, let pause)? = m.step(now: 10 * second, offers: offers).first else { return XCTFail("no serve") }
        XCTAssertEqual(pause, 0, "a second later, no pause")
    }

    /// The primary selection: kept and served again only with `--primary`; recorded with
    /// history.primary (recordPrimary) even without it; never recorded without recordPrimary.
    func testThePrimarySelectionFollowsItsOptions() {
        var (recordOnly, _) = started(.init(recordPrimary: true), selection: 1, primary: 2)
        _ = recordOnly.step(now: 0, offers: offers)
        XCTAssertEqual(describe(recordOnly.fetched(primary: true, fetched("primary"), metadata: ItemMetadata())).last,
                       "record primary [\"public.utf8-plain-text\"] skipped []")
        recordOnly.selectionChanged(primary: true, offer: nil, current: nil)
        XCTAssertEqual(describe(recordOnly.step(now: 0, offers: offers)), [], "not served again without --primary")

        var (keepOnly, _) = started(.init(primary: true), selection: 1, primary: 2)
        _ = keepOnly.step(now: 0, offers: offers)
        XCTAssertEqual(describe(keepOnly.fetched(primary: true, fetched("primary"), metadata: ItemMetadata())),
                       ["log kept 1 types of the primary selection: public.utf8-plain-text"], "not recorded without recordPrimary")
        let skipped = keepOnly.fetched(primary: true, .init(representations: [], names: [:], skipped: [TypeSummary(type: .png)]), metadata: ItemMetadata())
        XCTAssertEqual(describe(skipped), ["log new primary selection content: nothing could be fetched"])
        keepOnly.selectionChanged(primary: true, offer: nil, current: nil)
        XCTAssertEqual(describe(keepOnly.step(now: 0, offers: offers)), ["serve primary [\"public.utf8-plain-text\"]"])
        XCTAssertEqual(describe(keepOnly.serving(primary: true, source: 60, ownOffer: 9)),
                       ["log the primary selection was cleared: serving the kept content again"])
        XCTAssertEqual(keepOnly.selection(servedBy: 60), true)
        XCTAssertNil(keepOnly.kept(primary: false), "the clipboard is its own")

        var (clipboardOnly, _) = started(selection: 1)
        clipboardOnly.selectionChanged(primary: true, offer: 2, current: 2)
        XCTAssertEqual(describe(clipboardOnly.step(now: 0, offers: offers)), ["fetch clipboard offer 1"], "the primary selection is not watched")
        XCTAssertEqual(describe(clipboardOnly.fetched(primary: true, fetched("x"), metadata: ItemMetadata())), [])
    }

    /// A selection event that is no longer the selection (a later one is on its way) is not looked at.
    func testStaleSelectionEventsAreSkipped() {
        var (m, _) = started()
        _ = m.step(now: 0, offers: offers)
        m.selectionChanged(primary: false, offer: 1, current: 2)
        XCTAssertFalse(m.hasPendingChanges)
        m.selectionChanged(primary: false, offer: 2, current: 2)
        XCTAssertEqual(describe(m.step(now: 0, offers: offers)), ["fetch clipboard offer 2"])
    }
}
