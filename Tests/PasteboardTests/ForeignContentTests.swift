import Foundation
import XCTest
@testable import Pasteboard

/// What crosses from another machine: checked as local input is, its time the arrival's, its file lists
/// naming the other host, control characters never printed.
final class ForeignContentTests: XCTestCase {
    let origin = ForeignContent.Origin(host: "build-host", label: "pbctl ssh: build-host")
    let arrival = Date(timeIntervalSince1970: 1_800_000_000)

    func testTypeNamesFollowTheLocalRules() {
        for good in ["public.utf8-plain-text", "text/html", "dyn.mime.x-test/thing", "image/png", String(repeating: "a", count: 255)] {
            XCTAssertNoThrow(try ForeignContent.checkType(good), good)
        }
        for bad in ["", "text/x\u{1B}]0;pwned\u{07}", "a\nb", "a\tb", "del\u{7F}", "csi\u{9B}31m", String(repeating: "a", count: 256)] {
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
            Representation(type: "dyn.mime.application/x-kde4-urilist", data: list),
        ])
        let admitted = try ForeignContent.admit(item, from: origin, arrived: arrival)
        let uris = String(decoding: try admitted.representation(for: .fileURL)!.data(), as: UTF8.self)
        XCTAssertEqual(uris, "file://build-host/home/me/report.txt\r\nfile://build-host/tmp/a%20b\r\nhttps://example.org/x\r\n")
        XCTAssertEqual(String(decoding: try admitted.representation(for: .gnomeCopiedFiles)!.data(), as: UTF8.self),
                       "cut\nfile://build-host/home/me/report.txt")
        XCTAssertTrue(String(decoding: try admitted.representation(for: "dyn.mime.application/x-kde4-urilist")!.data(), as: UTF8.self)
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
