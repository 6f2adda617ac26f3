import Foundation
import XCTest

@testable import Archive

/// Builds ZIP bytes by hand, with whatever names, modes and sizes a test needs (including the hostile
/// ones `ZipArchive.encode` refuses to write).
struct RawZip {
    struct Entry {
        var name: [UInt8]
        var payload: [UInt8]
        var method: UInt16 = 0
        var crc: UInt32
        var uncompressedSize: UInt32
        var unixMode: UInt32 = 0o100644
        /// Where the local header claims to be; nil means where it is written.
        var offsetOverride: UInt32? = nil
        /// Compressed and uncompressed size claimed by the central directory; nil means the true ones.
        var centralSizeOverride: UInt32? = nil
    }

    var entries: [Entry] = []

    mutating func add(_ name: String, _ content: [UInt8], mode: UInt32 = 0o100644) {
        entries.append(
            Entry(
                name: Array(name.utf8), payload: content, crc: ZipArchive.crc32(of: Data(content)),
                uncompressedSize: UInt32(content.count), unixMode: mode))
    }

    /// A deflated entry whose header may lie about the inflated size.
    mutating func addDeflated(_ name: String, _ content: [UInt8], declaredSize: UInt32? = nil) throws {
        let deflated = try ZipArchive.deflate(Data(content))
        entries.append(
            Entry(
                name: Array(name.utf8), payload: [UInt8](deflated), method: 8, crc: ZipArchive.crc32(of: Data(content)),
                uncompressedSize: declaredSize ?? UInt32(content.count)))
    }

    func bytes() -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        func le16(_ v: UInt16, _ a: inout [UInt8]) { a += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func le32(_ v: UInt32, _ a: inout [UInt8]) { for s in [0, 8, 16, 24] { a.append(UInt8(truncatingIfNeeded: v >> UInt32(s))) } }
        var offsets: [UInt32] = []
        for e in entries {
            offsets.append(UInt32(out.count))
            le32(0x0403_4B50, &out); le16(20, &out); le16(0, &out); le16(e.method, &out)
            le16(0, &out); le16(0x21, &out); le32(e.crc, &out)
            le32(UInt32(e.payload.count), &out); le32(e.uncompressedSize, &out)
            le16(UInt16(e.name.count), &out); le16(0, &out)
            out += e.name
            out += e.payload
        }
        for (i, e) in entries.enumerated() {
            le32(0x0201_4B50, &central); le16(3 << 8 | 20, &central); le16(20, &central); le16(0, &central)
            le16(e.method, &central); le16(0, &central); le16(0x21, &central); le32(e.crc, &central)
            le32(e.centralSizeOverride ?? UInt32(e.payload.count), &central)
            le32(e.centralSizeOverride ?? e.uncompressedSize, &central)
            le16(UInt16(e.name.count), &central); le16(0, &central); le16(0, &central); le16(0, &central)
            le16(0, &central); le32(e.unixMode << 16, &central); le32(e.offsetOverride ?? offsets[i], &central)
            central += e.name
        }
        let centralOffset = UInt32(out.count)
        out += central
        le32(0x0605_4B50, &out); le16(0, &out); le16(0, &out)
        le16(UInt16(entries.count), &out); le16(UInt16(entries.count), &out)
        le32(UInt32(central.count), &out); le32(centralOffset, &out); le16(0, &out)
        return out
    }
}

