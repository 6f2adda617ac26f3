import CopyPaste
import Foundation
import Pasteboard
import XCTest

/// The copy policy as a library call, with no backend: what `pbctl copy`, pbcopy and the personalities
/// make of their sources.
final class CopyAssemblyTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "/copy-assembly-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    private func assembly(stdin: Data = Data()) -> CopyAssembly {
        CopyAssembly(registry: .standard) { limit in
            guard stdin.count <= limit else { throw PasteboardError(.invalidData, "over the limit") }
            return stdin
        }
    }

    private func file(_ name: String, _ bytes: Data) throws -> String {
        let path = folder + "/" + name
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    func testValidUTF8TextIsUTF8TextWhicheverWayItCame() throws {
        let fromFile = try assembly().item(try file("notes.txt", Data("café\n".utf8)), metadata: ItemMetadata(), spooler: nil, pasteboard: .general)
        let fromInput = try assembly(stdin: Data("café\n".utf8)).item("-", metadata: ItemMetadata(), spooler: nil, pasteboard: .general)
        XCTAssertEqual(fromFile.representations.first?.type, .utf8PlainText)
        XCTAssertEqual(fromInput.representations.first?.type, .utf8PlainText)
    }

    func testAnImageIsKnownByItsContentWhateverItsNameSays() throws {
        // A 1×1 PNG named .txt.
        let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!
        let item = try assembly().item(try file("picture.txt", png), metadata: ItemMetadata(), spooler: nil, pasteboard: .general)
        XCTAssertEqual(item.representations.first?.type, .png)
    }

    func testTextDeclaredUTF8ThatIsNotIsRefusedNamingTheByte() throws {
        var copy = assembly(stdin: Data([0x61, 0x62, 0xE9, 0x0A]))
        copy.declared = .utf8PlainText
        XCTAssertThrowsError(try copy.item("-", metadata: ItemMetadata(), spooler: nil, pasteboard: .general)) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .invalidData)
            XCTAssertTrue("\(error)".contains("byte 2"), "\(error)")
        }
    }

    func testPbcopyKeepsHTMLAsPlainText() throws {
        var copy = assembly(stdin: Data("<p>hello</p>\n".utf8))
        XCTAssertEqual(try copy.item("-", metadata: ItemMetadata(), spooler: nil, pasteboard: .general).representations.first?.type, .html)
        copy.macCompat = true
        XCTAssertEqual(try copy.item("-", metadata: ItemMetadata(), spooler: nil, pasteboard: .general).representations.first?.type, .utf8PlainText)
    }

    func testAMissingFileListsEveryMissingPathAndCopiesNothing() throws {
        let present = try file("a", Data("a".utf8))
        XCTAssertThrowsError(try CopyAssembly.fileListItem([present, folder + "/nope1", folder + "/nope2"], cut: false, metadata: ItemMetadata())) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .noInput)
            XCTAssertTrue("\(error)".contains("nope1") && "\(error)".contains("nope2"), "\(error)")
        }
        let item = try CopyAssembly.fileListItem([present], cut: true, metadata: ItemMetadata())
        XCTAssertEqual(Set(item.representations.map(\.type)), [.fileURL, .gnomeCopiedFiles, .kdeCutSelection, .utf8PlainText])
    }
}
