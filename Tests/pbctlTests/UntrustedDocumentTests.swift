import Foundation
import XCTest

/// A Markdown file the user did not write: copying it never carries a file from outside its folder
/// into HTML, RTF or a TextBundle, in any way a link can point there.
final class UntrustedDocumentTests: PbctlTestCase {
    let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!
    let secret = "TOP-SECRET-\(UUID().uuidString)"

    func makeRepository() throws -> String {
        let repo = scratch + "/repo"
        for folder in [repo + "/img", scratch + "/outside"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        try png.write(to: URL(fileURLWithPath: repo + "/img/logo.png"))
        try Data(secret.utf8).write(to: URL(fileURLWithPath: scratch + "/outside/secret.txt"))
        // An "image" that is the secret in a PNG's clothing, outside the folder and reached by links.
        var disguised = png
        disguised.append(Data(secret.utf8))
        try disguised.write(to: URL(fileURLWithPath: scratch + "/outside/disguised.png"))
        XCTAssertEqual(symlink(scratch + "/outside/disguised.png", repo + "/img/link.png"), 0)
        XCTAssertEqual(symlink("../outside", repo + "/up"), 0)
        try Data(secret.utf8).write(to: URL(fileURLWithPath: repo + "/notes.png"))
        XCTAssertEqual(mkfifo(repo + "/pipe.png", 0o600), 0)
        let markdown = """
            # Nice README

            ![logo](img/logo.png)
            ![abs](\(scratch)/outside/disguised.png)
            ![env](/proc/self/environ)
            ![dot](../outside/secret.txt)
            ![link](img/link.png)
            ![dir](up/disguised.png)
            ![txt](notes.png)
            ![fifo](pipe.png)
            ![dev](/dev/zero)
            ![url](file://\(scratch)/outside/disguised.png)
            ![remote](https://example.com/x.png)

            """
        try Data(markdown.utf8).write(to: URL(fileURLWithPath: repo + "/README.md"))
        return repo
    }

    func assertNothingLeaked(_ file: StaticString = #filePath, line: UInt = #line) throws {
        let environ = try? String(contentsOfFile: "/proc/self/environ", encoding: .utf8)
        for arguments in [["paste", "--as", "html"], ["paste", "--accept", "public.rtf"], ["paste", "--type", "org.textbundle.package"],
                          ["paste", "--type", "org.textbundle.compressed"]] {
            let result = try pbctl.run(arguments)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)", file: file, line: line)
            var everything = String(decoding: result.stdout, as: UTF8.self)
            // Decode every base64 run (data: URLs) and every RTF picture's hex too.
            for match in everything.split(whereSeparator: { !($0.isLetter || $0.isNumber || "+/=".contains($0)) }) where match.count > 40 {
                if let decoded = Data(base64Encoded: String(match)) { everything += String(decoding: decoded, as: UTF8.self) }
            }
            let hex = result.stdout.filter { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
            var bytes = [UInt8]()
            var index = hex.startIndex
            while index < hex.endIndex, hex.index(after: index) < hex.endIndex {
                let pair = String(decoding: hex[index...hex.index(after: index)], as: UTF8.self)
                bytes.append(UInt8(pair, radix: 16) ?? 0)
                index = hex.index(index, offsetBy: 2)
            }
            everything += String(decoding: bytes, as: UTF8.self)
            XCTAssertFalse(everything.contains(secret), "\(arguments) carries the secret", file: file, line: line)
            if let environ, environ.count > 20 {
                XCTAssertFalse(everything.contains(String(environ.prefix(20))), "\(arguments) carries the environment", file: file, line: line)
            }
        }
    }

    func testCopiedReadmeEmbedsOnlyImagesInsideItsFolder() throws {
        let repo = try makeRepository()
        let copy = try pbctl.run(["copy", "-v", repo + "/README.md"])
        XCTAssertEqual(copy.status, 0, copy.stderr)
        for destination in ["/proc/self/environ", "../outside/secret.txt", "img/link.png", "up/disguised.png", "notes.png", "pipe.png",
                            "/dev/zero", "https://example.com/x.png"] {
            XCTAssertTrue(copy.stderr.contains("image \(destination) not embedded"), "-v does not explain \(destination): \(copy.stderr)")
        }
        try assertNothingLeaked()
        let html = try pbctl.run(["paste", "--as", "html"]).text
        XCTAssertTrue(html.contains("data:image/png;base64," + png.base64EncodedString()), "the legitimate image is embedded")
        XCTAssertTrue(html.contains("src=\"../outside/secret.txt\""), "a refused link stays a link as written")
        XCTAssertEqual(try pbctl.run(["paste", "--accept", "public.rtf"]).text.components(separatedBy: "\\pict").count - 1, 1)
    }

    func testStandardInputTakesImagesFromTheCurrentFolderOrBase() throws {
        let repo = try makeRepository()
        let markdown = try Data(contentsOf: URL(fileURLWithPath: repo + "/README.md"))
        XCTAssertEqual(try pbctl.run(["copy", "--from", "markdown", "--base", repo], stdin: markdown).status, 0)
        try assertNothingLeaked()
        XCTAssertTrue(try pbctl.run(["paste", "--as", "html"]).text.contains("data:image/png"))

        var none = pbctl!
        none.environment["PBCTL_HTML_IMAGES"] = "none"
        XCTAssertEqual(try none.run(["copy", "--from", "markdown", "--base", repo], stdin: markdown).status, 0)
        let html = try pbctl.run(["paste", "--as", "html"]).text
        XCTAssertFalse(html.contains("data:"), "PBCTL_HTML_IMAGES=none embeds nothing in HTML")
        XCTAssertTrue(html.contains("src=\"img/logo.png\""))
    }
}
