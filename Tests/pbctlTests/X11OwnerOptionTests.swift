import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The owner's lifetime options, on a server of their own (the transfer tests above kill and stop
/// owners mid-transfer), so these tests are about the options themselves.
final class X11OwnerOptionTests: X11TestCase {
    let xclip = "/usr/bin/xclip"

    func testPasteOnceServesOnePasteThenGivesUp() throws {
        try requireTool(xclip)
        // Another client owned the selection before (as after the other tests on this server): the
        // --paste-once owner used to exit right after its reply and lose it now and then.
        let other = try write(Data("other".utf8), "other.txt")
        _ = try run([xclip, "-i", "-selection", "clipboard", other], detached: true)
        XCTAssertEqual(try run([pbctl, "copy", "--paste-once"], input: Data("once".utf8)).status, 0)
        XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard", "-t", "TARGETS"]).status, 0, "TARGETS does not count")
        XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard"]).text, "once")
        XCTAssertTrue(try eventually { try run([xclip, "-o", "-selection", "clipboard"]).status != 0 })
    }

    func testClearAfterGivesTheSelectionUp() throws {
        try requireTool(xclip)
        XCTAssertEqual(try run([pbctl, "copy", "--clear-after", "1"], input: Data("brief".utf8)).status, 0)
        XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard"]).text, "brief")
        XCTAssertTrue(try eventually(timeout: 4) { try run([pbctl, "types"]).status == 1 })
        XCTAssertNotEqual(try run([xclip, "-o", "-selection", "clipboard"]).status, 0)
    }

    func testForegroundServesUntilAnotherClientCopies() throws {
        try requireTool(xclip)
        let source = try write(Data("fg".utf8), "fg.txt")
        let owner = try Spawned(["/bin/sh", "-c", "exec \"$0\" copy --foreground < \"$1\"", pbctl, source], environment: environment)
        spawned.append(owner)
        XCTAssertTrue(try eventually { try run([xclip, "-o", "-selection", "clipboard"]).text == "fg" })
        XCTAssertTrue(owner.child.isRunning, String(decoding: readSome(owner.stderrFD, timeoutMS: 500) ?? Data(), as: UTF8.self))
        let other = try write(Data("other".utf8), "o.txt")
        _ = try run([xclip, "-i", "-selection", "clipboard", other], detached: true)
        XCTAssertTrue(owner.child.wait(timeout: 5), "--foreground did not return after losing the selection")
        XCTAssertEqual(owner.child.status, 0)
    }
}
