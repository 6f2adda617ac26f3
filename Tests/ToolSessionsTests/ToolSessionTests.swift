import Backends
import CopyPaste
import Foundation
import Pasteboard
import History
import Personalities
import ToolSessions
import XCTest

/// The tools' run as a library call over the in-memory pasteboard: what the command line hands in (argv,
/// the streams, the backend chooser, the history) and nothing else. Against the real tools:
/// `PersonalityDifferentialTests`.
final class ToolSessionTests: XCTestCase {
    private var folder = ""
    private let board = InMemoryPasteboard()

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "/tool-sessions-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    private final class Output: RepresentationSink {
        var data = Data()
        func write(_ chunk: Data) throws { data.append(chunk) }
    }

    /// Runs `arguments` as `personality` with `input` on standard input: the status and standard output.
    private func run(_ personality: Personality, _ arguments: [String], input: Data = Data(), history: History? = nil) throws -> (Int32, Data) {
        let output = Output()
        let board = board
        let host = ToolSession.Host(
            registry: .standard, environment: [:],
            readStandardInput: { limit in
                guard input.count <= limit else { throw PasteboardError(.invalidData, "over the limit") }
                return input
            },
            writeStandardOutput: { output.data.append($0) }, standardOutputSink: { output }, stdinIsTerminal: false, stdoutIsTerminal: false,
            maximumInputSize: { 1 << 20 }, htmlImages: .data, chooseBackend: { _, _, _ in board },
            commit: { CopyCommit(registry: .standard) { history } }, reportNotRecorded: { problems in if !problems.isEmpty { XCTFail("not recorded: \(problems)") } })
        let status = try runTool(arguments, ToolSession(personality: personality, program: personality.rawValue, host: host))
        return (status, output.data)
    }

    func testXclipCopiesAndPastesThroughTheBackendHandedIn() throws {
        let history = try History(root: folder + "/history")
        XCTAssertEqual(try run(.xclip, ["-selection", "clipboard"], input: Data("hello".utf8), history: history).0, 0)
        XCTAssertEqual(try board.read(.utf8PlainText, item: 0, from: .general), Data("hello".utf8))
        let (status, output) = try run(.xclip, ["-selection", "clipboard", "-o"])
        XCTAssertEqual(status, 0)
        XCTAssertEqual(output, Data("hello".utf8))
        // Nobody watches the in-memory pasteboard: the tool's copy recorded itself (CopyCommit).
        XCTAssertEqual(try history.entries().entries.map(\.preview), ["hello"])
    }

    func testTheToolsDefaultTextIsKeptAsTextAndLatin1AsLatin1() throws {
        _ = try run(.xclip, ["-selection", "clipboard"], input: Data("<!DOCTYPE html><p>hi</p>".utf8))
        XCTAssertEqual(try board.items(in: .general).first?.types.first?.type, .utf8PlainText)
        _ = try run(.xsel, ["-b", "-i"], input: Data([0x63, 0x61, 0x66, 0xE9]))
        XCTAssertEqual(try board.items(in: .general).first?.types.first?.type, .latin1PlainText)
        XCTAssertEqual(try run(.xsel, ["-b", "-o"]).1, Data([0x63, 0x61, 0x66, 0xE9]))
    }

    func testXclipListsTheTargetsPbctlsOwnerWouldOffer() throws {
        _ = try run(.xclip, ["-selection", "clipboard"], input: Data("text".utf8))
        let targets = String(decoding: try run(.xclip, ["-selection", "clipboard", "-o", "-t", "TARGETS"]).1, as: UTF8.self)
        XCTAssertTrue(targets.hasPrefix("TARGETS\n"), targets)
        XCTAssertTrue(targets.contains("\nUTF8_STRING\n"), targets)
    }

    func testWlCopyThenWlPasteGivesTheWordsAndALineEnding() throws {
        XCTAssertEqual(try run(.wlCopy, ["two", "words"]).0, 0)
        XCTAssertEqual(try run(.wlPaste, []).1, Data("two words\n".utf8))
        XCTAssertEqual(try run(.wlPaste, ["-n"]).1, Data("two words".utf8))
    }

    func testWlPasteSaysThereIsNoSelectionWithTheToolsWordsAndStatus() throws {
        XCTAssertThrowsError(try run(.wlPaste, [])) { error in
            XCTAssertEqual((error as? ToolFailure)?.message, "No selection\n", "\(error)")
            XCTAssertEqual((error as? ToolFailure)?.status, 1)
        }
    }
}
