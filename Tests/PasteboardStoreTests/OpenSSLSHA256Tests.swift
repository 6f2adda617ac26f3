import Foundation
import Pasteboard
import XCTest

@testable import PasteboardStore

/// The history names a large representation's file by its SHA-256, computed by OpenSSL: over bytes in
/// memory, over a file through one buffer, and by the store beside a copy as it spools it.
final class OpenSSLSHA256Tests: XCTestCase {
    var root = ""

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "pbctl-sha256-tests-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Bytes no multiple of anything the code steps by (its 256 KiB reads, the copy's 4 MiB steps).
    func pattern(_ count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) })
    }

    func testKnownDigests() throws {
        XCTAssertEqual(try OpenSSLSHA256.hex(Data()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(try OpenSSLSHA256.hex(Data("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(
            try OpenSSLSHA256.hex(Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(
            try OpenSSLSHA256.hex(Data(repeating: 0x61, count: 1_000_000)), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testAFileHashesAsItsBytesAndOnlyAtItsSize() throws {
        let data = pattern(3 << 20 + 12345)
        let path = root + "/file"
        try data.write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(try OpenSSLSHA256.hex(ofFileAt: path, size: data.count), try OpenSSLSHA256.hex(data))
        XCTAssertNil(try OpenSSLSHA256.hex(ofFileAt: path, size: data.count - 1), "not the size said: not hashed")
        XCTAssertNil(try OpenSSLSHA256.hex(ofFileAt: root + "/absent", size: 1))
        XCTAssertNil(try OpenSSLSHA256.hex(ofFileAt: root, size: 0), "a folder")
    }

    /// A copy the history records has its spool hashed beside it: the store hands the digest on with
    /// the file it wrote (from a file, moved in the kernel, and from a pipe, checked as UTF-8 on the way).
    func testTheStoreHashesWhatItSpoolsWhenAsked() throws {
        let store = try FileStore(root: root + "/store")
        let data = pattern(9 << 20 + 777)
        let path = root + "/input"
        try data.write(to: URL(fileURLWithPath: path))
        func copy(_ store: FileStore, _ path: String = path) throws -> (Data, String?) {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            XCTAssertGreaterThanOrEqual(fd, 0)
            defer { close(fd) }
            let spooled = try store.spool(fd, name: path, for: .general, limit: 1 << 30, inspect: false)
            try store.write([Item(representations: [Representation(type: .data, data: spooled.data)])], to: .general)
            return (spooled.data, store.writtenFileSHA256(holding: spooled.data))
        }
        let (unhashed, none) = try copy(store)
        XCTAssertEqual(unhashed, data)
        XCTAssertNil(none, "not asked: nothing hashed")
        store.hashSpooledInput(upTo: data.count - 1)
        let (over, unnamed) = try copy(store)
        XCTAssertEqual(over, data)
        XCTAssertNil(unnamed, "larger than the history keeps: not hashed")
        store.hashSpooledInput(upTo: data.count)
        let (hashed, digest) = try copy(store)
        XCTAssertEqual(hashed, data)
        XCTAssertEqual(digest, try OpenSSLSHA256.hex(data))
        XCTAssertEqual(store.writtenFilePath(holding: hashed).flatMap { try? OpenSSLSHA256.hex(ofFileAt: $0, size: data.count) }, digest)
        // Spooled (over 64 KiB) but small enough for the history to keep in its database: not hashed.
        let small = root + "/small"
        try pattern(100_000).write(to: URL(fileURLWithPath: small))
        XCTAssertNil(try copy(store, small).1)

        // Text through a pipe: the bytes pass through a buffer to be checked, and are hashed all the same;
        // more than the history keeps is not hashed.
        let text = Data(String(repeating: "a line of text\n", count: 400_000).utf8)
        XCTAssertEqual(try pipeCopy(text, into: store), try OpenSSLSHA256.hex(text))
        store.hashSpooledInput(upTo: text.count - 1)
        XCTAssertNil(try pipeCopy(text, into: store))
    }

    /// `data` written into a pipe by another thread, spooled (checked as UTF-8) and stored: the digest
    /// the store hands on.
    func pipeCopy(_ data: Data, into store: FileStore) throws -> String? {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let (reader, writing) = (fds[0], fds[1])
        let writer = Thread {
            data.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = write(writing, raw.baseAddress! + offset, raw.count - offset)
                    if n <= 0 { break }
                    offset += n
                }
            }
            close(writing)
        }
        writer.start()
        defer { close(reader) }
        let spooled = try store.spool(reader, name: "standard input", for: .general, limit: 1 << 30, inspect: true)
        XCTAssertEqual(spooled.data, data)
        try store.write([Item(representations: [Representation(type: .utf8PlainText, data: spooled.data)])], to: .general)
        return store.writtenFileSHA256(holding: spooled.data)
    }

    /// Input over the limit while the spool is being hashed: refused, nothing left behind, and the
    /// hashing stops with it (the call returns).
    func testASpoolOverItsLimitStopsItsHash() throws {
        let store = try FileStore(root: root + "/store")
        store.hashSpooledInput(upTo: 64 << 20)
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let (reader, writing) = (fds[0], fds[1])
        let data = pattern(12 << 20)
        let writer = Thread {
            data.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = write(writing, raw.baseAddress! + offset, raw.count - offset)
                    if n <= 0 { break }
                    offset += n
                }
            }
            close(writing)
        }
        signal(SIGPIPE, SIG_IGN)
        writer.start()
        defer { close(reader) }
        XCTAssertThrowsError(try store.spool(reader, name: "standard input", for: .general, limit: 6 << 20, inspect: false)) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .invalidData)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root + "/store/general.pasteboard"), [])
    }
}
