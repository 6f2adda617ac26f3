import Foundation
import XCTest

/// `FastPaste.swift` answers a plain `pbctl paste` without the negotiation; it must make the choice the
/// full paste makes. The full paste runs whenever another flag is given (`-v` here), so both are
/// compared byte for byte over owners offering different targets.
final class FastPasteAgreementTests: X11TestCase {
    func assertSameAnswer(_ label: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let fast = try run([pbctl, "paste"])
        let full = try run([pbctl, "paste", "-v"])
        XCTAssertEqual(fast.status, full.status, "\(label): exit status", file: file, line: line)
        XCTAssertEqual(fast.stdout, full.stdout, "\(label): fast path and full paste differ", file: file, line: line)
        XCTAssertEqual(fast.status, 0, "\(label): \(fast.stderr)", file: file, line: line)
    }

    func testFastPathAndFullPasteAgree() throws {
        try requireTool("/usr/bin/xclip")
        // UTF8_STRING offered: the fast path answers.
        let text = try write(Data("naïve café — ünïcode\n".utf8), "text.txt")
        try startPeer(["/usr/bin/xclip", "-i", "-quiet", "-selection", "clipboard", "-t", "UTF8_STRING", text], waitFor: nil)
        XCTAssertTrue(eventually { (try? run([pbctl, "types"]).text.contains("public.utf8-plain-text")) == true })
        try assertSameAnswer("UTF8_STRING")
        // Only text/html: the fast path must decline and leave it to the full paste.
        let html = try write(Data("<p>only <b>html</b></p>".utf8), "only.html")
        try startPeer(["/usr/bin/xclip", "-i", "-quiet", "-selection", "clipboard", "-t", "text/html", html], waitFor: nil)
        XCTAssertTrue(eventually { (try? run([pbctl, "types"]).text.contains("public.html")) == true })
        try assertSameAnswer("text/html only")
        // pbctl's own owner of Markdown: UTF8_STRING is the Markdown source.
        XCTAssertEqual(try run([pbctl, "copy", "--type", "markdown"], input: Data("# T\n\n*x*\n".utf8), timeout: 20).status, 0)
        try assertSameAnswer("pbctl Markdown owner")
    }
}
