import Foundation
import XCTest

@testable import PasteboardX11

/// The clipboard manager's decisions (freedesktop Clipboard Manager spec, ICCCM §2.8), without a server.
final class ClipboardManagerStateMachineTests: XCTestCase {
    typealias M = ClipboardManagerStateMachine
    let atoms = KnownAtoms.forTesting
    let requestor: XWindow = 0x200
    let ours: Set<XWindow> = [0x100]
    let app: XWindow = 0x300

    // MARK: Targets

    func testSaveSkipsProtocolAndSideEffectTargetsRanksAndDeduplicates() {
        let offered = ["TARGETS", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS", "text/html", "DELETE", "INSERT_SELECTION",
                       "INSERT_PROPERTY", "UTF8_STRING", "text/html", "PIXMAP", "", "image/png", "TARGET_SIZES"]
        XCTAssertEqual(M.targetsToSave(offered), ["UTF8_STRING", "text/html", "image/png"])
    }

    func testSaveCapsTheNumberOfTargets() {
        let many = (0..<100).map { "application/x-\($0)" }
        let limits = M.Limits(maxTargetBytes: 1, maxTotalBytes: 1, maxTargets: 5)
        XCTAssertEqual(M.targetsToSave(many, limits: limits), Array(many.prefix(5)))
    }

    func testSnapshotKeepsTextRichTextFilesAndPNGOnly() {
        let gtkImage = ["TIMESTAMP", "TARGETS", "MULTIPLE", "image/png", "image/bmp", "image/jpeg", "image/tiff"]
        XCTAssertEqual(M.targetsToSnapshot(gtkImage), ["image/png"])
        let rich = ["TARGETS", "text/html", "application/rtf", "UTF8_STRING", "STRING", "chromium/x-web-custom-data",
                    "x-special/gnome-copied-files", "text/uri-list"]
        XCTAssertEqual(M.targetsToSnapshot(rich),
                       ["UTF8_STRING", "STRING", "text/html", "application/rtf", "text/uri-list",
                        "x-special/gnome-copied-files"])
    }

    /// Issue 46: an owner listing hundreds of private targets before its text lost the text to the cap
    /// (the first 64 offered were kept). The cap keeps the markers, text, rich text, images and files
    /// first, best first, then the rest in the order offered.
    func testTheCapKeepsTextRichTextImagesAndFilesBeforePrivateTargets() {
        let privates = (0..<300).map { "x-private/\($0)" }
        let offered = privates + ["image/jpeg", "text/uri-list", "image/x-xcf", "UTF8_STRING", "text/html",
                                  "x-kde-passwordManagerHint", "image/png", "text/plain;charset=ISO-8859-1", "TEXT"]
        let limits = M.Limits(maxTargetBytes: 1, maxTotalBytes: 1, maxTargets: 12)
        XCTAssertEqual(M.targetsToSave(offered, limits: limits),
                       ["x-kde-passwordManagerHint", "UTF8_STRING", "TEXT", "text/plain;charset=ISO-8859-1", "text/html",
                        "image/png", "image/jpeg", "image/x-xcf", "text/uri-list", "x-private/0", "x-private/1",
                        "x-private/2"])
        // The copy kept without a history (24 targets) keeps the text too: it was cut to the first 24
        // offered, then filtered, and kept nothing.
        XCTAssertEqual(M.targetsToSnapshot(privates + ["UTF8_STRING"]), ["UTF8_STRING"])
        XCTAssertEqual(M.textTargetsToSnapshot(privates.map { "text/plain;x=\($0)" } + ["UTF8_STRING"]).first, "UTF8_STRING")
        // Ranks ignore case and spaces in a charset, as owners spell it.
        XCTAssertEqual(M.rank(of: "text/plain; charset=UTF-8"), M.rank(of: "text/plain;charset=utf-8"))
        XCTAssertNil(M.rank(of: "chromium/x-web-custom-data"))
        XCTAssertEqual(M.ranked(["b", "STRING", "a", "UTF8_STRING"]), ["UTF8_STRING", "STRING", "b", "a"])
    }

    // MARK: Sensitivity

