import Foundation
import XCTest

/// The manual and the help say what the code does: every environment variable the sources read is in
/// the manual's ENVIRONMENT section, every configuration key in CONFIGURATION, every backend in
/// `--backend`'s help, the history and configuration folders in FILES.
final class EnvironmentDocumentationTests: PbctlTestCase {
    /// The repository's Sources folder, found from this file.
    var sources: String { URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path + "/Sources" }

    /// Every NAME in `environment["NAME"]`, `variable("NAME")` and `getenv("NAME")` in the sources.
    func variablesTheCodeReads() throws -> Set<String> {
        let pattern = try NSRegularExpression(pattern: #"(?:environment\[|variable\(|getenv\()"([A-Z][A-Z0-9_]*)""#)
        var names = Set<String>()
        let files = FileManager.default.enumerator(atPath: sources)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        XCTAssertGreaterThan(files.count, 50, "the sources were not found at \(sources)")
        for file in files {
            // Code only: comments may name a variable as an example.
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8).split(separator: "\n")
                .filter { !$0.drop(while: { $0 == " " }).hasPrefix("//") }.joined(separator: "\n")
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                names.insert(String(text[Range(match.range(at: 1), in: text)!]))
            }
        }
        return names
    }

    func section(_ name: String, of page: String) -> String {
        guard let start = page.range(of: "\n\(name)\n") else { return "" }
        let rest = page[start.upperBound...]
        let end = rest.range(of: #"\n[A-Z][A-Z ]+\n"#, options: .regularExpression)?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }

    func manual() throws -> String {
        let roff = try pbctl.run("help", "--man")
        XCTAssertEqual(roff.status, 0)
        let page = scratch + "/pbctl.1"
        try roff.stdout.write(to: URL(fileURLWithPath: page))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "MANWIDTH=200 man -l '\(page)' 2>/dev/null | col -b"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: text, as: UTF8.self)
    }

    func testEveryVariableTheCodeReadsIsInTheManual() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/man"), "man is not installed")
        let read = try variablesTheCodeReads()
        XCTAssertTrue(read.isSuperset(of: ["PBCTL_STORE", "PBCTL_HISTORY", "XDG_STATE_HOME", "PBCTL_WAYLAND_TIMEOUT", "WAYLAND_DISPLAY"]), "\(read)")
        let environment = section("ENVIRONMENT", of: try manual())
        XCTAssertFalse(environment.isEmpty, "the manual has no ENVIRONMENT section")
        for name in read.sorted() {
            XCTAssertNotNil(environment.range(of: #"(?m)^\s+"# + name + #"\s*$"#, options: .regularExpression) ?? environment.range(of: #"(?m)^\s+"# + name + #"\s"#, options: .regularExpression), "the manual's ENVIRONMENT does not name \(name)")
        }
    }

    func testTheManualHasTheHistoryTheConfigurationAndTheirFiles() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/man"), "man is not installed")
        let page = try manual()
        XCTAssertFalse(section("HISTORY", of: page).isEmpty, "no HISTORY section")
        let configuration = section("CONFIGURATION", of: page)
        for key in ["history.max-entries", "history.max-bytes", "history.max-entry-size", "history.primary"] {
            XCTAssertTrue(configuration.contains(key), "CONFIGURATION lacks \(key)")
        }
        let files = section("FILES", of: page)
        for path in ["pbctl/config", "pbctl/history", "NAME.pasteboard"] { XCTAssertTrue(files.contains(path), "FILES lacks \(path)") }
        // Every history subcommand is in the manual's history entry.
        for subcommand in ["list", "paste", "copy", "delete", "clear", "search", "pause", "resume"] {
            XCTAssertTrue(page.contains("history " + subcommand) || page.contains("|" + subcommand) || page.contains("[" + subcommand), "history \(subcommand)")
        }
    }

    func testTheHelpNamesEveryBackend() throws {
        let help = try pbctl.run("help").text
        let line = help.split(separator: "\n").first { $0.contains("--backend") } ?? ""
        for backend in ["auto", "store", "wayland", "x11", "osc52"] { XCTAssertTrue(line.contains(backend), "--backend's help lacks \(backend): \(line)") }
    }

    func testConfigurationWarningsArePrintedOnce() throws {
        let config = scratch + "/config/pbctl"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try Data("history.bogus = 1\nhistory.max-entries = many\n".utf8).write(to: URL(fileURLWithPath: config + "/config"))
        var runner = pbctl!
        runner.environment["XDG_CONFIG_HOME"] = scratch + "/config"
        let copy = try runner.run(["copy"], stdin: Data("x".utf8))
        XCTAssertEqual(copy.status, 0)
        XCTAssertEqual(copy.stderr.split(separator: "\n").count, 2, copy.stderr)
    }
}
