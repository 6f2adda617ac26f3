import Foundation
import XCTest

/// ZIP bytes built by hand (stored entries), so the tests can make the hostile archives a careful
/// writer refuses to make.
struct HandmadeZip {
    struct Entry {
        var name: String
        var data: [UInt8]
        var unixMode: UInt32 = 0o100644
        /// The inflated size the headers claim; nil for the true one.
        var claimedSize: UInt32? = nil
        var method: UInt16 = 0
    }

    var entries: [Entry] = []

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    func bytes() -> Data {
        var out: [UInt8] = []
        var central: [UInt8] = []
        func le16(_ v: UInt16, _ a: inout [UInt8]) { a += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func le32(_ v: UInt32, _ a: inout [UInt8]) { for s in [0, 8, 16, 24] { a.append(UInt8(truncatingIfNeeded: v >> UInt32(s))) } }
        for e in entries {
            let offset = UInt32(out.count)
            let name = Array(e.name.utf8)
            let size = e.claimedSize ?? UInt32(e.data.count)
            for target in [0, 1] {
                if target == 0 {
                    le32(0x0403_4B50, &out); le16(20, &out)
                } else {
                    le32(0x0201_4B50, &central); le16(3 << 8 | 20, &central); le16(20, &central)
                }
                var a: [UInt8] = []
                le16(0, &a); le16(e.method, &a); le16(0, &a); le16(0x21, &a); le32(Self.crc32(e.data), &a)
                le32(UInt32(e.data.count), &a); le32(size, &a); le16(UInt16(name.count), &a); le16(0, &a)
                if target == 0 {
                    out += a + name + e.data
                } else {
                    central += a
                    le16(0, &central); le16(0, &central); le16(0, &central); le32(e.unixMode << 16, &central)
                    le32(offset, &central)
                    central += name
                }
            }
        }
        let centralOffset = UInt32(out.count)
        out += central
        le32(0x0605_4B50, &out); le16(0, &out); le16(0, &out)
        le16(UInt16(entries.count), &out); le16(UInt16(entries.count), &out)
        le32(UInt32(central.count), &out); le32(centralOffset, &out); le16(0, &out)
        return Data(out)
    }
}

/// Issue 7 at the command line: TextBundles, x-document-source, declared types, saved pasteboards.
final class DocumentCLITests: PbctlTestCase {
    /// A red 64×32 and a blue 32×64 PNG.
    static let red = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAEAAAAAgCAIAAAAt/+nTAAAANElEQVR42u3PQQkAAAgAsetfWjP4FAYrsKZeS0BAQEBAQEBAQEBAQEBAQEBAQEBAQEDgagEyw/hqT+fjVwAAAABJRU5ErkJggg==")!
    static let blue = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAACAAAABACAIAAAD07OL5AAAAMUlEQVR42u3NsQkAAAjAsP7/tF7hIASyp5pjAoFAIBAIBAKBQCAQCAQCgUAgEAieBQvJZPhqwcsQOQAAAABJRU5ErkJggg==")!

    func write(_ data: Data, _ name: String) throws -> String {
        let path = scratch + "/" + name
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    func makeTrip() throws -> String {
        _ = try write(Self.red, "doc/img/red.png")
        _ = try write(Self.blue, "doc/pictures/blue.png")
        return try write(Data("# Trip\n\nRed ![red](img/red.png) and blue ![blue](pictures/blue.png \"Blue\").\n".utf8), "doc/trip.md")
    }

    func typesOffered() throws -> [String] {
        let result = try pbctl.run("types", "--json")
        let listing = try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]]
        return listing?.compactMap { $0["type"] as? String } ?? []
    }

