import Foundation
import Pasteboard
import XCTest

@testable import PasteboardStore

final class FileStoreTests: XCTestCase {
    var root = ""

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "pbctl-store-tests-\(getpid())-\(UUID().uuidString)"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    func text(_ string: String, _ type: TypeIdentifier = .utf8PlainText) -> Item {
        Item(representations: [Representation(type: type, data: Data(string.utf8))])
    }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    func testRoundTripAndPermissions() throws {
        let store = try FileStore(root: root)
        XCTAssertEqual(try store.write([text("héllo")], to: .general), 1)
        XCTAssertEqual(try store.read(.utf8PlainText, item: 0, from: .general), Data("héllo".utf8))
        XCTAssertEqual(try mode(root), 0o700)
        XCTAssertEqual(try mode(root + "/general.pasteboard"), 0o700)
        for file in try FileManager.default.contentsOfDirectory(atPath: root + "/general.pasteboard") {
            XCTAssertEqual(try mode(root + "/general.pasteboard/" + file), 0o600, file)
        }
    }

    func testExistingPermissiveRootIsTightenedByTheFirstWrite() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        chmod(root, 0o755)
        let store = try FileStore(root: root)
        XCTAssertEqual(try store.items(in: .general), [])
        XCTAssertEqual(try mode(root), 0o755, "a read changes nothing on disk")
        try store.write([text("x")], to: .general)
        XCTAssertEqual(try mode(root), 0o700)
    }

    func testReadsCreateNothing() throws {
        let store = try FileStore(root: root)
        XCTAssertEqual(try store.items(in: .general), [])
        XCTAssertEqual(try store.changeCount(of: .general), 0)
        XCTAssertThrowsError(try store.read(.utf8PlainText, item: 0, from: .general)) {
            XCTAssertEqual(($0 as? PasteboardError)?.code, .empty)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: root))
        try store.write([text("x")], to: .general)
        XCTAssertEqual(try store.items(in: .find), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/find.pasteboard"))
    }

    func testFIFOOrDeviceInPlaceOfAFileIsRefusedWithoutBlocking() throws {
        let store = try FileStore(root: root)
        try store.write([text("hello")], to: .general)
        let file = root + "/general.pasteboard/c1-0-0.data"
        try FileManager.default.removeItem(atPath: file)
        XCTAssertEqual(mkfifo(file, 0o600), 0)
        XCTAssertThrowsError(try store.read(.utf8PlainText, item: 0, from: .general)) {
            XCTAssertEqual(($0 as? PasteboardError)?.code, .corrupt)
            XCTAssertTrue(($0 as? PasteboardError)?.message.contains("FIFO") ?? false, "\($0)")
        }
        let info = root + "/general.pasteboard/Info.json"
        try FileManager.default.removeItem(atPath: info)
        XCTAssertEqual(mkfifo(info, 0o600), 0)
        XCTAssertThrowsError(try store.items(in: .general)) {
            XCTAssertEqual(($0 as? PasteboardError)?.code, .corrupt)
        }
        // A write recovers: the planted FIFO is replaced by the rename of new metadata.
        XCTAssertEqual(try store.write([text("again")], to: .general), 2)
        XCTAssertEqual(try store.read(.utf8PlainText, item: 0, from: .general), Data("again".utf8))
    }

    func testNumbersFromDiskAreRangeChecked() throws {
        let store = try FileStore(root: root)
        try store.write([text("hello")], to: .general)
        let package = root + "/general.pasteboard/"
        let info = package + "Info.json"
        let original = try String(contentsOfFile: info, encoding: .utf8)
        for (from, to) in [("\"changeCount\":1", "\"changeCount\":9223372036854775807"),
                           ("\"changeCount\":1", "\"changeCount\" : -5"),
                           ("\"size\":5", "\"size\":9223372036854775807"),
                           ("\"size\":5", "\"size\": -1"),
                           ("\"size\":5", "\"size\":5.5"),
                           ("\"size\":5", "\"size\":1e400")] {
            XCTAssertTrue(original.contains(from), original)
            try original.replacingOccurrences(of: from, with: to).write(toFile: info, atomically: false, encoding: .utf8)
            XCTAssertThrowsError(try store.read(.utf8PlainText, item: 0, from: .general), to) {
                XCTAssertEqual(($0 as? PasteboardError)?.code, .corrupt)
            }
            XCTAssertNoThrow(try store.clear(.general))
            XCTAssertNoThrow(try store.write([text("hello")], to: .general))
            try original.write(toFile: info, atomically: false, encoding: .utf8)
            try Data("hello".utf8).write(to: URL(fileURLWithPath: package + "c1-0-0.data"))
        }
        // A stray file named with a huge change count does not make the count overflow.
        try Data().write(to: URL(fileURLWithPath: package + "c9223372036854775807-0-0.data"))
        XCTAssertNoThrow(try store.write([text("x")], to: .general))
        XCTAssertNoThrow(try store.clear(.general))
    }

    func testSymlinkAtStorePathIsRefused() throws {
        let target = root + "-target"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: target) }
        XCTAssertEqual(symlink(target, root), 0)
        XCTAssertThrowsError(try FileStore(root: root)) {
            XCTAssertEqual(($0 as? PasteboardError)?.code, .refused)
        }
    }

    func testSymlinkPlantedAsPackageIsRefused() throws {
        let store = try FileStore(root: root)
        try store.write([text("x")], to: .find)
        let elsewhere = root + "-elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        XCTAssertEqual(symlink(elsewhere, root + "/general.pasteboard"), 0)
        XCTAssertThrowsError(try store.write([text("secret")], to: .general)) {
            XCTAssertEqual(($0 as? PasteboardError)?.code, .refused)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere), [])
    }

    func testSymlinkPlantedAsMetadataIsNotFollowed() throws {
        let store = try FileStore(root: root)
        try store.write([text("a")], to: .general)
        let info = root + "/general.pasteboard/Info.json"
        try FileManager.default.removeItem(atPath: info)
        XCTAssertEqual(symlink("/etc/passwd", info), 0)
        XCTAssertThrowsError(try store.items(in: .general)) {
            XCTAssertEqual(($0 as? PasteboardError)?.code, .refused)
        }
    }

    /// A store written by an earlier pbctl (`JSONEncoder`, pretty-printed, `/` escaped) still reads.
    func testMetadataInTheEarlierLayoutStillReads() throws {
        let package = root + "/general.pasteboard"
        try FileManager.default.createDirectory(atPath: package, withIntermediateDirectories: true)
        chmod(root, 0o700)
        chmod(package, 0o700)
        let earlier = """
            {
              "changeCount" : 4,
              "format" : 1,
              "items" : [
                {
                  "metadata" : {
                    "created" : "2026-11-26T09:56:10Z",
                    "extra" : {

                    },
                    "flags" : 2,
                    "sourceApplication" : "pbctl",
                    "sourcePath" : "\\/tmp\\/so\\/f"
                  },
                  "representations" : [
                    {
                      "file" : "c4-0-0.data",
                      "size" : 12,
                      "type" : "public.utf8-plain-text"
                    }
                  ]
                }
              ]
            }
            """
        try Data(earlier.utf8).write(to: URL(fileURLWithPath: package + "/Info.json"))
        try Data("hello world\n".utf8).write(to: URL(fileURLWithPath: package + "/c4-0-0.data"))
        let items = try FileStore(root: root).items(in: .general)
        XCTAssertEqual(items.first?.metadata.sourcePath, "/tmp/so/f")
        XCTAssertEqual(items.first?.metadata.flags, .transient)
        XCTAssertEqual(items.first?.metadata.created, Date(timeIntervalSince1970: 1_795_686_970))
        XCTAssertEqual(try FileStore(root: root).read(.utf8PlainText, item: 0, from: .general), Data("hello world\n".utf8))
        XCTAssertEqual(try FileStore(root: root).changeCount(of: .general), 4)
    }

    func testTruncatedMetadataIsACorruptErrorNamingTheFile() throws {
        let store = try FileStore(root: root)
        try store.write([text("hello")], to: .general)
        let info = root + "/general.pasteboard/Info.json"
        let data = try Data(contentsOf: URL(fileURLWithPath: info))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: info))
        XCTAssertThrowsError(try store.read(.utf8PlainText, item: 0, from: .general)) {
            let error = $0 as? PasteboardError
            XCTAssertEqual(error?.code, .corrupt)
            XCTAssertTrue(error?.message.contains(info) ?? false, error?.message ?? "")
        }
        // A damaged pasteboard can be overwritten, and the change count does not go back.
        XCTAssertEqual(try store.write([text("again")], to: .general), 2)
        XCTAssertEqual(try store.read(.utf8PlainText, item: 0, from: .general), Data("again".utf8))
    }

    func testMissingOrResizedDataFileIsReported() throws {
        let store = try FileStore(root: root)
        try store.write([text("hello")], to: .general)
        let file = root + "/general.pasteboard/c1-0-0.data"
        try Data("hell".utf8).write(to: URL(fileURLWithPath: file))
        XCTAssertThrowsError(try store.read(.utf8PlainText, item: 0, from: .general)) {
            XCTAssertEqual(($0 as? PasteboardError)?.code, .corrupt)
            XCTAssertTrue(($0 as? PasteboardError)?.message.contains(file) ?? false)
        }
        try FileManager.default.removeItem(atPath: file)
        XCTAssertThrowsError(try store.read(.utf8PlainText, item: 0, from: .general)) {
            XCTAssertEqual(($0 as? PasteboardError)?.code, .corrupt)
        }
    }

    func testHandEditedMetadataCannotEscapeThePackage() throws {
        let store = try FileStore(root: root)
        try store.write([text("hello")], to: .general)
        let info = root + "/general.pasteboard/Info.json"
        let edited = try String(contentsOfFile: info, encoding: .utf8).replacingOccurrences(
            of: "c1-0-0.data", with: "../../../../etc/passwd")
        try edited.write(toFile: info, atomically: false, encoding: .utf8)
        XCTAssertThrowsError(try store.read(.utf8PlainText, item: 0, from: .general)) {
            XCTAssertEqual(($0 as? PasteboardError)?.code, .corrupt)
        }
    }

    func testACrashedWriteLeavesThePreviousItemAndIsCleanedUp() throws {
        let store = try FileStore(root: root)
        try store.write([text("first")], to: .general)
        // What a writer killed before its rename leaves behind: new data and a temporary metadata file.
        let package = root + "/general.pasteboard/"
        try Data("partial".utf8).write(to: URL(fileURLWithPath: package + "c2-0-0.data"))
        try Data("{\"trunc".utf8).write(to: URL(fileURLWithPath: package + "Info.json.new-99999"))
        XCTAssertEqual(try store.read(.utf8PlainText, item: 0, from: .general), Data("first".utf8))
        XCTAssertEqual(try store.changeCount(of: .general), 1)
        XCTAssertEqual(try store.write([text("second")], to: .general), 3, "never reuses a count seen on disk")
        let files = try FileManager.default.contentsOfDirectory(atPath: package).sorted()
        XCTAssertEqual(files, ["Info.json", "c3-0-0.data", "lock"])
    }

    func testChangeCountRisesOnWriteAndClearAndPasteboardsAreIndependent() throws {
        let store = try FileStore(root: root)
        XCTAssertEqual(try store.changeCount(of: .general), 0)
        try store.write([text("a")], to: .general)
        try store.write([text("b")], to: PasteboardName("notes")!)
        try store.clear(.general)
        XCTAssertEqual(try store.changeCount(of: .general), 2)
        XCTAssertEqual(try store.items(in: .general), [])
        XCTAssertEqual(try store.read(.utf8PlainText, item: 0, from: PasteboardName("notes")!), Data("b".utf8))
        XCTAssertEqual(try store.pasteboardNames().map(\.rawValue), ["general", "notes"])
    }

    func testSensitiveItemsNeverReachDisk() throws {
        let store = try FileStore(root: root)
        var item = text("hunter2")
        item.metadata.flags = [.sensitive]
        XCTAssertThrowsError(try store.write([item], to: .general)) {
            XCTAssertEqual(($0 as? PasteboardError)?.code, .refused)
        }
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let path = enumerator?.nextObject() as? String {
            let data = (try? Data(contentsOf: URL(fileURLWithPath: root + "/" + path))) ?? Data()
            XCTAssertNil(data.range(of: Data("hunter2".utf8)), path)
        }
    }

    func testDerivedRepresentationsAreStoredAsRecordsAndProducedOnRead() throws {
        let store = try FileStore(root: root) { source, data, target in
            XCTAssertEqual(source, .markdown)
            XCTAssertEqual(target, .html)
            return Data("<p>".utf8) + data + Data("</p>".utf8)
        }
        let item = Item(representations: [
            Representation(type: .markdown, data: Data("hi".utf8)),
            Representation(type: .html, derivedFrom: .markdown) { XCTFail("the store must not produce it"); return Data() },
        ])
        try store.write([item], to: .general)
        let summary = try store.items(in: .general)[0]
        XCTAssertEqual(summary.types.map(\.type), [.markdown, .html])
        XCTAssertEqual(summary.types[1].derivedFrom, .markdown)
        XCTAssertNil(summary.types[1].size)
        XCTAssertEqual(try store.read(.html, item: 0, from: .general), Data("<p>hi</p>".utf8))
    }

    /// Data files are not synced one by one: after a power cut, a record from an earlier boot whose
    /// file is short or missing is a lost copy (nothing to paste, exit 1), not damage; in this boot the
    /// same mismatch is damage (exit 74). One sync per write: the metadata's.
    func testAFileCutShortByAPowerCutIsALostCopy() throws {
        let store = try FileStore(root: root)
        try store.write([text("hello")], to: .general)
        let info = root + "/general.pasteboard/Info.json"
        let written = try String(contentsOfFile: info, encoding: .utf8)
        let boot = try XCTUnwrap(FileStore.bootID)
        XCTAssertTrue(written.contains("\"boot\":\"\(boot)\""), written)
        try Data().write(to: URL(fileURLWithPath: root + "/general.pasteboard/c1-0-0.data"))
        XCTAssertThrowsError(try store.read(.utf8PlainText, item: 0, from: .general)) {
            XCTAssertEqual(($0 as? PasteboardError)?.code, .corrupt)
        }
        try written.replacingOccurrences(of: boot, with: "00000000-0000-0000-0000-000000000000").write(toFile: info, atomically: true, encoding: .utf8)
        for read in [{ _ = try store.read(.utf8PlainText, item: 0, from: .general) }, { try store.read(.utf8PlainText, item: 0, from: .general, into: DataSink()) }] {
            XCTAssertThrowsError(try read()) {
                XCTAssertEqual(($0 as? PasteboardError)?.code, .empty)
                XCTAssertTrue(($0 as? PasteboardError)?.message.contains("did not reach the disk") == true, "\($0)")
            }
        }
        try FileManager.default.removeItem(atPath: root + "/general.pasteboard/c1-0-0.data")
        XCTAssertThrowsError(try store.read(.utf8PlainText, item: 0, from: .general)) { XCTAssertEqual(($0 as? PasteboardError)?.code, .empty) }
        // The next copy replaces it.
        XCTAssertEqual(try store.write([text("again")], to: .general), 2)
        XCTAssertEqual(try store.read(.utf8PlainText, item: 0, from: .general), Data("again".utf8))
    }

    func testConcurrentWritersAndReadersSeeWholeItems() throws {
        let store = try FileStore(root: root)
        let payloads = (0..<20).map { String(repeating: Character(UnicodeScalar(65 + $0)!), count: 50_000) }
        let failures = Counter()
        DispatchQueue.concurrentPerform(iterations: 40) { index in
            do {
                if index % 2 == 0 {
                    let item = Item(representations: [Representation(type: .utf8PlainText, data: Data(payloads[index / 2].utf8))])
                    try store.write([item], to: .general)
                } else if let data = try? store.read(.utf8PlainText, item: 0, from: .general) {
                    if !payloads.contains(String(decoding: data, as: UTF8.self)) { failures.increment() }
                }
            } catch {
                failures.increment()
            }
        }
        XCTAssertEqual(failures.value, 0)
        XCTAssertEqual(try store.changeCount(of: .general), 20)
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
