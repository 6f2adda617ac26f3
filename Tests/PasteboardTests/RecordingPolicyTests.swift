import Foundation
import XCTest

@testable import Pasteboard

/// Issue 46: every way in (a local copy on every backend, the daemon, `history import`, `pbctl ssh`, KDE
/// Connect) reads the markers and how a copy was made through ``RecordingPolicy``.
final class RecordingPolicyTests: XCTestCase {
    let text = Representation(type: .utf8PlainText, data: Data("hunter2".utf8))

    func testAMarkerAmongTheRepresentationsFlagsTheItemWhateverItsSpelling() {
        let registry = TypeRegistry.standard
        let hints: [TypeIdentifier] = [
            ClipboardMarkers.passwordHintType,
            registry.type(forMIMEType: "x-kde-passwordManagerHint"),
            registry.type(forMIMEType: "X-KDE-PASSWORDMANAGERHINT"),
            registry.type(forX11Target: "x-kde-passwordManagerHint"),
            TypeRegistry.dynamicIdentifier(tag: "x-kde-passwordManagerHint", .mimeType),
            TypeIdentifier("x-kde-passwordManagerHint"),
        ]
        for hint in hints {
            let item = Item(representations: [text, Representation(type: hint, data: Data("secret".utf8))])
            XCTAssertEqual(ClipboardMarkers.flags(of: item), .sensitive, "\(hint)")
            XCTAssertEqual(RecordingPolicy.reasonNotToRecord(item), "the content is marked sensitive", "\(hint)")
            // Only an explicit "public" lets it be kept.
            let open = Item(representations: [text, Representation(type: hint, data: Data("public\n".utf8))])
            XCTAssertNil(RecordingPolicy.reasonNotToRecord(open), "\(hint)")
        }
        for (name, reason) in [
            ("org.nspasteboard.ConcealedType", "the content is marked sensitive"),
            ("org.nspasteboard.TransientType", "the content is marked transient"),
        ] {
            for type in [registry.type(forX11Target: name), registry.type(forMIMEType: name), TypeIdentifier(name)] {
                let item = Item(representations: [text, Representation(type: type, data: Data())])
                XCTAssertEqual(RecordingPolicy.reasonNotToRecord(item), reason, "\(type)")
            }
        }
        XCTAssertNil(RecordingPolicy.reasonNotToRecord(Item(representations: [text])))
        XCTAssertNil(ClipboardMarkers.marker(registry.type(forMIMEType: "text/x-kde-passwordManagerHint-like")))
    }

    func testContentMeantToVanishIsNeverRecorded() {
        let item = Item(representations: [text])
        var once = CopyOptions()
        once.pasteOnce = true
        XCTAssertEqual(RecordingPolicy.reasonNotToRecord(item, options: once), "the content is marked transient")
        var expiring = CopyOptions()
        expiring.clearAfter = 30
        XCTAssertEqual(RecordingPolicy.reasonNotToRecord(item, options: expiring), "the content is marked transient")
        XCTAssertNil(RecordingPolicy.reasonNotToRecord(item, options: CopyOptions()))
    }

    func testWhatCrossesFromAnotherMachineCarriesTheFlagsItsMarkersMean() throws {
        let item = Item(representations: [text, Representation(type: TypeRegistry.standard.type(forMIMEType: "x-kde-passwordManagerHint"), data: Data("secret".utf8))])
        let admitted = try ForeignContent.admit(item, from: .init(host: "far", label: "pbctl ssh: far"), arrived: Date())
        XCTAssertTrue(admitted.metadata.flags.contains(.sensitive))
    }

    func testAListedItemCountsItsMarkerTypes() {
        let summary = ItemSummary(
            types: [TypeSummary(type: .utf8PlainText, size: 7), TypeSummary(type: TypeIdentifier("dyn.mime.org-2Ensp"), size: 0),
                    TypeSummary(type: .concealed, size: 0)],
            metadata: ItemMetadata())
        XCTAssertEqual(RecordingPolicy.flags(of: summary), .sensitive)
    }
}