    func testNSPasteboardMarkersAreSensitiveWithoutAsking() {
        XCTAssertEqual(M.sensitivity(of: ["UTF8_STRING", "org.nspasteboard.ConcealedType"]), .sensitive)
        XCTAssertEqual(M.sensitivity(of: ["org.nspasteboard.TransientType", "UTF8_STRING"]), .sensitive)
        XCTAssertEqual(M.sensitivity(of: ["UTF8_STRING", "x-kde-passwordManagerHint"]), .askHint)
        XCTAssertEqual(M.sensitivity(of: ["UTF8_STRING", "text/html"]), .none)
    }

    func testKDEHintIsSecretUnlessItSaysPublic() {
        XCTAssertTrue(M.isSecret(hintValue: Data("secret".utf8)))
        XCTAssertTrue(M.isSecret(hintValue: nil), "an unreadable hint counts as secret")
        XCTAssertTrue(M.isSecret(hintValue: Data()))
        XCTAssertFalse(M.isSecret(hintValue: Data("public".utf8)))
        XCTAssertFalse(M.isSecret(hintValue: Data("public\n\0".utf8)))
    }

    // MARK: CLIPBOARD_MANAGER requests

    func request(_ target: KnownAtom, property: XAtom = 77, time: XTimestamp = 500) -> SelectionRequest {
        SelectionRequest(owner: 0x100, requestor: requestor, selection: atoms[.clipboardManager], target: atoms[target],
                         property: property, time: time)
    }

    func testManagerAnswersTargetsAndTimestamp() {
        let m = M(atoms: atoms)
        XCTAssertEqual(m.managerRequest(request(.targets), acquired: 400),
                       .write(property: 77, type: PredefinedAtom.atom,
                              items: [atoms[.targets], atoms[.timestamp], atoms[.saveTargets], atoms[.pbctlServe]]))
        XCTAssertEqual(m.managerRequest(request(.timestamp), acquired: 400),
                       .write(property: 77, type: PredefinedAtom.integer, items: [400]))
    }

    func testSaveTargetsWithAPropertyReadsTheListFromIt() {
        let m = M(atoms: atoms)
        XCTAssertEqual(m.managerRequest(request(.saveTargets), acquired: 400), .save(property: 77, requestedTargets: 77))
    }

    func testSaveTargetsWithPropertyNoneAnswersIntoTheTargetAtomAndAsksTheOwner() {
        // GTK 3 after gtk_clipboard_set_text sends property None (ICCCM obsolete requestor).
        let m = M(atoms: atoms)
        XCTAssertEqual(m.managerRequest(request(.saveTargets, property: PredefinedAtom.none), acquired: 400),
                       .save(property: atoms[.saveTargets], requestedTargets: nil))
    }

    func testManagerRefusesOtherTargetsButNotSavesStampedBeforeItsClaim() {
        let m = M(atoms: atoms)
        XCTAssertEqual(m.managerRequest(request(.multiple), acquired: 400), .refuse)
        XCTAssertEqual(m.managerRequest(request(.utf8String), acquired: 400), .refuse)
        // GTK 4 stamps SAVE_TARGETS with its own CLIPBOARD claim time, possibly before the daemon started.
        XCTAssertEqual(m.managerRequest(request(.saveTargets, time: 300), acquired: 400),
                       .save(property: 77, requestedTargets: 77))
        // CurrentTime (Chromium) is accepted.
        XCTAssertEqual(m.managerRequest(request(.saveTargets, time: 0), acquired: 400),
                       .save(property: 77, requestedTargets: 77))
    }

    func testPbctlCopyHandsItsItemOverInTheNamedProperty() {
        let m = M(atoms: atoms)
        XCTAssertEqual(m.managerRequest(request(.pbctlServe, property: 88), acquired: 400), .serve(property: 88))
        XCTAssertEqual(m.managerRequest(request(.pbctlServe, property: PredefinedAtom.none), acquired: 400), .refuse)
    }

    // MARK: Restoring

    func testOwnerThatExitsAfterASnapshotIsRestored() {
        var m = M(atoms: atoms)
        XCTAssertEqual(m.selectionChanged(kind: .setOwner, owner: app, ours: ours), .snapshot(owner: app))
        m.snapshotFinished(owner: app, kept: true)
        XCTAssertEqual(m.selectionChanged(kind: .clientClosed, owner: 0, ours: ours), .restore)
    }

    func testDestroyedWindowRestoresToo() {
        var m = M(atoms: atoms)
        _ = m.selectionChanged(kind: .setOwner, owner: app, ours: ours)
        m.snapshotFinished(owner: app, kept: true)
        XCTAssertEqual(m.selectionChanged(kind: .windowDestroyed, owner: 0, ours: ours), .restore)
    }