final class ZipArchiveTests: XCTestCase {
    func assertZipError(
        _ code: ZipError.Code, _ data: [UInt8], limits: ZipArchive.Limits = .default, mentioning: String? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try ZipArchive.decode(Data(data), limits: limits), file: file, line: line) { error in
            guard let error = error as? ZipError else { return XCTFail("not a ZipError: \(error)", file: file, line: line) }
            XCTAssertEqual(error.code, code, error.message, file: file, line: line)
            if let mentioning {
                XCTAssertTrue(error.message.contains(mentioning), error.message, file: file, line: line)
            }
        }
    }

    // MARK: Round trips

    func testRoundTripKeepsEveryEntryStoredOrDeflated() throws {
        let text = Data(String(repeating: "a TextBundle holds Markdown and its assets. ", count: 200).utf8)
        let noise = Data((0..<5000).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) })
        let entries = [
            ZipEntry.directory("Doc.textbundle", modified: 1_700_000_000),
            ZipEntry(path: "Doc.textbundle/text.md", data: text, modified: 1_700_000_000),
            ZipEntry(path: "Doc.textbundle/assets/noise.bin", data: noise, modified: 1_700_000_002),
            ZipEntry(path: "Doc.textbundle/empty", data: Data()),
            ZipEntry(path: "Doc.textbundle/h\u{e9}llo w\u{f6}rld.txt", data: Data("é".utf8)),
        ]
        for method in [ZipArchive.Method.stored, .deflate] {
            let archive = try ZipArchive.encode(entries, method: method)
            let decoded = try ZipArchive.decode(archive)
            XCTAssertEqual(decoded.map(\.path), entries.map(\.path))
            XCTAssertEqual(decoded.map(\.data), entries.map(\.data))
            XCTAssertEqual(decoded[1].modified, 1_700_000_000)
            XCTAssertTrue(decoded[0].isDirectory)
            if method == .deflate {
                XCTAssertLessThan(archive.count, text.count / 4, "repetitive text must be deflated")
                // Method 8 in the text entry's local header (offset of that header + 8).
                let bytes = [UInt8](archive)
                let second = 30 + "Doc.textbundle/".utf8.count
                XCTAssertEqual(bytes[second + 8], 8)
            } else {
                XCTAssertGreaterThan(archive.count, text.count + noise.count)
            }
        }
    }

    func testCRC32MatchesTheStandardCheckValue() {
        XCTAssertEqual(ZipArchive.crc32(of: Data("123456789".utf8)), 0xCBF4_3926)
        XCTAssertEqual(ZipArchive.crc32(of: Data()), 0)
    }

    func testDOSDateTimeRoundTripsInTwoSecondSteps() {
        for seconds: Int64 in [315_532_800, 1_000_000_000, 1_700_000_001, 4_102_444_800] {
            let (time, date) = ZipArchive.dosDateTime(seconds)
            XCTAssertEqual(ZipArchive.unixTime(time: time, date: date), seconds - seconds % 2)
        }
        // Before 1980 clamps to the DOS epoch.
        let (time, date) = ZipArchive.dosDateTime(0)
        XCTAssertEqual(ZipArchive.unixTime(time: time, date: date), 315_532_800)
    }

    // MARK: Interoperability with Info-ZIP and Python's zipfile

    func run(_ tool: String, _ arguments: [String], in directory: String? = nil) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    func toolExists(_ tool: String) -> Bool {
        ((try? run("sh", ["-c", "command -v \(tool)"]))?.0 ?? 1) == 0
    }

    func testInfoZIPReadsWhatWeWriteAndWeReadWhatItWrites() throws {
        try XCTSkipUnless(toolExists("unzip") && toolExists("zip"), "Info-ZIP zip/unzip not installed")
        let dir = NSTemporaryDirectory() + "ziptest-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/in/B.textbundle/assets", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let text = Data(String(repeating: "line of text\n", count: 500).utf8)
        let archive = try ZipArchive.encode([
            .directory("B.textbundle"), ZipEntry(path: "B.textbundle/text.md", data: text),
            ZipEntry(path: "B.textbundle/assets/x.bin", data: Data([0, 1, 2, 255])),
        ])
        try archive.write(to: URL(fileURLWithPath: dir + "/ours.zip"))
        let (status, output) = try run("unzip", ["-t", dir + "/ours.zip"])
        XCTAssertEqual(status, 0, output)
        XCTAssertTrue(output.contains("No errors detected"), output)

        try text.write(to: URL(fileURLWithPath: dir + "/in/B.textbundle/text.md"))
        try Data([9, 8, 7]).write(to: URL(fileURLWithPath: dir + "/in/B.textbundle/assets/y.bin"))
        let (zipStatus, zipOutput) = try run("zip", ["-r", "-q", dir + "/theirs.zip", "B.textbundle"], in: dir + "/in")
        XCTAssertEqual(zipStatus, 0, zipOutput)
        let entries = try ZipArchive.decode(try Data(contentsOf: URL(fileURLWithPath: dir + "/theirs.zip")))
        XCTAssertEqual(entries.first { $0.path == "B.textbundle/text.md" }?.data, text)
        XCTAssertEqual(entries.first { $0.path == "B.textbundle/assets/y.bin" }?.data, Data([9, 8, 7]))
    }

    func testPythonZipfileStreamedArchiveWithDataDescriptorsIsRead() throws {
        try XCTSkipUnless(toolExists("python3"), "python3 not installed")
        let dir = NSTemporaryDirectory() + "ziptest-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Writing to an unseekable stream makes zipfile use data descriptors (flag bit 3).
        let script = """
            import sys, zipfile
            class W:
                def __init__(self, f): self.f = f
                def write(self, b): return self.f.write(b)
                def flush(self): self.f.flush()
            with open(sys.argv[1], 'wb') as f:
                with zipfile.ZipFile(W(f), 'w', zipfile.ZIP_DEFLATED) as z:
                    with z.open('a/b.txt', 'w') as e: e.write(b'hello ' * 100)
                    z.writestr('c.txt', b'stored', compress_type=zipfile.ZIP_STORED)
            """
        let (status, output) = try run("python3", ["-c", script, dir + "/py.zip"])
        XCTAssertEqual(status, 0, output)
        let entries = try ZipArchive.decode(try Data(contentsOf: URL(fileURLWithPath: dir + "/py.zip")))
        XCTAssertEqual(entries.map(\.path), ["a/b.txt", "c.txt"])
        XCTAssertEqual(entries[0].data, Data(String(repeating: "hello ", count: 100).utf8))
        XCTAssertEqual(entries[1].data, Data("stored".utf8))
    }

    // MARK: Zip slip

    func testEntriesThatEscapeTheFolderAreRefused() {
        for name in ["../evil.txt", "a/../../evil.txt", "/etc/passwd", "C:/evil.txt", "a\\..\\..\\evil.txt", "a//b", "./a", "a/./b"] {
            var zip = RawZip()
            zip.add("ok.txt", Array("fine".utf8))
            zip.add(name, Array("evil".utf8))
            assertZipError(.unsafeEntry, zip.bytes())
        }
    }

    func testSymbolicLinksAndDevicesAreRefused() {
        var link = RawZip()
        link.add("B.textbundle/assets/link", Array("/etc/passwd".utf8), mode: 0o120777)
        assertZipError(.unsafeEntry, link.bytes(), mentioning: "symbolic link")
        var fifo = RawZip()
        fifo.add("fifo", [], mode: 0o010644)
        assertZipError(.unsafeEntry, fifo.bytes())
    }

    func testDuplicateNamesAndFileFolderClashesAreRefused() {
        var duplicate = RawZip()
        duplicate.add("a.txt", [1])
        duplicate.add("a.txt", [2])
        assertZipError(.unsafeEntry, duplicate.bytes(), mentioning: "twice")
        var clash = RawZip()
        clash.add("a", [1])
        clash.add("a/", [], mode: 0o040755)
        assertZipError(.unsafeEntry, clash.bytes())
    }

    func testWriterRefusesWhatTheReaderWouldRefuse() {
        for name in ["../x", "/x", "a/../x", ""] {
            XCTAssertThrowsError(try ZipArchive.encode([ZipEntry(path: name, data: Data())]), name)
        }
        XCTAssertThrowsError(try ZipArchive.encode([ZipEntry(path: "x", data: Data()), ZipEntry(path: "x", data: Data())]))
    }

    // MARK: Zip bombs

    func testDeclaredSizesOverTheLimitsAreRefusedBeforeInflating() throws {
        // 4 MiB of zeros deflates to a few KiB.
        let zeros = [UInt8](repeating: 0, count: 4 << 20)
        var zip = RawZip()
        try zip.addDeflated("bomb.bin", zeros)
        XCTAssertLessThan(zip.bytes().count, 10_000)
        let small = ZipArchive.Limits(maximumEntrySize: 1 << 20, maximumTotalSize: 2 << 20)
        assertZipError(.tooLarge, zip.bytes(), limits: small, mentioning: "bomb.bin")
        XCTAssertEqual(try ZipArchive.decode(Data(zip.bytes())).first?.data.count, 4 << 20)
        // Many entries each under the entry limit, together over the total.
        var many = RawZip()
        for i in 0..<3 { try many.addDeflated("part\(i)", zeros.prefix(1 << 20).map { $0 }) }
        assertZipError(
            .tooLarge, many.bytes(), limits: .init(maximumEntrySize: 1 << 20, maximumTotalSize: 2 << 20),
            mentioning: "more than the limit")
    }

    func testAnEntryThatLiesAboutItsSizeStopsAtTheDeclaredSize() throws {
        var zip = RawZip()
        try zip.addDeflated("liar.bin", [UInt8](repeating: 0, count: 1 << 20), declaredSize: 100)
        assertZipError(.corrupt, zip.bytes(), mentioning: "more than the 100 bytes")
    }

    func testTooManyEntriesAreRefused() {
        var zip = RawZip()
        for i in 0..<50 { zip.add("f\(i)", [UInt8(i)]) }
        assertZipError(.tooLarge, zip.bytes(), limits: .init(maximumEntryCount: 20), mentioning: "50 entries")
    }

    func testOverlappingEntriesAreRefused() {
        // The overlapping-file construction: one entry's data span covers the next entry's header,
        // so the same bytes would be inflated again and again.
        var zip = RawZip()
        zip.add("a", Array(repeating: 65, count: 10))
        zip.add("b", Array(repeating: 66, count: 10))
        let covering = UInt32(10 + 30 + 1 + 10)
        zip.entries[0].centralSizeOverride = covering
        assertZipError(.unsafeEntry, zip.bytes(), mentioning: "overlaps")
    }

    // MARK: Damage

    func testDamagedArchivesGiveClearErrors() throws {
        assertZipError(.corrupt, Array("not a zip at all, just some text that is long enough".utf8), mentioning: "not a ZIP")
        assertZipError(.corrupt, [], mentioning: "too short")
        var zip = RawZip()
        zip.add("a.txt", Array("hello".utf8))
        var bad = zip.bytes()
        bad[30 + 5] ^= 0xFF  // first byte of the data
        assertZipError(.corrupt, bad, mentioning: "CRC-32")
        var deflated = RawZip()
        try deflated.addDeflated("d.txt", Array(String(repeating: "abc", count: 300).utf8))
        var broken = deflated.bytes()
        for i in 0..<4 { broken[30 + 5 + i] = 0xFF }
        assertZipError(.corrupt, broken, mentioning: "d.txt")
        let truncated = Array(zip.bytes().dropLast(5))
        assertZipError(.corrupt, truncated)
    }

    func testUnsupportedFeaturesAreNamed() {
        var zip = RawZip()
        zip.add("a.txt", [1, 2, 3])
        zip.entries[0].method = 14  // LZMA
        assertZipError(.unsupported, zip.bytes(), mentioning: "method 14")
    }

    func testRandomDamageNeverCrashes() throws {
        let archive = [UInt8](
            try ZipArchive.encode([
                .directory("B.textbundle"),
                ZipEntry(path: "B.textbundle/text.md", data: Data(String(repeating: "# T\n![](assets/a.png)\n", count: 20).utf8)),
                ZipEntry(path: "B.textbundle/info.json", data: Data("{\"version\":2}".utf8)),
            ]))
        var generator = SystemRandomNumberGenerator()
        var failures = 0
        for _ in 0..<2000 {
            var mutated = archive
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                let index = Int.random(in: 0..<mutated.count, using: &generator)
                mutated[index] = UInt8.random(in: 0...255, using: &generator)
            }
            if Bool.random(using: &generator) { mutated = Array(mutated.prefix(Int.random(in: 0..<mutated.count))) }
            do { _ = try ZipArchive.decode(Data(mutated)) } catch is ZipError { failures += 1 }
        }
        XCTAssertGreaterThan(failures, 0)
    }
}
