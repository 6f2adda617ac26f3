import Foundation
import XCTest

@testable import FuzzTargets

/// Replays every input the fuzzers ever found (a crash, a hang, an undocumented answer), kept in
/// `Tests/Fuzz/regressions/<target>/`, through the same entry points `make fuzz` runs, plus the seed
/// corpus of each target. Each input must finish within a generous bound (debug build): a hang
/// fails here instead of stalling the run.
final class FuzzRegressionTests: XCTestCase {
    static let fuzzRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")
    /// Per input, in the debug build (the release build is 10–50× faster).
    static let bound: TimeInterval = 30

    func inputs(_ folder: String, _ target: FuzzTarget) -> [URL] {
        let directory = Self.fuzzRoot.appendingPathComponent(folder).appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0) }
    }

    /// Runs `target` on `input` on a thread of its own; false when it did not finish within the bound.
    func finishes(_ target: FuzzTarget, _ input: [UInt8]) -> Bool {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            target.run(input)
            done.signal()
        }
        thread.stackSize = 64 << 20
        thread.start()
        return done.wait(timeout: .now() + Self.bound) == .success
    }

    func replay(_ target: FuzzTarget, file: StaticString = #filePath, line: UInt = #line) throws {
        let regressions = inputs("regressions", target)
        let seeds = inputs("corpus", target)
        XCTAssertFalse(seeds.isEmpty, "no seed corpus for \(target.rawValue)", file: file, line: line)
        for url in regressions + seeds {
            let bytes = try [UInt8](Data(contentsOf: url))
            XCTAssertTrue(finishes(target, bytes), "\(target.rawValue): \(url.lastPathComponent) did not finish within \(Int(Self.bound)) s",
                          file: file, line: line)
        }
    }

    func testEveryTargetHasAFolder() {
        for target in FuzzTarget.allCases {
            var isDirectory: ObjCBool = false
            let path = Self.fuzzRoot.appendingPathComponent("corpus").appendingPathComponent(target.rawValue).path
            XCTAssertTrue(FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue, path)
        }
    }

    func testMarkdown() throws { try replay(.markdown) }
    func testHTML() throws { try replay(.html) }
    func testRTF() throws { try replay(.rtf) }
    func testTextBundle() throws { try replay(.textbundle) }
    func testItemArchive() throws { try replay(.itemArchive) }
    func testHistoryImport() throws { try replay(.historyImport) }
    func testStoreInfo() throws { try replay(.storeInfo) }
    func testJSON() throws { try replay(.json) }
    func testTypeDeclarations() throws { try replay(.typeDeclarations) }
    func testSniffer() throws { try replay(.sniffer) }
    func testCompoundText() throws { try replay(.compoundText) }
    func testX11Protocol() throws { try replay(.x11Protocol) }
    func testWaylandProtocol() throws { try replay(.waylandProtocol) }
    func testRegex() throws { try replay(.regex) }
    func testRemoteProtocol() throws { try replay(.remoteProtocol) }
    func testKDEConnectPacket() throws { try replay(.kdeconnectPacket) }
    func testKDEConnectSession() throws { try replay(.kdeconnectSession) }
    func testImagePNG() throws { try replay(.imagePNG) }
    func testImageJPEG() throws { try replay(.imageJPEG) }
    func testImageGIF() throws { try replay(.imageGIF) }
    func testImageBMP() throws { try replay(.imageBMP) }
    func testImageTIFF() throws { try replay(.imageTIFF) }
    func testImageWebP() throws { try replay(.imageWebP) }
    func testToolArguments() throws { try replay(.toolArguments) }

    /// The RTF that looped forever in the field-instruction parser (U+00A0 after HYPERLINK, from a code
    /// page), byte for byte as issue 13 reported it.
    func testHyperlinkInstructionWithNonBreakingSpaceEnds() throws {
        let url = Self.fuzzRoot.appendingPathComponent("regressions/rtf/issue13-hyperlink-nbsp.rtf")
        XCTAssertTrue(finishes(.rtf, try [UInt8](Data(contentsOf: url))))
    }
}
