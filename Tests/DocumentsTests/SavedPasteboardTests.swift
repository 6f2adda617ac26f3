import Foundation
import Pasteboard
import XCTest

@testable import Documents

final class SavedPasteboardTests: XCTestCase {
    var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "pbctl-saved-tests-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func sampleItem(flags: ItemFlags = []) -> Item {
        let metadata = ItemMetadata(
            sourceApplication: "org.example.editor", sourcePath: "/home/u/a.md", created: Date(timeIntervalSince1970: 1_700_000_000),
            flags: flags, extra: ["x-document-source.identifier": "org.example.editor"])
        return Item(
            representations: [
                Representation(type: .markdown, data: Data("# A\n".utf8)),
                Representation(type: .html, derivedFrom: .markdown) { Data("<h1>A</h1>\n".utf8) },
                Representation(type: "dyn.mime.application-2Fx-thing", data: Data([0, 255, 1])),
                Representation(type: .png, data: Data()),
            ],
            metadata: metadata)
    }

    func testSaveAndLoadKeepEveryRepresentationAndTheMetadata() throws {
        let path = directory + "/A.pasteboard"
        try SavedPasteboard.save(sampleItem(), to: path, fileExtension: { $0 == .markdown ? "md" : $0 == .html ? "html" : nil })
        let names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        XCTAssertEqual(names, ["0.md", "1.html", "2.data", "3.data", "Info.plist"])
        let info = try PropertyListSerialization.propertyList(
            from: try Data(contentsOf: URL(fileURLWithPath: path + "/Info.plist")), format: nil) as? [String: Any]
        XCTAssertEqual(info?["format"] as? Int, 1)
        let loaded = try SavedPasteboard.load(from: path)
        XCTAssertEqual(loaded.types, [.markdown, .html, "dyn.mime.application-2Fx-thing", .png])
        XCTAssertEqual(try loaded.representation(for: .html)?.data(), Data("<h1>A</h1>\n".utf8))
        XCTAssertEqual(loaded.representation(for: .html)?.derivedFrom, .markdown)
        XCTAssertEqual(try loaded.representation(for: "dyn.mime.application-2Fx-thing")?.data(), Data([0, 255, 1]))
        XCTAssertEqual(try loaded.representation(for: .png)?.data(), Data())
        XCTAssertEqual(loaded.metadata, sampleItem().metadata)
    }

    func testSensitiveItemsAreRefusedUnlessIncludedAndThenPrivate() throws {
        let path = directory + "/S.pasteboard"
        XCTAssertThrowsError(try SavedPasteboard.save(sampleItem(flags: .sensitive), to: path)) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .refused)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), [], "nothing left behind")
        try SavedPasteboard.save(sampleItem(flags: .sensitive), to: path, includeSensitive: true)
        let attributes = try FileManager.default.attributesOfItem(atPath: path + "/0.data")
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertTrue(try SavedPasteboard.load(from: path).metadata.flags.contains(.sensitive))
    }

    func testExistingDestinationsAreKeptUnlessReplacingASavedPasteboard() throws {
        let path = directory + "/A.pasteboard"
        try SavedPasteboard.save(sampleItem(), to: path)
        XCTAssertThrowsError(try SavedPasteboard.save(sampleItem(), to: path))
        let other = Item(representations: [Representation(type: .utf8PlainText, data: Data("new".utf8))])
        try SavedPasteboard.save(other, to: path, replace: true)
        XCTAssertEqual(try SavedPasteboard.load(from: path).types, [.utf8PlainText])
        let folder = directory + "/photos"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        XCTAssertThrowsError(try SavedPasteboard.save(other, to: folder, replace: true)) { error in
            XCTAssertTrue("\(error)".contains("not a saved pasteboard"))
        }
        // A package of another kind that happens to have an Info.plist is not replaced either.
        try FileManager.default.createDirectory(atPath: folder + "/Contents", withIntermediateDirectories: true)
        try Data("<plist version=\"1.0\"><dict/></plist>".utf8).write(to: URL(fileURLWithPath: folder + "/Info.plist"))
        XCTAssertThrowsError(try SavedPasteboard.save(other, to: folder, replace: true))
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/Contents"))
    }

    func testHostilePackagesAreRefused() throws {
        let path = directory + "/H.pasteboard"
        try SavedPasteboard.save(sampleItem(), to: path)
        let infoPath = path + "/Info.plist"
        let original = try String(contentsOfFile: infoPath, encoding: .utf8)

        // A file name that climbs out of the package.
        try original.replacingOccurrences(of: "<string>0.data</string>", with: "<string>../../etc/passwd</string>")
            .write(toFile: infoPath, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try SavedPasteboard.load(from: path)) { XCTAssertTrue("\($0)".contains("bad file name"), "\($0)") }

        // A representation file replaced by a symbolic link.
        try original.write(toFile: infoPath, atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: path + "/0.data")
        try FileManager.default.createSymbolicLink(atPath: path + "/0.data", withDestinationPath: "/etc/hostname")
        XCTAssertThrowsError(try SavedPasteboard.load(from: path)) { XCTAssertEqual(($0 as? PasteboardError)?.code, .refused) }

        // A size that does not match.
        try FileManager.default.removeItem(atPath: path + "/0.data")
        try Data("#".utf8).write(to: URL(fileURLWithPath: path + "/0.data"))
        XCTAssertThrowsError(try SavedPasteboard.load(from: path)) { XCTAssertEqual(($0 as? PasteboardError)?.code, .corrupt) }

        // Not a property list; not a package at all.
        try Data("junk".utf8).write(to: URL(fileURLWithPath: infoPath))
        XCTAssertThrowsError(try SavedPasteboard.load(from: path)) { XCTAssertEqual(($0 as? PasteboardError)?.code, .invalidData) }
        XCTAssertThrowsError(try SavedPasteboard.load(from: directory + "/none.pasteboard")) {
            XCTAssertEqual(($0 as? PasteboardError)?.code, .invalidData)
        }
        try Data().write(to: URL(fileURLWithPath: directory + "/file.pasteboard"))
        XCTAssertThrowsError(try SavedPasteboard.load(from: directory + "/file.pasteboard")) {
            XCTAssertTrue("\($0)".contains("not a saved pasteboard"), "\($0)")
        }
    }
}