    func testNothingKeptNothingRestored() {
        // Sensitive content, a failed fetch: the vanished owner's content is gone, and no older content
        // comes back in its place.
        var m = M(atoms: atoms)
        _ = m.selectionChanged(kind: .setOwner, owner: 0x301, ours: ours)
        m.snapshotFinished(owner: 0x301, kept: true)
        _ = m.selectionChanged(kind: .setOwner, owner: app, ours: ours)
        m.snapshotFinished(owner: app, kept: false)
        XCTAssertNil(m.snapshotOwner)
        XCTAssertEqual(m.selectionChanged(kind: .clientClosed, owner: 0, ours: ours), .nothing)
    }

    func testDeliberateClearIsNeverUndone() {
        var m = M(atoms: atoms)
        _ = m.selectionChanged(kind: .setOwner, owner: app, ours: ours)
        m.snapshotFinished(owner: app, kept: true)
        XCTAssertEqual(m.selectionChanged(kind: .setOwner, owner: 0, ours: ours), .forget)
        XCTAssertEqual(m.selectionChanged(kind: .clientClosed, owner: 0, ours: ours), .nothing)
    }

    func testOurOwnClaimsAreNotFollowed() {
        var m = M(atoms: atoms)
        _ = m.selectionChanged(kind: .setOwner, owner: app, ours: ours)
        m.snapshotFinished(owner: app, kept: true)
        m.claimed()
        XCTAssertEqual(m.selectionChanged(kind: .setOwner, owner: 0x100, ours: ours), .nothing)
        XCTAssertEqual(m.selectionChanged(kind: .clientClosed, owner: 0, ours: ours), .nothing)
    }

    func testSnapshotOfAnOwnerThatWasReplacedMeanwhileIsDropped() {
        var m = M(atoms: atoms)
        _ = m.selectionChanged(kind: .setOwner, owner: app, ours: ours)
        _ = m.selectionChanged(kind: .setOwner, owner: 0x301, ours: ours)
        m.snapshotFinished(owner: app, kept: true)
        XCTAssertNil(m.snapshotOwner)
    }

    // MARK: Fetches in progress

    func testOwnerThatVanishesMidFetchEndsTheFetchThenIsRestored() {
        var m = M(atoms: atoms)
        _ = m.selectionChanged(kind: .setOwner, owner: app, ours: ours)
        XCTAssertEqual(m.tracking(atoms[.clipboard]).fetching, app)
        XCTAssertEqual(m.selectionChanged(kind: .clientClosed, owner: 0, ours: ours), .finishFetch)
        XCTAssertEqual(m.snapshotFinished(owner: app, kept: true), .restore)
        XCTAssertNil(m.tracking(atoms[.clipboard]).fetching)
    }

    func testOwnerThatVanishesMidFetchWithNothingKeptIsNotRestored() {
        var m = M(atoms: atoms)
        _ = m.selectionChanged(kind: .setOwner, owner: app, ours: ours)
        XCTAssertEqual(m.selectionChanged(kind: .windowDestroyed, owner: 0, ours: ours), .finishFetch)
        XCTAssertEqual(m.snapshotFinished(owner: app, kept: false), .nothing)
    }

    func testNewOwnerDuringAFetchSupersedesIt() {
        var m = M(atoms: atoms)
        _ = m.selectionChanged(kind: .setOwner, owner: app, ours: ours)
        XCTAssertEqual(m.selectionChanged(kind: .setOwner, owner: 0x301, ours: ours), .snapshot(owner: 0x301))
        XCTAssertEqual(m.tracking(atoms[.clipboard]).fetching, 0x301, "the driver drops the fetch of 0x300")
        XCTAssertEqual(m.snapshotFinished(owner: app, kept: true), .nothing)
        XCTAssertEqual(m.tracking(atoms[.clipboard]).fetching, 0x301)
        m.snapshotFinished(owner: 0x301, kept: true)
        XCTAssertEqual(m.selectionChanged(kind: .clientClosed, owner: 0, ours: ours), .restore)
    }

