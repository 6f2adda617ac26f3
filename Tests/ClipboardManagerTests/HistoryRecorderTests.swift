#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import XCTest
import Pasteboard
import History
import PasteboardStore
@testable import ClipboardManager

/// The daemon's history: a failure is said, once per cause, never dropped.
final class HistoryRecorderTests: XCTestCase {
    var folder = ""

    override func setUp() { folder = temporaryFolder() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    /// A history whose folder cannot be made (a regular file stands where its parent should be).
    func brokenHistory() throws -> History {
        FileManager.default.createFile(atPath: folder + "/file", contents: Data("x".utf8))
        return try History(root: folder + "/file/history")
    }

    func testAHistoryThatCannotRecordIsReportedOncePerCause() throws {
        let said = Mutex<[String]>([])
        let logged = Mutex<[String]>([])
        let recorder = HistoryRecorder(
            history: try brokenHistory(), registry: .standard, log: { line in logged.withLock { $0.append(line) } },
            warn: { line in said.withLock { $0.append(line) } })
        for text in ["one", "two", "three"] {
            recorder.record(KeptContent(item: Item.text(text), application: "editor", selection: "clipboard", skipped: []))
        }
        recorder.flush()
        let warnings = said.withLock { $0 }
        XCTAssertEqual(warnings.count, 1, "\(warnings)")
        XCTAssertTrue(warnings.first?.hasPrefix("history: could not record the clipboard: ") == true, "\(warnings)")
        XCTAssertTrue(warnings.first?.contains(folder + "/file") == true, "the message names the place: \(warnings)")
        // Every failure is in the verbose log.
        XCTAssertEqual(logged.withLock { $0.filter { $0.hasPrefix("history: could not record") }.count }, 3)
    }

    func testAHistoryThatCannotBeReadAtStartIsReportedNotDropped() throws {
        // A history folder that is a file: reading the newest entry fails, and is said.
        FileManager.default.createFile(atPath: folder + "/history", contents: Data("x".utf8))
        let said = Mutex<[String]>([])
        let recorder = HistoryRecorder(history: try History(root: folder + "/history"), registry: .standard, log: nil, warn: { line in said.withLock { $0.append(line) } })
        XCTAssertNil(recorder.newestItem())
        XCTAssertNil(recorder.newestItem())
        let warnings = said.withLock { $0 }
        XCTAssertEqual(warnings.count, 1, "\(warnings)")
        XCTAssertTrue(warnings.first?.hasPrefix("history: could not read the newest entry to serve: ") == true, "\(warnings)")
    }

    func testWhatIsRecordedCarriesTheOriginAsItsSource() throws {
        let history = try History(root: folder + "/history")
        let recorder = HistoryRecorder(history: history, registry: .standard, log: nil)
        let origin = ItemOrigin(.remote(host: "build-host"), label: "pbctl ssh: build-host")
        recorder.record(KeptContent(item: Item.text("there"), application: nil, selection: "clipboard", skipped: [], origin: origin))
        recorder.flush()
        XCTAssertEqual(try history.entries().entries.map(\.application), ["pbctl ssh: build-host"])
    }
}
