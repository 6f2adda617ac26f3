import Foundation
import XCTest

/// The first version of pbctl against the file store, with no display: the acceptance of the
/// foundation issue.
final class StoreCLITests: PbctlTestCase {
    func testTextRoundTripIsByteExact() throws {
        let text = "h\u{e9}llo\n"
        XCTAssertEqual(try pbctl.run("copy", stdin: text).status, 0)
        let paste = try pbctl.run("paste")
        XCTAssertEqual(paste.status, 0, paste.stderr)
        XCTAssertEqual(paste.stdout, Data(text.utf8))
        XCTAssertEqual(try pbctl.run("paste", "-n").stdout, Data("h\u{e9}llo".utf8))
    }

    func testPNGRoundTripsByExtensionAndByType() throws {
        let png = try XCTUnwrap(Data(base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAEElEQVR4nGP4z8AAQQxwFgBB0gX7h/C5SAAAAABJRU5ErkJggg=="))
        let file = scratch + "/shot.png"
        try png.write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(try pbctl.run("copy", file).status, 0)
        XCTAssertEqual(try pbctl.run("types").text.split(separator: " ").first, "public.png")
        XCTAssertEqual(try pbctl.run("paste", "--type", "public.png").stdout, png)
        XCTAssertEqual(try pbctl.run(["copy", "--type", "public.png"], stdin: png).status, 0)
        let out = scratch + "/out.png"
        XCTAssertEqual(try pbctl.run("paste", "--type", "image/png", "-o", out).status, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out)), png)
        // The default paste of an image is the image itself.
        XCTAssertEqual(try pbctl.run("paste").stdout, png)
        // Bytes that only start like a PNG are refused as one, and copied as they are when declared so.
        var fake = Data(png.prefix(8))
        fake.append(Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
        try fake.write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(try pbctl.run("copy", file).status, 65)
        XCTAssertEqual(try pbctl.run("paste").stdout, png, "the previous content stays")
        XCTAssertEqual(try pbctl.run("copy", "--type", "application/octet-stream", file).status, 0)
        XCTAssertEqual(try pbctl.run("paste").stdout, fake, "the default paste of binary data is the data itself")
    }

    func testInfoShowsTheItemsFlags() throws {
        try pbctl.run("copy", "--transient", stdin: "passing")
        XCTAssertTrue(try pbctl.run("info").text.contains("flags:   transient"))
        try pbctl.run("copy", stdin: "kept")
        XCTAssertFalse(try pbctl.run("info").text.contains("flags:"))
    }

    func testNamedPasteboardsAreIndependent() throws {
        try pbctl.run("copy", stdin: "general")
        try pbctl.run("copy", "-p", "notes", stdin: "notes")
        try pbctl.run("copy", "--primary", stdin: "primary")
        XCTAssertEqual(try pbctl.run("paste").text, "general")
        XCTAssertEqual(try pbctl.run("paste", "--pasteboard=notes").text, "notes")
        XCTAssertEqual(try pbctl.run("paste", "-p", "primary").text, "primary")
        let empty = try pbctl.run("paste", "-p", "find")
        XCTAssertEqual(empty.status, 1)
        XCTAssertTrue(empty.stderr.contains("nothing to paste"), empty.stderr)
    }

    func testTypeDetection() throws {
        let cases: [(String, String, String)] = [
            ("a.md", "# Title\n", "net.daringfireball.markdown"),
            ("a.HTML", "<p>x</p>", "public.html"),
            ("a.rtf", "{\\rtf1 x}", "public.rtf"),
            ("noext", "{\\rtf1\\ansi x}", "public.rtf"),
            ("page", "<!DOCTYPE html><p>x</p>", "public.html"),
            ("plain", "just text", "public.utf8-plain-text"),
            ("a.recipe", "{}", "public.utf8-plain-text"),  // unknown extension: the content decides
        ]
        for (name, content, expected) in cases {
            let file = scratch + "/" + name
            try content.write(toFile: file, atomically: true, encoding: .utf8)
            XCTAssertEqual(try pbctl.run("copy", file).status, 0, name)
            let types = try pbctl.run("types", "--json")
            let listing = try JSONSerialization.jsonObject(with: types.stdout) as? [[String: Any]]
            XCTAssertEqual(listing?.first?["type"] as? String, expected, name)
        }
        XCTAssertEqual(try pbctl.run(["copy"], stdin: Data([0, 1, 2, 0xFF])).status, 0)
        XCTAssertTrue(try pbctl.run("types").text.hasPrefix("public.data"))
    }

    func testSeveralFilesMakeSeveralItems() throws {
        try "one\n".write(toFile: scratch + "/1.txt", atomically: true, encoding: .utf8)
        try "two\n".write(toFile: scratch + "/2.txt", atomically: true, encoding: .utf8)
        XCTAssertEqual(try pbctl.run("copy", scratch + "/1.txt", scratch + "/2.txt").status, 0)
        XCTAssertEqual(try pbctl.run("paste").text, "one\ntwo\n")
        XCTAssertEqual(try pbctl.run("paste", "--item", "1").text, "two\n")
        XCTAssertEqual(try pbctl.run("paste", "--item", "2").status, 1)
        let info = try JSONSerialization.jsonObject(with: try pbctl.run("info", "--json").stdout) as? [String: Any]
        XCTAssertEqual((info?["items"] as? [Any])?.count, 2)
        XCTAssertEqual(
            ((info?["items"] as? [[String: Any]])?[0]["sourcePath"] as? String), scratch + "/1.txt")
    }

    func testTypesInfoAndClear() throws {
        try pbctl.run("copy", stdin: "abc")
        XCTAssertEqual(try pbctl.run("types").text, "public.utf8-plain-text text/plain;charset=utf-8  3\n")
        let info = try JSONSerialization.jsonObject(with: try pbctl.run("info", "--json").stdout) as? [String: Any]
        XCTAssertEqual(info?["changeCount"] as? Int, 1)
        XCTAssertEqual(info?["backend"] as? String, "store")
        XCTAssertEqual(try pbctl.run("clear").status, 0)
        XCTAssertEqual(try pbctl.run("paste").status, 1)
        let after = try JSONSerialization.jsonObject(with: try pbctl.run("info", "--json").stdout) as? [String: Any]
        XCTAssertEqual(after?["changeCount"] as? Int, 2)
        XCTAssertEqual(try pbctl.run("types", "--json").text, "[]\n")
    }

    func testPasteOfAMissingTypeListsTheOfferedOnes() throws {
        try pbctl.run("copy", stdin: "abc")
        let result = try pbctl.run("paste", "--type", "public.rtf")
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("public.utf8-plain-text"), result.stderr)
        XCTAssertTrue(result.stdout.isEmpty)
    }

