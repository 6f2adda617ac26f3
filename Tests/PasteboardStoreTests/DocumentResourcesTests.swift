import Foundation
import PasteboardStore
import XCTest

/// The one resolver for files a document names: only images inside the document's own folder.
final class DocumentResourcesTests: XCTestCase {
    var root = ""
    let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "pbctl-resources-\(UUID().uuidString)"
        for folder in ["doc/img/deeper", "outside"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        try png.write(to: URL(fileURLWithPath: root + "/doc/img/logo.png"))
        try png.write(to: URL(fileURLWithPath: root + "/doc/img/deeper/a b.png"))
        try png.write(to: URL(fileURLWithPath: root + "/outside/real.png"))
        try Data("PRIVATE KEY".utf8).write(to: URL(fileURLWithPath: root + "/outside/secret.txt"))
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: root + "/doc/fake.png"))
        try Data("<?xml version=\"1.0\"?>\n<!-- c -->\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8)
            .write(to: URL(fileURLWithPath: root + "/doc/img/v.svg"))
        XCTAssertEqual(symlink(root + "/outside/real.png", root + "/doc/img/link.png"), 0)
        XCTAssertEqual(symlink("../outside", root + "/doc/out"), 0)
        XCTAssertEqual(symlink("logo.png", root + "/doc/img/inside-link.png"), 0)
        XCTAssertEqual(mkfifo(root + "/doc/fifo.png", 0o600), 0)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: root) }

    func reason(_ result: Result<Data, DocumentResources.Refusal>) -> String? {
        if case .failure(let refusal) = result { return refusal.reason }
        return nil
    }

    func testImagesInsideTheFolderAreTaken() throws {
        var resources = DocumentResources(base: root + "/doc")
        XCTAssertEqual(try resources.load("img/logo.png").get(), png)
        XCTAssertEqual(try resources.load("./img/deeper/a b.png").get(), png)
        XCTAssertEqual(try resources.load("img//deeper/./a b.png").get(), png)
        XCTAssertNoThrow(try resources.load("img/v.svg").get())
        XCTAssertEqual(resources.used, 3 * png.count + 74, "the SVG is 74 bytes")
    }

    func testNothingOutsideTheFolderNorAnythingButAnImage() {
        var resources = DocumentResources(base: root + "/doc")
        let cases: [(String, String)] = [
            (root + "/outside/real.png", "absolute"), ("/proc/self/environ", "absolute"), ("/dev/zero", "absolute"),
            ("~/.ssh/id_ed25519", "absolute"), ("../outside/secret.txt", ".."), ("img/../../outside/real.png", ".."),
            ("img/link.png", "symbolic link"), ("img/inside-link.png", "symbolic link"), ("out/real.png", "symbolic link"),
            ("fake.png", "not an image"), ("fifo.png", "not a regular file"), ("img", "not a regular file"),
            ("missing.png", "no such file"), ("", "empty"), ("img\\logo.png", "backslash"),
        ]
        for (path, expected) in cases {
            let why = reason(resources.load(path))
            XCTAssertNotNil(why, path)
            XCTAssertTrue(why?.contains(expected) ?? false, "\(path): \(why ?? "taken")")
        }
        XCTAssertEqual(resources.used, 0)
    }

    func testSizeLimitsPerImageAndPerDocument() throws {
        var small = DocumentResources(base: root + "/doc", limits: .init(perResource: png.count - 1, perDocument: 1 << 20))
        XCTAssertTrue(reason(small.load("img/logo.png"))?.contains("bytes") ?? false)
        var budget = DocumentResources(base: root + "/doc", limits: .init(perResource: 1 << 20, perDocument: png.count + 10))
        XCTAssertNoThrow(try budget.load("img/logo.png").get())
        XCTAssertTrue(reason(budget.load("img/deeper/a b.png"))?.contains("together") ?? false)
    }

    func testImageSignatures() {
        XCTAssertEqual(DocumentResources.imageType(png), "image/png")
        XCTAssertEqual(DocumentResources.imageType(Data([0xFF, 0xD8, 0xFF, 0xE0])), "image/jpeg")
        XCTAssertEqual(DocumentResources.imageType(Data("GIF89a..".utf8)), "image/gif")
        XCTAssertEqual(DocumentResources.imageType(Data("RIFF\0\0\0\0WEBPVP8 ".utf8)), "image/webp")
        XCTAssertEqual(DocumentResources.imageType(Data([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0])), "image/tiff")
        XCTAssertEqual(DocumentResources.imageType(Data("<svg xmlns='x'/>".utf8)), "image/svg+xml")
        XCTAssertNil(DocumentResources.imageType(Data("<html><svg/></html>".utf8)))
        XCTAssertNil(DocumentResources.imageType(Data("-----BEGIN OPENSSH PRIVATE KEY-----".utf8)))
        XCTAssertNil(DocumentResources.imageType(Data()))
    }
}