    func testClearOrOurOwnClaimDuringAFetchDropsIt() {
        var m = M(atoms: atoms)
        _ = m.selectionChanged(kind: .setOwner, owner: app, ours: ours)
        XCTAssertEqual(m.selectionChanged(kind: .setOwner, owner: 0, ours: ours), .forget)
        XCTAssertNil(m.tracking(atoms[.clipboard]).fetching)
        _ = m.selectionChanged(kind: .setOwner, owner: app, ours: ours)
        m.claimed()  // pbctl copy handed an item over meanwhile
        XCTAssertNil(m.tracking(atoms[.clipboard]).fetching)
        XCTAssertEqual(m.snapshotFinished(owner: app, kept: true), .nothing)
        XCTAssertEqual(m.selectionChanged(kind: .setOwner, owner: 0x100, ours: ours), .nothing)
    }

    // MARK: PRIMARY (pbctl daemon --primary)

    func testPrimaryIsTrackedApartFromClipboard() {
        var m = M(atoms: atoms)
        let primary = atoms[.primary]
        let terminal: XWindow = 0x400
        XCTAssertEqual(m.selectionChanged(kind: .setOwner, owner: app, ours: ours), .snapshot(owner: app))
        XCTAssertEqual(m.selectionChanged(selection: primary, kind: .setOwner, owner: terminal, ours: ours),
                       .snapshot(owner: terminal))
        m.snapshotFinished(owner: app, kept: true)
        XCTAssertEqual(m.snapshotFinished(selection: primary, owner: terminal, kept: true), .nothing)
        // The terminal's window closes: PRIMARY is restored, CLIPBOARD's owner is still there.
        XCTAssertEqual(m.selectionChanged(selection: primary, kind: .windowDestroyed, owner: 0, ours: ours), .restore)
        XCTAssertEqual(m.currentOwner, app)
        XCTAssertEqual(m.snapshotOwner, app)
        m.claimed(primary)
        XCTAssertEqual(m.tracking(primary), M.Tracking())
        XCTAssertEqual(m.selectionChanged(kind: .clientClosed, owner: 0, ours: ours), .restore)
    }

    /// `history.primary` without `--primary`: each PRIMARY owner is fetched (to be recorded), but its
    /// vanishing, before or during the fetch, never calls for a restore; CLIPBOARD still is restored.
    func testARecordOnlySelectionIsFetchedButNeverRestored() {
        let primary = atoms[.primary]
        var m = M(atoms: atoms, recordOnly: [primary])
        let terminal: XWindow = 0x400
        XCTAssertEqual(m.selectionChanged(selection: primary, kind: .setOwner, owner: terminal, ours: ours),
                       .snapshot(owner: terminal))
        XCTAssertEqual(m.snapshotFinished(selection: primary, owner: terminal, kept: true), .nothing)
        XCTAssertEqual(m.selectionChanged(selection: primary, kind: .windowDestroyed, owner: 0, ours: ours), .nothing)
        // Gone while its content was being fetched: the fetch ends, nothing is restored.
        let editor: XWindow = 0x500
        XCTAssertEqual(m.selectionChanged(selection: primary, kind: .setOwner, owner: editor, ours: ours),
                       .snapshot(owner: editor))
        XCTAssertEqual(m.selectionChanged(selection: primary, kind: .clientClosed, owner: 0, ours: ours), .finishFetch)
        XCTAssertEqual(m.snapshotFinished(selection: primary, owner: editor, kept: true), .nothing)
        // CLIPBOARD is not record-only.
        XCTAssertEqual(m.selectionChanged(kind: .setOwner, owner: app, ours: ours), .snapshot(owner: app))
        m.snapshotFinished(owner: app, kept: true)
        XCTAssertEqual(m.selectionChanged(kind: .clientClosed, owner: 0, ours: ours), .restore)
    }

    func testPrimarySnapshotKeepsPlainTextOnly() {
        let xterm = ["TARGETS", "MULTIPLE", "TIMESTAMP", "UTF8_STRING", "COMPOUND_TEXT", "TEXT", "STRING"]
        XCTAssertEqual(M.textTargetsToSnapshot(xterm), ["UTF8_STRING", "STRING", "TEXT", "COMPOUND_TEXT"])
        let browser = ["text/html", "text/_moz_htmlcontext", "text/plain", "text/plain;charset=utf-8", "image/png",
                       "text/plainish"]
        XCTAssertEqual(M.textTargetsToSnapshot(browser), ["text/plain;charset=utf-8", "text/plain"])
    }
}