    func entries(ofZip path: String) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["unzip", "-Z1", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: out, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    // MARK: TextBundle

    func testMarkdownWithTwoLocalImagesPastesAsTextBundleAndTextPack() throws {
        let trip = try makeTrip()
        let copy = try pbctl.run("copy", trip)
        XCTAssertEqual(copy.status, 0, copy.stderr)
        let offered = try typesOffered()
        XCTAssertTrue(offered.contains("org.textbundle.package"), "\(offered)")
        XCTAssertTrue(offered.contains("org.textbundle.compressed"), "\(offered)")

        let bundle = scratch + "/out/Trip.textbundle"
        try FileManager.default.createDirectory(atPath: scratch + "/out", withIntermediateDirectories: true)
        let paste = try pbctl.run("paste", "--type", "org.textbundle.package", "-o", bundle)
        XCTAssertEqual(paste.status, 0, paste.stderr)
        XCTAssertEqual(
            try FileManager.default.subpathsOfDirectory(atPath: bundle).sorted(),
            ["assets", "assets/blue.png", "assets/red.png", "info.json", "text.md"])
        let info = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: bundle + "/info.json"))) as? [String: Any]
        XCTAssertEqual(info?["version"] as? Int, 2)
        XCTAssertEqual(info?["type"] as? String, "net.daringfireball.markdown")
        XCTAssertEqual(info?["transient"] as? Bool, true)
        XCTAssertEqual(info?["creatorIdentifier"] as? String, "org.pbctl.pbctl")
        XCTAssertEqual(info?["sourceURL"] as? String, "file://" + trip)
        XCTAssertEqual(
            try String(contentsOfFile: bundle + "/text.md", encoding: .utf8),
            "# Trip\n\nRed ![red](assets/red.png) and blue ![blue](assets/blue.png \"Blue\").\n")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: bundle + "/assets/red.png")), Self.red)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: bundle + "/assets/blue.png")), Self.blue)
        // Pasting onto an existing package is refused, not merged.
        XCTAssertEqual(try pbctl.run("paste", "--type", "org.textbundle.package", "-o", bundle).status, 74)

        let pack = scratch + "/out/Trip.textpack"
        XCTAssertEqual(try pbctl.run("paste", "--type", "org.textbundle.compressed", "-o", pack).status, 0)
        let packed = try Data(contentsOf: URL(fileURLWithPath: pack))
        XCTAssertTrue(packed.starts(with: [0x50, 0x4B, 0x03, 0x04]))
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/unzip") {
            XCTAssertEqual(
                try entries(ofZip: pack).sorted(),
                ["trip.textbundle/", "trip.textbundle/assets/", "trip.textbundle/assets/blue.png",
                 "trip.textbundle/assets/red.png", "trip.textbundle/info.json", "trip.textbundle/text.md"])
        }

        // HTML carries the images as data: URLs, RTF embeds both.
        let html = try pbctl.run("paste", "--type", "public.html").text
        XCTAssertTrue(html.contains("src=\"data:image/png;base64,\(Self.red.base64EncodedString())\""), html)
        XCTAssertTrue(html.contains("src=\"data:image/png;base64,\(Self.blue.base64EncodedString())\""), html)
        let rtf = try pbctl.run("paste", "--type", "public.rtf").text
        XCTAssertEqual(rtf.components(separatedBy: "{\\pict\\pngblip").count - 1, 2, rtf)
        XCTAssertTrue(rtf.contains("\\picw64\\pich32") && rtf.contains("\\picw32\\pich64"))
    }

    /// The acceptance check: LibreOffice opens the RTF and lays out both pictures (its PDF export
    /// holds two image objects of the right sizes). Skipped where LibreOffice is not installed.
    func testLibreOfficeShowsBothImagesOfTheRTF() throws {
        let trip = try makeTrip()
        XCTAssertEqual(try pbctl.run("copy", trip).status, 0)
        let rtf = scratch + "/trip.rtf"
        XCTAssertEqual(try pbctl.run("paste", "--type", "public.rtf", "-o", rtf).status, 0)
        try libreOfficeConvert(rtf, to: "pdf", in: scratch)
        let pdf = String(decoding: try Data(contentsOf: URL(fileURLWithPath: scratch + "/trip.pdf")), as: UTF8.self)
        XCTAssertEqual(pdf.components(separatedBy: "/Subtype/Image").count - 1, 2)
        XCTAssertTrue(pdf.contains("/Subtype/Image/Width 64/Height 32"))
        XCTAssertTrue(pdf.contains("/Subtype/Image/Width 32/Height 64"))
    }

    /// LibreOffice → pbctl → LibreOffice keeps letter and roman list levels: an RTF with `a.`, `i.`, `A.`,
    /// `IV.` levels, copied and pasted as RTF by pbctl, shows the same markers in LibreOffice's text export.
    func testLibreOfficeKeepsListStylesThroughPbctl() throws {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("RepresentationsTests/Fixtures/Documents/rtf-list-table-styles.rtf").path
        // Through pbctl's reader and writer: the RTF read into the document and written out again (as a
        // copy of HTML derived from it would be), not the original bytes.
        let rtf = scratch + "/styles.rtf"
        XCTAssertEqual(try pbctl.run("convert", "--from", "rtf", "--to", "rtf", "-o", rtf, source).status, 0)
        try libreOfficeConvert(rtf, to: "txt:Text", in: scratch)
        let text = try String(contentsOfFile: scratch + "/styles.txt", encoding: .utf8)
        for marker in ["1. One", "c. Three", "d. Four", "i. Five", "ii. Six", "A. Seven", "IV. Eight", "3. Nine"] {
            XCTAssertTrue(text.contains(marker), "LibreOffice shows no '\(marker)' in:\n\(text)")
        }
    }

    func testHTMLImagesCanBeFileURLs() throws {
        let trip = try makeTrip()
        pbctl.environment["PBCTL_HTML_IMAGES"] = "file"
        XCTAssertEqual(try pbctl.run("copy", trip).status, 0)
        let html = try pbctl.run("paste", "--type", "public.html").text
        XCTAssertTrue(html.contains("src=\"file://\(scratch)/doc/img/red.png\""), html)
    }

    func testCopyingATextPackAndATextBundleOffersEveryFormAndKeepsApplicationKeys() throws {
        let trip = try makeTrip()
        XCTAssertEqual(try pbctl.run("copy", trip).status, 0)
        let pack = scratch + "/Trip.textpack"
        XCTAssertEqual(try pbctl.run("paste", "--type", "org.textbundle.compressed", "-o", pack).status, 0)
        XCTAssertEqual(try pbctl.run("clear").status, 0)
        let copy = try pbctl.run("copy", pack)
        XCTAssertEqual(copy.status, 0, copy.stderr)
        XCTAssertEqual(
            try typesOffered(),
            ["net.daringfireball.markdown", "public.html", "public.rtf", "public.utf8-plain-text", "org.textbundle.package",
             "org.textbundle.compressed"])
        XCTAssertEqual(try pbctl.run("paste").text, "# Trip\n\nRed ![red](assets/red.png) and blue ![blue](assets/blue.png \"Blue\").\n")
        XCTAssertTrue(try pbctl.run("paste", "--type", "html").text.contains("data:image/png;base64,"))
        XCTAssertEqual(try pbctl.run("paste", "--type", "rtf").text.components(separatedBy: "{\\pict").count - 1, 2)

        // A bundle folder written by another application, with its own keys in info.json.
        let folder = scratch + "/Bear.textbundle"
        _ = try write(
            Data(#"{"version":2,"type":"net.daringfireball.markdown","creatorIdentifier":"net.shinyfrog.bear","net.shinyfrog.bear":{"tags":["trip"],"pinned":true}}"#.utf8),
            "Bear.textbundle/info.json")
        _ = try write(Data("Note ![](assets/red.png)\n".utf8), "Bear.textbundle/text.markdown")
        _ = try write(Self.red, "Bear.textbundle/assets/red.png")
        XCTAssertEqual(try pbctl.run("copy", folder).status, 0)
        XCTAssertEqual(try pbctl.run("paste").text, "Note ![](assets/red.png)\n")
        let back = scratch + "/Back.textbundle"
        XCTAssertEqual(try pbctl.run("paste", "--type", "org.textbundle.package", "-o", back).status, 0)
        let info = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: back + "/info.json"))) as? [String: Any]
        let bear = info?["net.shinyfrog.bear"] as? [String: Any]
        XCTAssertEqual(bear?["tags"] as? [String], ["trip"])
        XCTAssertEqual(bear?["pinned"] as? Bool, true)
        XCTAssertEqual(info?["creatorIdentifier"] as? String, "net.shinyfrog.bear")
        XCTAssertTrue(FileManager.default.fileExists(atPath: back + "/text.markdown"))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: back + "/assets/red.png")), Self.red)
    }

    func testZipSlipArchivesAreRefusedAndNothingIsWrittenOutside() throws {
        let cases: [(String, UInt32, String)] = [
            ("../evil.txt", 0o100644, "'..'"),
            ("T.textbundle/../../evil.txt", 0o100644, "'..'"),
            ("/tmp/evil.txt", 0o100644, "absolute"),
            ("T.textbundle/assets/link", 0o120777, "symbolic link"),
        ]
        for (name, mode, expected) in cases {
            var zip = HandmadeZip()
            zip.entries.append(.init(name: "T.textbundle/info.json", data: Array(#"{"version":2}"#.utf8)))
            zip.entries.append(.init(name: "T.textbundle/text.md", data: Array("x".utf8)))
            zip.entries.append(.init(name: name, data: Array("evil".utf8), unixMode: mode))
            let path = try write(zip.bytes(), "in/slip.textpack")
            let result = try pbctl.run("copy", path)
            XCTAssertEqual(result.status, 65, "\(name): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(expected) && result.stderr.contains("slip.textpack"), result.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: scratch + "/evil.txt"))
            XCTAssertFalse(FileManager.default.fileExists(atPath: "/tmp/evil.txt") && name.hasPrefix("/"))
        }
        XCTAssertEqual(try pbctl.run("paste").status, 1, "nothing was copied")

        // A bundle folder with a symbolic link pointing out of it.
        _ = try write(Data(#"{"version":2}"#.utf8), "Link.textbundle/info.json")
        _ = try write(Data("x".utf8), "Link.textbundle/text.md")
        try FileManager.default.createDirectory(atPath: scratch + "/Link.textbundle/assets", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: scratch + "/Link.textbundle/assets/passwd", withDestinationPath: "/etc/passwd")
        let linked = try pbctl.run("copy", scratch + "/Link.textbundle")
        XCTAssertEqual(linked.status, 65, linked.stderr)
        XCTAssertTrue(linked.stderr.contains("symbolic link"), linked.stderr)
    }

    func testZipBombsAndCorruptArchivesAreRefused() throws {
        // An entry claiming to inflate to 3 GiB from a few bytes (a stored deflate block).
        var bomb = HandmadeZip()
        bomb.entries.append(.init(name: "B.textbundle/info.json", data: Array(#"{"version":2}"#.utf8)))
        bomb.entries.append(
            .init(name: "B.textbundle/text.md", data: [0x01, 0x01, 0x00, 0xFE, 0xFF, 0x78], claimedSize: 3 << 30, method: 8))
        let bombPath = try write(bomb.bytes(), "bomb.textpack")
        let result = try pbctl.run("copy", bombPath)
        XCTAssertEqual(result.status, 65, result.stderr)
        XCTAssertTrue(result.stderr.contains("over the limit"), result.stderr)

        // Too many entries.
        var many = HandmadeZip()
        many.entries.append(.init(name: "M.textbundle/info.json", data: Array(#"{"version":2}"#.utf8)))
        for i in 0..<5000 { many.entries.append(.init(name: "M.textbundle/assets/\(i)", data: [])) }
        let manyResult = try pbctl.run("copy", try write(many.bytes(), "many.textpack"))
        XCTAssertEqual(manyResult.status, 65, manyResult.stderr)
        XCTAssertTrue(manyResult.stderr.contains("entries"), manyResult.stderr)

        let junk = try pbctl.run("copy", try write(Data("this is not a zip file, only text pretending".utf8), "junk.textpack"))
        XCTAssertEqual(junk.status, 65)
        XCTAssertTrue(junk.stderr.contains("junk.textpack: not a ZIP archive"), junk.stderr)

        var good = HandmadeZip()
        good.entries.append(.init(name: "G.textbundle/info.json", data: Array(#"{"version":2}"#.utf8)))
        good.entries.append(.init(name: "G.textbundle/text.md", data: Array("hello".utf8)))
        var damaged = [UInt8](good.bytes())
        damaged[30 + "G.textbundle/info.json".utf8.count + 2] ^= 0x20  // a byte of info.json's data
        let crc = try pbctl.run("copy", try write(Data(damaged), "crc.textpack"))
        XCTAssertEqual(crc.status, 65)
        XCTAssertTrue(crc.stderr.contains("CRC-32"), crc.stderr)
        XCTAssertEqual(try pbctl.run("copy", try write(good.bytes(), "good.textpack")).status, 0)
        XCTAssertEqual(try pbctl.run("paste").text, "hello")
    }

    // MARK: x-document-source

    /// Runs a tool, returning its status and standard output.
    func tool(_ path: String, _ arguments: [String]) throws -> (Int32, Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, out)
    }

    /// The file's `user.x-document-source`, read with getfattr (the attr package), as a user would.
    func attribute(_ path: String) throws -> Data? {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/getfattr"), "getfattr (attr) not installed")
        let (status, out) = try tool("/usr/bin/getfattr", ["-n", "user.x-document-source", "--only-values", path])
        return status == 0 ? out : nil
    }

    func setAttribute(_ path: String, _ value: Data) throws -> Bool {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/setfattr"), "setfattr (attr) not installed")
        let hex = value.map { String(format: "%02x", $0) }.joined()
        return try tool("/usr/bin/setfattr", ["-n", "user.x-document-source", "-v", "0x" + hex, path]).0 == 0
    }

    func testPasteToAFileRecordsTheDocumentSource() throws {
        XCTAssertEqual(try pbctl.run("copy", stdin: "# notes\n").status, 0)
        let out = scratch + "/out.md"
        let paste = try pbctl.run("paste", "-o", out)
        XCTAssertEqual(paste.status, 0, paste.stderr)
        guard let record = try attribute(out) else {
            throw XCTSkip("the scratch file system keeps no user extended attributes")
        }
        XCTAssertTrue(record.starts(with: Array("bplist00".utf8)))
        let plist = try PropertyListSerialization.propertyList(from: record, format: nil) as? [String: String]
        XCTAssertEqual(plist?["identifier"], "org.pbctl.pbctl")
        XCTAssertEqual(plist?["name"], "pbctl")
        XCTAssertEqual(plist?.keys.sorted(), ["identifier", "name", "path"])
    }

    func testCopyKeepsTheDocumentSourceAndInfoShowsIt() throws {
        let file = try write(Data("hello\n".utf8), "from-editor.txt")
        let record = try PropertyListSerialization.data(
            fromPropertyList: ["identifier": "org.example.editor", "name": "Editor", "path": "/usr/bin/editor",
                               "appInfoURL": "https://example.org/editor"], format: .binary, options: 0)
        try XCTSkipUnless(try setAttribute(file, record), "the scratch file system keeps no user extended attributes")
        XCTAssertEqual(try pbctl.run("copy", file).status, 0)
        let info = try pbctl.run("info", "--json")
        let json = try JSONSerialization.jsonObject(with: info.stdout) as? [String: Any]
        let item = (json?["items"] as? [[String: Any]])?.first
        XCTAssertEqual(item?["sourcePath"] as? String, file)
        let extra = item?["extra"] as? [String: String]
        XCTAssertEqual(extra?["x-document-source.identifier"], "org.example.editor")
        XCTAssertEqual(extra?["x-document-source.appInfoURL"], "https://example.org/editor")
        XCTAssertTrue(try pbctl.run("info").text.contains("x-document-source.name: Editor"))
        // Pasting it on records the original source, not pbctl.
        let out = scratch + "/again.txt"
        XCTAssertEqual(try pbctl.run("paste", "-o", out).status, 0)
        let again = try PropertyListSerialization.propertyList(from: try XCTUnwrap(try attribute(out)), format: nil) as? [String: String]
        XCTAssertEqual(again?["identifier"], "org.example.editor")
        XCTAssertEqual(again?["appInfoURL"], "https://example.org/editor")
    }

    func testFileSystemsWithoutAttributesAreSkippedQuietlyUnlessVerbose() throws {
        XCTAssertEqual(try pbctl.run("copy", stdin: "x").status, 0)
        // /dev/null takes the bytes but refuses user attributes, as a file system without them would.
        let quiet = try pbctl.run("paste", "-o", "/dev/null")
        XCTAssertEqual(quiet.status, 0)
        XCTAssertEqual(quiet.stderr, "")
        let verbose = try pbctl.run("paste", "-v", "-o", "/dev/null")
        XCTAssertEqual(verbose.status, 0)
        XCTAssertTrue(verbose.stderr.contains("x-document-source not recorded"), verbose.stderr)
    }

    // MARK: Declared types

    func declareRecipe(extra: String = "") throws {
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>UTExportedTypeDeclarations</key><array>
              <dict>
                <key>UTTypeIdentifier</key><string>com.example.recipe</string>
                <key>UTTypeConformsTo</key><array><string>public.json</string></array>
                <key>UTTypeDescription</key><string>Recipe</string>
                <key>UTTypeTagSpecification</key><dict>
                  <key>public.filename-extension</key><array><string>recipe</string></array>
                  <key>public.mime-type</key><string>application/x-recipe</string>
                </dict>
              </dict>\(extra)
            </array></dict></plist>
            """
        _ = try write(Data(plist.utf8), "config/pbctl/types/recipe.plist")
        pbctl.environment["XDG_CONFIG_HOME"] = scratch + "/config"
        pbctl.environment.removeValue(forKey: "PBCTL_TYPES_PATH")
    }

    func testDeclaredTypeIsRecognisedListedAndConforms() throws {
        try declareRecipe()
        let soup = try write(Data(#"{"soup": "tomato"}"#.utf8), "soup.recipe")
        let copy = try pbctl.run("copy", soup)
        XCTAssertEqual(copy.status, 0, copy.stderr)
        XCTAssertEqual(copy.stderr, "")
        let types = try pbctl.run("types", "--json")
        let listing = try JSONSerialization.jsonObject(with: types.stdout) as? [[String: Any]]
        XCTAssertEqual(listing?.first?["type"] as? String, "com.example.recipe")
        XCTAssertEqual(listing?.first?["mimeType"] as? String, "application/x-recipe")
        // It conforms to public.json, so to text: a plain paste gives it back.
        XCTAssertEqual(try pbctl.run("paste").text, #"{"soup": "tomato"}"#)
        XCTAssertEqual(try pbctl.run("paste", "--type", "application/x-recipe").text, #"{"soup": "tomato"}"#)

        let registry = try pbctl.run("types", "--registry", "--json")
        XCTAssertEqual(registry.status, 0)
        let rows = try JSONSerialization.jsonObject(with: registry.stdout) as? [[String: Any]]
        let recipe = rows?.first { $0["identifier"] as? String == "com.example.recipe" }
        XCTAssertEqual(recipe?["conformsTo"] as? [String], ["public.json"])
        XCTAssertEqual(recipe?["extensions"] as? [String], ["recipe"])
        XCTAssertEqual(recipe?["mimeTypes"] as? [String], ["application/x-recipe"])
        XCTAssertEqual(recipe?["x11Targets"] as? [String], ["application/x-recipe"])
        XCTAssertEqual(recipe?["declaredIn"] as? String, scratch + "/config/pbctl/types/recipe.plist")
        XCTAssertEqual(rows?.first { $0["identifier"] as? String == "public.html" }?["declaredIn"] as? String, "built-in")
        let text = try pbctl.run("types", "--registry").text
        XCTAssertTrue(text.contains("com.example.recipe"), text)
        XCTAssertTrue(text.contains("application/x-recipe"), text)
    }

    /// PBCTL_TYPES_PATH lists folders separated by colons; empty and relative entries are skipped.
    func testTypesPathListsFoldersSeparatedByColons() throws {
        try declareRecipe()
        let moved = scratch + "/second/types"
        try FileManager.default.createDirectory(atPath: moved, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: scratch + "/config/pbctl/types/recipe.plist", toPath: moved + "/recipe.plist")
        pbctl.environment["PBCTL_TYPES_PATH"] = "relative/types::" + scratch + "/nothing-here:" + moved + ":"
        let registry = try pbctl.run("types", "--registry", "--json")
        XCTAssertEqual(registry.status, 0, registry.stderr)
        let rows = try JSONSerialization.jsonObject(with: registry.stdout) as? [[String: Any]]
        XCTAssertEqual(rows?.first { $0["identifier"] as? String == "com.example.recipe" }?["declaredIn"] as? String, moved + "/recipe.plist")
        // A copy of the declared type is recognised and pastes as its text (it conforms to public.json).
        XCTAssertEqual(try pbctl.run("copy", try write(Data(#"{"a": 1}"#.utf8), "b.recipe")).status, 0)
        XCTAssertEqual(try pbctl.run("paste").text, #"{"a": 1}"#)
        pbctl.environment["PBCTL_TYPES_PATH"] = scratch + "/nothing-here"
        let without = try JSONSerialization.jsonObject(with: try pbctl.run("types", "--registry", "--json").stdout) as? [[String: Any]]
        XCTAssertNotNil(without)
        XCTAssertNil(without?.first { $0["identifier"] as? String == "com.example.recipe" })
    }

    func testBadDeclarationsAreReportedWithFileAndKeyAndNeverStopPbctl() throws {
        try declareRecipe(extra: "<dict><key>UTTypeIdentifier</key><string>com.example.bad</string><key>UTTypeConformsTo</key><integer>1</integer></dict>")
        _ = try write(Data("not a plist".utf8), "config/pbctl/types/broken.plist")
        let copy = try pbctl.run("copy", try write(Data("{}".utf8), "a.recipe"))
        XCTAssertEqual(copy.status, 0)
        XCTAssertTrue(
            copy.stderr.contains(scratch + "/config/pbctl/types/recipe.plist: UTExportedTypeDeclarations[1].UTTypeConformsTo:"),
            copy.stderr)
        XCTAssertTrue(copy.stderr.contains(scratch + "/config/pbctl/types/broken.plist: not a property list"), copy.stderr)
        XCTAssertEqual(try typesOffered(), ["com.example.recipe"], "the good declaration is still used")
    }

    // MARK: save / load

    func testSaveAndLoadPutBackEveryType() throws {
        let trip = try makeTrip()
        XCTAssertEqual(try pbctl.run("copy", trip).status, 0)
        let before = try typesOffered()
        let html = try pbctl.run("paste", "--type", "html").stdout
        let saved = scratch + "/trip.pasteboard"
        let save = try pbctl.run("save", saved)
        XCTAssertEqual(save.status, 0, save.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: saved + "/Info.plist"))
        XCTAssertEqual(try pbctl.run("clear").status, 0)
        XCTAssertEqual(try pbctl.run("paste").status, 1)
        let load = try pbctl.run("load", saved)
        XCTAssertEqual(load.status, 0, load.stderr)
        XCTAssertEqual(try typesOffered(), before)
        XCTAssertEqual(try pbctl.run("paste", "--type", "html").stdout, html)
        let info = try JSONSerialization.jsonObject(with: try pbctl.run("info", "--json").stdout) as? [String: Any]
        XCTAssertEqual((info?["items"] as? [[String: Any]])?.first?["sourcePath"] as? String, trip)
        XCTAssertEqual(try pbctl.run("save", saved).status, 74, "an existing package is not overwritten")
        XCTAssertEqual(try pbctl.run("save", "--force", saved).status, 0)
        let bad = try pbctl.run("load", scratch + "/nothing.pasteboard")
        XCTAssertEqual(bad.status, 65)
    }

    func testSensitiveItemsAreNotSavedWithoutIncludeSensitive() throws {
        let copy = try pbctl.run("copy", "--sensitive", stdin: "hunter2")
        try XCTSkipIf(copy.status != 0, "this backend does not hold sensitive items: \(copy.stderr)")
        let saved = scratch + "/secret.pasteboard"
        let refused = try pbctl.run("save", saved)
        XCTAssertEqual(refused.status, 74)
        XCTAssertTrue(refused.stderr.contains("--include-sensitive"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: saved))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch).filter { $0.hasPrefix("secret") }, [])
        XCTAssertEqual(try pbctl.run("save", "--include-sensitive", saved).status, 0)
        let mode = try FileManager.default.attributesOfItem(atPath: saved)[.posixPermissions] as? NSNumber
        XCTAssertEqual(mode?.intValue, 0o700)
    }
}
