import XCTest
#if canImport(Glibc)
import Glibc
#endif
@testable import SystemIO

/// `POSIX.readAll`: small reads in malloc'd memory, large ones in a huge-page-advised mapping, and a
/// pipe of unknown length growing from one to the other; every byte kept, in order.
final class ReadAllTests: XCTestCase {
    /// Bytes that differ at every position (a word counter, scrambled), made fast even in a debug build.
    func pattern(_ count: Int) -> Data {
        var data = Data(count: (count + 7) & ~7)
        data.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt64.self)
            for i in words.indices { words[i] = UInt64(i) &* 0x9E37_79B9_7F4A_7C15 }
        }
        return data.prefix(count)
    }

    func testFilesOfEverySizeClassReadBackExactly() throws {
        let directory = NSTemporaryDirectory() + "readall-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for size in [0, 1, 65_535, 65_537, (4 << 20) - 1, 4 << 20, (9 << 20) + 3] {
            let path = directory + "/f\(size)"
            let expected = pattern(size)
            try expected.write(to: URL(fileURLWithPath: path))
            let read = try POSIX.readFile(path)
            XCTAssertEqual(read.count, size)
            XCTAssertTrue(read == expected, "a \(size)-byte file read back differently")
            // A limit below the size refuses the file before reading it.
            if size > 10 { XCTAssertThrowsError(try POSIX.readFile(path, limit: size - 1)) }
        }
    }

    func testAPipeGrowsPastTheMappedThreshold() throws {
        let size = (ReadBuffer.mappedThreshold * 2) + 12_345
        let expected = pattern(size)
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let writeEnd = fds[1]
        let writer = Thread {
            expected.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = write(writeEnd, raw.baseAddress! + offset, min(65_536, raw.count - offset))
                    if n <= 0 { break }
                    offset += n
                }
            }
            close(writeEnd)
        }
        writer.start()
        let read = try POSIX.readAll(fds[0], path: "pipe")
        close(fds[0])
        XCTAssertEqual(read.count, size)
        XCTAssertTrue(read == expected, "the pipe's bytes changed on the way")
    }
}