    func testExitCodes() throws {
        XCTAssertEqual(try pbctl.run("copy", "--bogus").status, 64)
        XCTAssertEqual(try pbctl.run("paste", "-o").status, 64)
        XCTAssertEqual(try pbctl.run("frobnicate").status, 64)
        XCTAssertEqual(try pbctl.run([]).status, 64)
        XCTAssertEqual(try pbctl.run("copy", "-p", "bad name", stdin: "x").status, 64)
        XCTAssertEqual(try pbctl.run("copy", "--type", "nonsense", stdin: "x").status, 64)
        XCTAssertEqual(try pbctl.run("copy", "--backend", "bogus", stdin: "x").status, 64)
        XCTAssertEqual(try pbctl.run("copy", "--backend", "wayland", stdin: "x").status, 69, "no compositor")
        let invalid = try pbctl.run(["copy", "--type", "text"], stdin: Data([0x61, 0xFF, 0x62]))
        XCTAssertEqual(invalid.status, 65)
        XCTAssertTrue(invalid.stderr.contains("UTF-8"), invalid.stderr)
        XCTAssertEqual(try pbctl.run("copy", scratch + "/does-not-exist").status, 65)
        let x11 = try pbctl.run("paste", "--backend", "x11")
        XCTAssertEqual(x11.status, 69, x11.stderr)
        // Nothing was written by the failed copies.
        XCTAssertEqual(try pbctl.run("paste").status, 1)
    }

    func testTruncatedMetadataGivesAnErrorWithThePathNotACrash() throws {
        try pbctl.run("copy", stdin: "hello")
        let info = pbctl.store + "/general.pasteboard/Info.json"
        let data = try Data(contentsOf: URL(fileURLWithPath: info))
        try data.prefix(10).write(to: URL(fileURLWithPath: info))
        for command in ["paste", "types", "info"] {
            let result = try pbctl.run(command)
            XCTAssertTrue([65, 74].contains(result.status), "\(command): \(result.status)")
            XCTAssertTrue(result.stderr.contains(info), result.stderr)
        }
        XCTAssertEqual(try pbctl.run("copy", stdin: "fresh").status, 0)
        XCTAssertEqual(try pbctl.run("paste").text, "fresh")
    }

