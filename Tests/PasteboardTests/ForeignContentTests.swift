import Foundation
import XCTest
@testable import Pasteboard

/// What crosses from another machine: checked as local input is, its time the arrival's, its file lists
/// naming the other host, control characters never printed.
final class ForeignContentTests: XCTestCase {
    let origin = ForeignContent.Origin(host: "build-host", label: "pbctl ssh: build-host")
    let arrival = Date(timeIntervalSince1970: 1_800_000_000)

    /// One rule for a type name (TypeIdentifier.nameProblem): what transports admit, `copy --type`
    /// resolves to and the history records and reads back. A MIME type is a name to resolve
    /// (checkGivenType), never an identifier.
    func testTypeNamesFollowTheLocalRules() {
        for good in ["public.utf8-plain-text", "Public.HTML", "dyn.mime.text-2fhtml", "com.example.a-b.c9", "\u{E9}t\u{E9}.x", String(repeating: "a", count: 255)] {
            XCTAssertNoThrow(try ForeignContent.checkType(good), good)
            XCTAssertTrue(TypeIdentifier(good).isWellFormed, good)
            XCTAssertNoThrow(try ForeignContent.checkGivenType(good), good)
        }
        // The dynamic identifier of the longest MIME type a transport may name is a name the rule takes.
        let longest = TypeRegistry.dynamicIdentifier(tag: "application/" + String(repeating: "+", count: 243), .mimeType)
        XCTAssertGreaterThan(longest.rawValue.utf8.count, 255)
        XCTAssertNoThrow(try ForeignContent.checkType(longest.rawValue))
        XCTAssertThrowsError(try ForeignContent.checkType(String(repeating: "a", count: 1025)))
        XCTAssertThrowsError(try ForeignContent.checkGivenType(String(repeating: "a", count: 256)), "a name given to resolve: at most 255 bytes")
        for given in ["text/html", "image/png", "dyn.mime.x-test/thing", "x y"] {
            XCTAssertNoThrow(try ForeignContent.checkGivenType(given), given)
            XCTAssertThrowsError(try ForeignContent.checkType(given), given)
            XCTAssertFalse(TypeIdentifier(given).isWellFormed, "the history's reader holds names to the same rule: \(given)")
        }
        for bad in ["", "text/x\u{1B}]0;pwned\u{07}", "a\nb", "a\tb", "del\u{7F}", "csi\u{9B}31m", String(repeating: "a", count: 1025), "x y", "a_b", "a+b"] {
            XCTAssertThrowsError(try ForeignContent.checkType(bad), bad.debugDescription) {
                XCTAssertEqual(($0 as? PasteboardError)?.code, .invalidData)
                XCTAssertFalse("\($0)".contains("\u{1B}"), "the message itself shows no escape")
            }
        }
    }

    func testAnItemIsAdmittedWithItsArrivalTimeAndAttributedToItsOrigin() throws {
        var metadata = ItemMetadata(created: Date(timeIntervalSince1970: 4_070_908_800))  // 2099
        metadata.extra = ["x-document-source.identifier": "abc"]
        let item = Item(representations: [Representation(type: .utf8PlainText, data: Data("hi".utf8))], metadata: metadata)
        let admitted = try ForeignContent.admit(item, from: origin, arrived: arrival)
        XCTAssertEqual(admitted.metadata.created, arrival, "the recording order is the arrival's")
        XCTAssertEqual(admitted.metadata.sourceApplication, "pbctl ssh: build-host")
        XCTAssertEqual(admitted.metadata.extra, ["x-document-source.identifier": "abc"])
        XCTAssertEqual(try admitted.representations.first?.data(), Data("hi".utf8))
    }

