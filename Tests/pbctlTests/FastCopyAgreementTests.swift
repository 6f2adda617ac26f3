import Foundation
import XCTest

/// `pbctl copy FILE` takes a quick way for a small text file going to the store alone
/// (pbctl/FastCopy.swift); `pbctl copy -v FILE` always takes the full one. Both must leave the same
/// pasteboard and history behind, and fail the same way, whatever the file.
final class FastCopyAgreementTests: PbctlTestCase {
    func runners(_ backend: String?) -> (fast: PbctlRunner, full: PbctlRunner) {
        var pair = (fast: PbctlRunner(store: scratch + "/fast-\(backend ?? "auto")"), full: PbctlRunner(store: scratch + "/full-\(backend ?? "auto")"))
        for name in ["SSH_CONNECTION", "SSH_TTY", "TMUX", "STY", "PBCTL_REMOTE", "PBCTL_MAX_SIZE"] {
            pair.fast.environment.removeValue(forKey: name)
            pair.full.environment.removeValue(forKey: name)
        }
        pair.fast.environment["PBCTL_BACKEND"] = backend
        pair.full.environment["PBCTL_BACKEND"] = backend
        return pair
    }

    /// The JSON of `arguments`, with what differs between two copies by nature (times, paths of the
    /// two stores) taken out.
    func normalized(_ runner: PbctlRunner, _ arguments: String...) throws -> String {
        var text = try runner.run(arguments).text
        for pattern in [#""(created|time)" *: *"[^"]*""#, #""changeCount" *: *[0-9]+"#, #"/(fast|full)-(auto|store)"#] {
            text = text.replacingOccurrences(of: pattern, with: "", options: .regularExpression)
        }
        return text
    }

    func testTheFastCopyLeavesWhatTheFullCopyLeaves() throws {
        let long = String(repeating: "a line of text\n", count: 5000)  // over 64 KiB: the full way
        let cases: [(String, Data)] = [
            ("note", Data("hello world\n".utf8)),
            ("plain.txt", Data("plain text, named so\n".utf8)),
            ("UPPER.TXT", Data("shouted\n".utf8)),
            ("blank-first", Data("  \n\n\tsecond line \u{1} with a control\n".utf8)),
            ("page", Data("<!DOCTYPE html><html><body><p>a page</p></body></html>".utf8)),
            ("rich", Data(#"{\rtf1\ansi hello}"#.utf8)),
            ("empty", Data()),
            ("bad-utf8.txt", Data([0x61, 0xFF, 0x62])),
            ("bad-utf8", Data([0x61, 0xFF, 0x62])),
            ("long", Data(long.utf8)),
            ("report.md", Data("# Title\n".utf8)),
            ("emoji", Data("😀 é\n".utf8)),
        ]
        for backend in [nil, "store"] {
            let (fast, full) = runners(backend)
            for (name, content) in cases {
                let path = scratch + "/" + name
                try content.write(to: URL(fileURLWithPath: path))
                let quick = try fast.run("copy", path)
                let slow = try full.run("copy", "-v", path)
                XCTAssertEqual(quick.status, slow.status, "\(name): \(quick.stderr) / \(slow.stderr)")
                if quick.status != 0 {
                    XCTAssertEqual(quick.stderr, slow.stderr, name)
                    continue
                }
                XCTAssertEqual(try fast.run("paste").stdout, try full.run("paste").stdout, name)
                XCTAssertEqual(try fast.run("types", "--json").text, try full.run("types", "--json").text, name)
                XCTAssertEqual(try normalized(fast, "info", "--json"), try normalized(full, "info", "--json"), name)
                XCTAssertEqual(try normalized(fast, "history", "--json"), try normalized(full, "history", "--json"), name)
            }
            XCTAssertEqual(try fast.run("history").text, try full.run("history").text)
        }
    }
}
