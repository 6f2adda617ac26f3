import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The remote client (`PBCTL_REMOTE`, what a pbctl on the far side of `pbctl ssh` uses) against a lying
/// `pbctl ssh` server: `scripts/hostile-remote.py server MODE SOCKET`, no ssh needed. A listing a
/// terminal would obey, more bytes than announced, a file list naming a path of "this" machine, and
/// `paste -o` interrupted by a signal while a slow server sends.
final class RemoteHostileTests: PbctlTestCase {
    var server: ChildProcess?
    var socket: String { scratch + "/remote.sock" }
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/hostile-remote.py").path

    override func tearDownWithError() throws {
        server?.kill()
        server = nil
        try super.tearDownWithError()
    }

    /// Starts the hostile server in `mode` and waits until it accepts a connection (the probe is one of
    /// the 20 it serves); a runner whose pbctl uses it as its remote.
    func serve(_ mode: String) throws -> PbctlRunner {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "python3 is not installed")
        server = try ChildProcess(["/usr/bin/python3", Self.script, "server", mode, socket], environment: ProcessInfo.processInfo.environment)
        let deadline = Date().addingTimeInterval(10)
        var listening = false
        while !listening, Date() < deadline, server?.isRunning == true {
            listening = connectOnce(socket)
            if !listening { usleep(20_000) }
        }
        XCTAssertTrue(listening, "the hostile server never listened on \(socket)")
        var runner = pbctl!
        runner.environment["PBCTL_REMOTE"] = socket
        runner.environment["PBCTL_BACKEND"] = "remote"
        runner.environment.removeValue(forKey: "SSH_CONNECTION")
        runner.environment.removeValue(forKey: "SSH_TTY")
        return runner
    }

    /// Whether a Unix socket at `path` accepts a connection (closed at once).
    func connectOnce(_ path: String) -> Bool {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
        }
    }

    /// The names in the scratch folder that start with `name` (the file itself and its temporary files).
    func leftovers(_ name: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: scratch).filter { $0.hasPrefix(name) }.sorted()
    }

    func fileSize(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : -1
    }

    func assertNoTerminalControl(_ data: Data, _ label: String, line: UInt = #line) {
        XCTAssertFalse(data.contains(0x1B), "\(label) printed ESC: \(String(decoding: data, as: UTF8.self).debugDescription)", line: line)
        XCTAssertFalse(data.contains(0x07), "\(label) printed BEL: \(String(decoding: data, as: UTF8.self).debugDescription)", line: line)
    }

    /// A listing whose type and source hold terminal escapes: refused (74), and nothing printed obeys.
    func testAListingWithEscapesIsRefusedWith74AndPrintsNoEscape() throws {
        let remote = try serve("escape-listing")
        for command in [["types"], ["types", "--json"], ["paste"], ["info"], ["info", "--json"]] {
            let result = try remote.run(command)
            XCTAssertEqual(result.status, 74, "\(command): \(result.stderr)")
            XCTAssertEqual(result.stdout, Data(), "\(command)")
            assertNoTerminalControl(result.stdout + Data(result.stderr.utf8), "\(command)")
            XCTAssertTrue(result.stderr.contains("refused"), "\(command): \(result.stderr)")
        }
    }

    /// A server announcing 5 bytes, then sending 50 MiB: the paste is cut off (74) and `-o` leaves no file,
    /// no temporary file, and an existing file as it was.
    func testMoreBytesThanAnnouncedAreCutOffAndPasteOLeavesNothing() throws {
        let remote = try serve("endless")
        let paste = try remote.run(["paste"])
        XCTAssertEqual(paste.status, 74, paste.stderr)
        XCTAssertTrue(paste.stderr.contains("more of public.utf8-plain-text than the 5 bytes it announced"), paste.stderr)
        XCTAssertLessThanOrEqual(paste.stdout.count, 5)
        let output = scratch + "/out.txt"
        let toFile = try remote.run(["paste", "-o", output])
        XCTAssertEqual(toFile.status, 74, toFile.stderr)
        XCTAssertEqual(try leftovers("out.txt"), [], "paste -o left a file behind")
        try Data("the old content".utf8).write(to: URL(fileURLWithPath: output))
        let overExisting = try remote.run(["paste", "-o", output])
        XCTAssertEqual(overExisting.status, 74, overExisting.stderr)
        XCTAssertEqual(try leftovers("out.txt"), ["out.txt"])
        XCTAssertEqual(try String(contentsOfFile: output, encoding: .utf8), "the old content")
    }

    /// A file list from the server names the machine it came from: `pbctl-ssh-origin` without
    /// SSH_CONNECTION, else its client address (IPv6 in brackets); `paste --files --into` refuses it (65).
    func testAFileListFromTheServerNamesItsHostAndIsRefusedAsLocalFiles() throws {
        var remote = try serve("file-list")
        let plain = try remote.run(["paste", "--type", "public.file-url"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(plain.text, "file://pbctl-ssh-origin/etc/hostname\r\n")
        let into = scratch + "/into"
        try FileManager.default.createDirectory(atPath: into, withIntermediateDirectories: true)
        var files = try remote.run(["paste", "--files", "--into", into])
        XCTAssertEqual(files.status, 65, files.stderr)
        XCTAssertTrue(files.stderr.contains("not a local file"), files.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: into), [])

        remote.environment["SSH_CONNECTION"] = "192.0.2.7 40000 192.0.2.1 22"
        let viaSSH = try remote.run(["paste", "--type", "public.file-url"])
        XCTAssertEqual(viaSSH.status, 0, viaSSH.stderr)
        XCTAssertEqual(viaSSH.text, "file://192.0.2.7/etc/hostname\r\n")
        files = try remote.run(["paste", "--files", "--into", into])
        XCTAssertEqual(files.status, 65, files.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: into), [])
        remote.environment["SSH_CONNECTION"] = "2001:db8::7 40000 2001:db8::1 22"
        XCTAssertEqual(try remote.run(["paste", "--type", "public.file-url"]).text, "file://[2001:db8::7]/etc/hostname\r\n")
    }

    /// `paste -o FILE` ended by SIGINT, SIGTERM or SIGHUP while the server sends slowly (64 KiB every
    /// 0.1 s): the temporary file is removed and pbctl dies of the signal (status 128+N), as it would have.
    func testPasteOInterruptedBySignalsLeavesNoPartialFile() throws {
        let remote = try serve("slow")
        let output = scratch + "/out.txt"
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            let paste = try ChildProcess([PbctlRunner.binary, "paste", "-o", output], environment: remote.environment)
            defer { paste.kill() }
            // Until the temporary file beside out.txt has received bytes: the paste is under way.
            var partial: [String] = []
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline, paste.isRunning {
                partial = try leftovers("out.txt.pbctl-").filter { $0.hasSuffix("-partial") }
                if let name = partial.first, fileSize(scratch + "/" + name) > 0 {
                    break
                }
                usleep(10_000)
            }
            XCTAssertEqual(partial.count, 1, "signal \(sig): the paste never wrote its temporary file")
            XCTAssertTrue(partial.first?.hasPrefix("out.txt.pbctl-\(paste.pid)-") == true, "\(partial)")
            kill(paste.pid, sig)
            XCTAssertTrue(paste.wait(timeout: 10), "signal \(sig) did not end the paste")
            XCTAssertEqual(paste.status, 128 + sig, "signal \(sig)")
            XCTAssertEqual(try leftovers("out.txt"), [], "signal \(sig) left a file behind")
        }
    }
}
