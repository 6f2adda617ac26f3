import Foundation
import Pasteboard
import XCTest

@testable import PasteboardStore

final class ExtendedAttributeTests: XCTestCase {
    var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "pbctl-xattr-tests-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func file(_ name: String = "f.txt") throws -> String {
        let path = directory + "/" + name
        try Data("x".utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Skips where the temporary folder's file system has no user attributes.
    func requireAttributes(_ path: String) throws {
        do {
            try ExtendedAttributes.set("user.pbctl-probe", Data([1]), path: path)
            try ExtendedAttributes.remove("user.pbctl-probe", path: path)
        } catch let failure as ExtendedAttributes.Failure where failure.code == .unsupported {
            throw XCTSkip("no user extended attributes on \(directory)")
        }
    }

    func testSetGetListRemove() throws {
        let path = try file()
        try requireAttributes(path)
        XCTAssertNil(try ExtendedAttributes.get("user.absent", path: path))
        let value = Data((0..<300).map { UInt8(truncatingIfNeeded: $0) })
        try ExtendedAttributes.set("user.test", value, path: path)
        XCTAssertEqual(try ExtendedAttributes.get("user.test", path: path), value)
        XCTAssertTrue(try ExtendedAttributes.names(path: path).contains("user.test"))
        try ExtendedAttributes.set("user.test", Data(), path: path)
        XCTAssertEqual(try ExtendedAttributes.get("user.test", path: path), Data())
        try ExtendedAttributes.remove("user.test", path: path)
        XCTAssertNil(try ExtendedAttributes.get("user.test", path: path))
        try ExtendedAttributes.remove("user.test", path: path)  // absent: not an error
    }

    func testOversizedValuesAreNotRead() throws {
        let path = try file()
        try requireAttributes(path)
        try ExtendedAttributes.set("user.big", Data(count: 2000), path: path)
        XCTAssertThrowsError(try ExtendedAttributes.get("user.big", path: path, maximumSize: 1000)) { error in
            XCTAssertEqual((error as? ExtendedAttributes.Failure)?.code, .tooLarge)
        }
    }

    func testFileSystemsWithoutAttributesReportUnsupported() throws {
        // procfs has no user attributes.
        XCTAssertThrowsError(try ExtendedAttributes.set("user.x", Data([1]), path: "/proc/self/comm")) { error in
            XCTAssertEqual((error as? ExtendedAttributes.Failure)?.code, .unsupported, "\(error)")
        }
        XCTAssertThrowsError(try ExtendedAttributes.get("user.x", path: directory + "/missing")) { error in
            let failure = error as? ExtendedAttributes.Failure
            XCTAssertEqual(failure?.code, .io)
            XCTAssertTrue(failure?.message.contains("missing") ?? false)
        }
    }

    func testDocumentSourceIsABinaryPropertyListWithTheConventionsKeys() throws {
        let source = DocumentSource(
            identifier: "org.example.editor", name: "Editor", path: "/home/u/notes.md", appInfoURL: "https://example.org/editor")
        let bytes = try source.encoded()
        XCTAssertTrue(bytes.starts(with: Array("bplist00".utf8)))
        let plist = try PropertyListSerialization.propertyList(from: bytes, format: nil) as? [String: String]
        XCTAssertEqual(
            plist,
            ["identifier": "org.example.editor", "name": "Editor", "path": "/home/u/notes.md", "appInfoURL": "https://example.org/editor"])
        XCTAssertEqual(DocumentSource(propertyList: bytes), source)
        // Without appInfoURL the key is absent, not empty.
        let bare = try DocumentSource(identifier: "a.b", name: "B", path: "/p").encoded()
        XCTAssertNil((try PropertyListSerialization.propertyList(from: bare, format: nil) as? [String: String])?["appInfoURL"])

        let path = try file()
        try requireAttributes(path)
        try source.write(path: path)
        XCTAssertEqual(try DocumentSource.read(path: path), source)
        var metadata = ItemMetadata()
        metadata.extra = source.metadataEntries
        XCTAssertEqual(DocumentSource(metadata: metadata), source)
    }

    func testDamagedRecordsAreIgnored() throws {
        XCTAssertNil(DocumentSource(propertyList: Data("garbage".utf8)))
        let missingPath = try PropertyListSerialization.data(
            fromPropertyList: ["identifier": "a", "name": "b"], format: .binary, options: 0)
        XCTAssertNil(DocumentSource(propertyList: missingPath))
        let wrongType = try PropertyListSerialization.data(
            fromPropertyList: ["identifier": "a", "name": "b", "path": 3], format: .binary, options: 0)
        XCTAssertNil(DocumentSource(propertyList: wrongType))
        XCTAssertNil(DocumentSource(propertyList: Data(count: DocumentSource.maximumSize + 1)))
        // A binary property list whose top object is an array holding itself.
        var cyclic = Array("bplist00".utf8) + [0xA1, 0x00] + [0x08]
        cyclic += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 0, 0, 0, 0, 10]
        XCTAssertNil(DocumentSource(propertyList: Data(cyclic)))
    }
}
