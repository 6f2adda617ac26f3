import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A private Xvfb (`-displayfd 1`) for one test class; tests skip when Xvfb is not installed.
class XvfbTestCase: XCTestCase {
    nonisolated(unsafe) static var process: Process?
    nonisolated(unsafe) static var display: String?

    override class func setUp() {
        super.setUp()
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb") else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        process.arguments = ["-displayfd", "1", "-nolisten", "tcp", "-noreset"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return }
        let fd = out.fileHandleForReading.fileDescriptor
        var text = ""
        let deadline = Date().addingTimeInterval(10)
        var buffer = [UInt8](repeating: 0, count: 64)
        while !text.contains("\n"), Date() < deadline {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 200) > 0 else { continue }
            let n = read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            text += String(decoding: buffer[0..<n], as: UTF8.self)
        }
        if let number = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            Self.process = process
            Self.display = ":\(number)"
        } else {
            process.terminate()
        }
    }

    override class func tearDown() {
        // SIGTERM only: Foundation reaps the child itself.
        if let process { kill(process.processIdentifier, SIGTERM) }
        process = nil
        display = nil
        super.tearDown()
    }

    func requireDisplay() throws -> String {
        guard let display = Self.display else { throw XCTSkip("Xvfb is not installed (apt-get install xvfb)") }
        return display
    }
}

/// A flag shared with a background thread.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    private var values: [String: Int] = [:]
    func stop() { lock.lock(); stopped = true; lock.unlock() }
    var isStopped: Bool { lock.lock(); defer { lock.unlock() }; return stopped }
    func set(_ key: String, _ value: Int) { lock.lock(); values[key] = value; lock.unlock() }
    func get(_ key: String) -> Int? { lock.lock(); defer { lock.unlock() }; return values[key] }
}