    func testSymlinkPlantedAtTheStorePathIsRefused() throws {
        let elsewhere = scratch + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        XCTAssertEqual(symlink(elsewhere, pbctl.store), 0)
        let result = try pbctl.run("copy", stdin: "secret")
        XCTAssertEqual(result.status, 74)
        XCTAssertTrue(result.stderr.contains("symbolic link"), result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere), [])
    }

    func testStorePermissions() throws {
        try pbctl.run("copy", stdin: "x")
        func mode(_ path: String) throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
        }
        XCTAssertEqual(try mode(pbctl.store), 0o700)
        let package = pbctl.store + "/general.pasteboard"
        XCTAssertEqual(try mode(package), 0o700)
        for file in try FileManager.default.contentsOfDirectory(atPath: package) {
            XCTAssertEqual(try mode(package + "/" + file), 0o600, file)
        }
    }

    /// 40 copies racing 40 pastes: every paste returns one whole payload, and the change count rises
    /// by exactly 40.
    func testFortyCopiesRaceFortyPastes() throws {
        try pbctl.run("copy", stdin: String(repeating: "seed", count: 10))
        let payloads = (0..<40).map { i in String(repeating: "payload-\(i)-", count: 2000 + i) }
        let valid = Set(payloads + [String(repeating: "seed", count: 10)])
        let problems = Counter()
        let pbctl = self.pbctl!
        DispatchQueue.concurrentPerform(iterations: 80) { index in
            do {
                if index % 2 == 0 {
                    let result = try pbctl.run(["copy"], stdin: Data(payloads[index / 2].utf8))
                    if result.status != 0 { problems.add("copy \(index): \(result.status) \(result.stderr)") }
                } else {
                    let result = try pbctl.run("paste")
                    if result.status != 0 || !valid.contains(result.text) {
                        problems.add("paste \(index): \(result.status) \(result.stderr) \(result.stdout.count) bytes")
                    }
                }
            } catch {
                problems.add("\(error)")
            }
        }
        XCTAssertEqual(problems.messages, [])
        let info = try JSONSerialization.jsonObject(with: try pbctl.run("info", "--json").stdout) as? [String: Any]
        XCTAssertEqual(info?["changeCount"] as? Int, 41)
    }

    func testHelpAndVersion() throws {
        let help = try pbctl.run("--help")
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.text.contains("copy"))
        XCTAssertTrue(help.text.contains("64"))
        let copyHelp = try pbctl.run("help", "paste")
        XCTAssertTrue(copyHelp.text.contains("--no-newline"))
        XCTAssertTrue(copyHelp.text.contains("Examples:"))
        XCTAssertEqual(try pbctl.run("copy", "--help").status, 0)
        XCTAssertTrue(try pbctl.run("--version").text.hasPrefix("pbctl "))
    }

    func testPbcopyAndPbpasteBehaveLikeMacOS() throws {
        let links = scratch + "/bin"
        try FileManager.default.createDirectory(atPath: links, withIntermediateDirectories: true)
        XCTAssertEqual(symlink(PbctlRunner.binary, links + "/pbcopy"), 0)
        XCTAssertEqual(symlink(PbctlRunner.binary, links + "/pbpaste"), 0)
        XCTAssertEqual(try pbctl.run([], stdin: Data("<b>x</b>".utf8), executable: links + "/pbpaste").status, 0,
            "an empty pasteboard pastes nothing and succeeds")
        XCTAssertEqual(try pbctl.run([], stdin: Data("<b>x</b>".utf8), executable: links + "/pbcopy").status, 0)
        XCTAssertTrue(try pbctl.run("types").text.hasPrefix("public.utf8-plain-text"), "pbcopy keeps HTML as text")
        XCTAssertEqual(try pbctl.run([], executable: links + "/pbpaste").text, "<b>x</b>")
        XCTAssertEqual(try pbctl.run(["-pboard", "find"], stdin: Data("f".utf8), executable: links + "/pbcopy").status, 0)
        XCTAssertEqual(try pbctl.run(["-pboard", "find"], executable: links + "/pbpaste").text, "f")
        try pbctl.run(["-pboard", "find"], stdin: Data("{\\rtf1 r}".utf8), executable: links + "/pbcopy")
        XCTAssertTrue(try pbctl.run("types", "-p", "find").text.hasPrefix("public.rtf"))
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var messages: [String] = []
    func add(_ message: String) { lock.withLock { messages.append(message) } }
}
