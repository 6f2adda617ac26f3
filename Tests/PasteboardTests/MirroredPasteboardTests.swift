import Foundation
import XCTest

@testable import Pasteboard

/// A wrapper passes on every capability of what it wraps: a copy through the terminal path streams
/// into the store as a plain store copy does.
final class MirroredPasteboardTests: XCTestCase {
    final class Spooling: PasteboardBackend, InputSpooling, @unchecked Sendable {
        let inner = InMemoryPasteboard()
        var info: BackendInfo { BackendInfo(name: "spooling") }
        func write(_ items: [Item], to pasteboard: PasteboardName, options: CopyOptions) throws -> Int { try inner.write(items, to: pasteboard) }
        func items(in pasteboard: PasteboardName) throws -> [ItemSummary] { try inner.items(in: pasteboard) }
        func read(_ type: TypeIdentifier, item index: Int, from pasteboard: PasteboardName) throws -> Data { try inner.read(type, item: index, from: pasteboard) }
        func clear(_ pasteboard: PasteboardName) throws { try inner.clear(pasteboard) }
        func changeCount(of pasteboard: PasteboardName) throws -> Int { try inner.changeCount(of: pasteboard) }
        func spool(_ fd: Int32, name: String, for pasteboard: PasteboardName, limit: Int, inspect: Bool) throws -> SpooledInput {
            SpooledInput(data: Data(), head: Data(), inspected: inspect, firstInvalidUTF8Offset: nil)
        }
    }

    func testCapabilitiesOfTheKeepingSideArePassedOn() throws {
        let store = Spooling()
        let mirrored = MirroredPasteboard(primary: store, mirror: InMemoryPasteboard(), readsFromMirror: true)
        XCTAssertTrue(mirrored.spooling === store)
        XCTAssertNil(mirrored.watching)
        XCTAssertNil(mirrored.keeping)
        XCTAssertFalse(mirrored.changesReachDaemons)
        let plain = MirroredPasteboard(primary: InMemoryPasteboard(), mirror: store, readsFromMirror: false)
        XCTAssertNil(plain.spooling, "only the keeping side's capabilities count")
    }

    func testAWriteReachesBothAndReadsComeFromTheChosenSide() throws {
        let primary = InMemoryPasteboard(), mirror = InMemoryPasteboard()
        let mirrored = MirroredPasteboard(primary: primary, mirror: mirror, readsFromMirror: false)
        try mirrored.write([Item(representations: [Representation(type: .utf8PlainText, data: Data("both".utf8))])], to: .general)
        XCTAssertEqual(try primary.read(.utf8PlainText, item: 0, from: .general), Data("both".utf8))
        XCTAssertEqual(try mirror.read(.utf8PlainText, item: 0, from: .general), Data("both".utf8))
        XCTAssertEqual(try mirrored.read(.utf8PlainText, item: 0, from: .general), Data("both".utf8))
    }
}
