import Foundation
import Pasteboard
import XCTest

@testable import PasteboardX11

final class TargetNegotiationTests: XCTestCase {
    let negotiation = TargetNegotiation()

    func testTextTargetsArePreferredUTF8First() {
        let offered = ["TARGETS", "STRING", "text/plain", "UTF8_STRING", "text/html"]
        XCTAssertEqual(negotiation.targets(for: .utf8PlainText, offered: offered), ["UTF8_STRING", "text/plain", "STRING"])
        XCTAssertEqual(negotiation.targets(for: .html, offered: offered), ["text/html"])
        XCTAssertEqual(negotiation.targets(for: .png, offered: offered), [])
    }

    func testTypesSkipProtocolTargetsAndDuplicates() {
        let types = negotiation.types(forTargets: ["TARGETS", "MULTIPLE", "TIMESTAMP", "SAVE_TARGETS", "UTF8_STRING", "STRING",
                                                   "text/html", "image/png", "application/x-foo"])
        XCTAssertEqual(types.prefix(3), [.utf8PlainText, .html, .png])
        XCTAssertEqual(types.count, 4)
        XCTAssertEqual(TypeRegistry.standard.tags(of: types[3], .mimeType), ["application/x-foo"])
    }

    func testServedTargetsCoverTheIssueList() {
        XCTAssertEqual(negotiation.servedTargets(for: .markdown), ["text/markdown", "text/x-markdown"])
        XCTAssertEqual(negotiation.servedTargets(for: .html), ["text/html"])
        XCTAssertEqual(negotiation.servedTargets(for: .rtf), ["text/rtf", "text/richtext", "application/rtf"])
        XCTAssertEqual(Set(negotiation.servedTargets(for: .utf8PlainText)),
                       ["UTF8_STRING", "text/plain;charset=utf-8", "text/plain", "TEXT", "STRING", "COMPOUND_TEXT"])
        XCTAssertEqual(negotiation.servedTargets(for: .png), ["image/png"])
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
