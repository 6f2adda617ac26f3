import Markdown
import XCTest

@testable import Representations

/// Shared helpers for the rich-text tests: a document built without the Markdown parser, fixture paths
/// and external tools.
enum RichTextTestSupport {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    /// Copies of the reference samples (`shared/reference/samples`): Cocoa-style and pandoc 2.17 RTF.
    static let samples = fixtures.appendingPathComponent("RichText")

    /// A document exercising every construct the RTF writer handles, made with the AST builder.
    static func sampleDocument() -> MarkdownDocument {
        var b = MarkdownDocument.Builder()
        b.open(.heading(level: 1)); b.appendText("Title héading"); b.close()
        b.open(.paragraph)
        b.appendText("Some ")
        b.open(.emphasis); b.appendText("em"); b.close()
        b.appendText(" and ")
        b.open(.strong); b.appendText("strong"); b.close()
        b.appendText(" and ")
        b.append(.code, literal: "code {x}")
        b.appendText(" and ")
        b.open(.strikethrough); b.appendText("del"); b.close()
        b.appendText(" and ")
        b.open(.link(destination: "https://example.com/a?b=1")); b.appendText("a link"); b.close()
        b.appendSoftBreak()
        b.appendText("Café — “quotes” 日本語 😀 back\\slash")
        b.appendLineBreak()
        b.appendText("after break")
        b.close()
        b.open(.heading(level: 2)); b.appendText("Lists"); b.close()
        b.open(.list(.bullet()))
        b.open(.item()); b.open(.paragraph); b.appendText("one"); b.close()
        b.open(.list(.ordered(start: 3)))
        b.open(.item()); b.open(.paragraph); b.appendText("three"); b.close(); b.close()
        b.open(.item()); b.open(.paragraph); b.appendText("four"); b.close(); b.close()
        b.close()
        b.close()
        b.open(.item()); b.open(.paragraph); b.appendText("two"); b.close(); b.close()
        b.close()
        b.open(.list(.bullet()))
        b.open(.item(task: .checked)); b.open(.paragraph); b.appendText("done"); b.close(); b.close()
        b.open(.item(task: .unchecked)); b.open(.paragraph); b.appendText("todo"); b.close(); b.close()
        b.close()
        b.open(.blockQuote); b.open(.paragraph); b.appendText("quoted"); b.close(); b.close()
        b.append(.codeBlock(info: "swift"), literal: "let x = 1\n    indented {}\n")
        b.append(.thematicBreak)
        b.open(.table(alignments: [.left, .right]))
        b.open(.tableRow(header: true))
        b.open(.tableCell); b.appendText("Name"); b.close()
        b.open(.tableCell); b.appendText("Value"); b.close()
        b.close()
        b.open(.tableRow(header: false))
        b.open(.tableCell); b.appendText("a"); b.close()
        b.open(.tableCell); b.appendText("1"); b.close()
        b.close()
        b.close()
        b.open(.paragraph); b.appendText("Note"); b.append(.footnoteReference(label: "1")); b.close()
        b.open(.footnoteDefinition(label: "1")); b.open(.paragraph); b.appendText("The note."); b.close(); b.close()
        return b.finish()
    }

    /// Runs a program; nil when it cannot be started.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval = 120) -> (status: Int32, output: String)? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return nil }
        let deadline = Date().addingTimeInterval(timeout)
        var data = Data()
        let reader = Thread {
        }
        _ = reader
        data = pipe.fileHandleForReading.readDataToEndOfFile()
        while p.isRunning && Date() < deadline { usleep(10_000) }
        if p.isRunning { p.terminate() }
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static func which(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
}