    func testNamesWithControlCharactersAndTooManyPartsAreRefused() {
        var metadata = ItemMetadata()
        metadata.sourceApplication = "\u{1B}[2J\nroot# evil"
        let text = Representation(type: .utf8PlainText, data: Data("x".utf8))
        XCTAssertThrowsError(try ForeignContent.admit(Item(representations: [text], metadata: metadata), from: origin, arrived: arrival))
        metadata = ItemMetadata(extra: ["key": "value\u{07}"])
        XCTAssertThrowsError(try ForeignContent.admit(Item(representations: [text], metadata: metadata), from: origin, arrived: arrival))
        let many = (0...ForeignContent.maximumRepresentations).map { Representation(type: TypeIdentifier("x-test/t\($0)"), data: Data()) }
        XCTAssertThrowsError(try ForeignContent.admit(Item(representations: many), from: origin, arrived: arrival))
        let derived = Representation(type: .html, data: Data(), derivedFrom: TypeIdentifier("bad\u{1B}"))
        XCTAssertThrowsError(try ForeignContent.admit(Item(representations: [derived]), from: origin, arrived: arrival))
    }

    func testFileListsNameTheirHost() throws {
        let list = Data("file:///home/me/report.txt\r\nfile://localhost/tmp/a%20b\r\nhttps://example.org/x\r\n".utf8)
        let gnome = Data("cut\nfile:///home/me/report.txt".utf8)
        let item = Item(representations: [
            Representation(type: .fileURL, data: list), Representation(type: .gnomeCopiedFiles, data: gnome),
            Representation(type: TypeRegistry.dynamicIdentifier(tag: "application/x-kde4-urilist", .mimeType), data: list),
        ])
        let admitted = try ForeignContent.admit(item, from: origin, arrived: arrival)
        let uris = String(decoding: try admitted.representation(for: .fileURL)!.data(), as: UTF8.self)
        XCTAssertEqual(uris, "file://build-host/home/me/report.txt\r\nfile://build-host/tmp/a%20b\r\nhttps://example.org/x\r\n")
        XCTAssertEqual(String(decoding: try admitted.representation(for: .gnomeCopiedFiles)!.data(), as: UTF8.self),
                       "cut\nfile://build-host/home/me/report.txt")
        XCTAssertTrue(String(decoding: try admitted.representation(for: TypeRegistry.dynamicIdentifier(tag: "application/x-kde4-urilist", .mimeType))!.data(), as: UTF8.self)
            .hasPrefix("file://build-host/"))
        // No marked URI names a local file: what `paste --files --into` refuses.
        for uri in FileList.parseURIList(try admitted.representation(for: .fileURL)!.data()).uris { XCTAssertNil(FileList.localPath(uri), uri) }
    }

    func testHostsAreURIHostsAndNeverThisMachine() {
        XCTAssertEqual(ForeignContent.uriHost("Build-Host.example.org"), "build-host.example.org")
        XCTAssertEqual(ForeignContent.uriHost("Pixel 7 (Anna)"), "pixel-7-anna")
        XCTAssertEqual(ForeignContent.uriHost("[::1]"), "[::1]")
        XCTAssertEqual(ForeignContent.uriHost("localhost"), "remote-localhost")
        XCTAssertEqual(ForeignContent.uriHost(""), "remote-host")
        XCTAssertEqual(ForeignContent.uriHost("../../etc"), "etc")
        XCTAssertEqual(ForeignContent.uriHost("a/b@c:d"), "a-b-c-d")
    }

    func testAListingFromTheOtherSideIsCheckedToo() throws {
        let good = ItemSummary(types: [TypeSummary(type: .utf8PlainText, size: 5)], metadata: ItemMetadata(created: Date.distantFuture))
        XCTAssertEqual(try ForeignContent.admit(good, arrived: arrival).metadata.created, arrival)
        let escaped = ItemSummary(types: [TypeSummary(type: "text/x\u{1B}]0;t\u{07}", size: 5)], metadata: ItemMetadata())
        XCTAssertThrowsError(try ForeignContent.admit(escaped, arrived: arrival))
        let negative = ItemSummary(types: [TypeSummary(type: .utf8PlainText, size: -1)], metadata: ItemMetadata())
        XCTAssertThrowsError(try ForeignContent.admit(negative, arrived: arrival))
    }

    func testControlCharactersAreShownNotSent() {
        XCTAssertEqual("text/x\u{1B}]0;pwned\u{07}\nfake".visibleControlCharacters, "text/x␛]0;pwned␇␊fake")
        XCTAssertEqual("a\u{7F}b\u{9B}c".visibleControlCharacters, "a␡b�c")
        XCTAssertEqual("plain é 😀".visibleControlCharacters, "plain é 😀")
    }
}
