import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A private Xvfb server for one test class (`Xvfb -displayfd 1`: the server picks a free display).
/// It runs with `-noreset` unless asked: an X server resets when its last client disconnects, and a
/// peer connecting meanwhile (xclip, xsel) fails with "Can't open display". `X11ServerResetTests`
/// keeps the reset on purpose, to check that pbctl itself rides it out.
final class XvfbServer: @unchecked Sendable {
    let child: ChildProcess
    let display: String

    static var executable: String? {
        ["/usr/bin/Xvfb", "/usr/local/bin/Xvfb"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    init(resetsWhenIdle: Bool = false) throws {
        guard let executable = Self.executable else { throw XCTSkip("Xvfb is not installed (apt-get install xvfb)") }
        var out: [Int32] = [-1, -1]
        _ = pipe(&out)
        _ = fcntl(out[0], F_SETFD, FD_CLOEXEC)
        child = try ChildProcess([executable, "-displayfd", "1", "-nolisten", "tcp", "-screen", "0", "640x480x24"]
                                 + (resetsWhenIdle ? [] : ["-noreset"]),
                                 environment: ProcessInfo.processInfo.environment, stdout: out[1])
        close(out[1])
        defer { close(out[0]) }
        var text = ""
        let deadline = Date().addingTimeInterval(10)
        while !text.contains("\n"), Date() < deadline {
            guard let chunk = readSome(out[0], timeoutMS: 200) else { continue }
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let number = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            child.kill()
            throw XCTSkip("Xvfb did not report a display")
        }
        display = ":\(number)"
    }

    func stop() { child.kill() }
}
/// A child process started with posix_spawn and reaped with waitpid (Foundation's Process can miss the
/// exit of a child that forks, as xclip does).
final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    private(set) var status: Int32?

    /// - Parameters: stdin/stdout/stderr: descriptors for the child (-1: /dev/null).
    init(_ arguments: [String], environment: [String: String], stdin: Int32 = -1, stdout: Int32 = -1, stderr: Int32 = -1) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (fd, target) in [(stdin, Int32(0)), (stdout, 1), (stderr, 2)] {
            if fd >= 0 {
                posix_spawn_file_actions_adddup2(&actions, fd, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
        guard rc == 0 else {
            throw NSError(domain: "X11Tests", code: Int(rc), userInfo: [NSLocalizedDescriptionKey: "cannot run \(arguments[0])"])
        }
        self.pid = pid
    }

    var isRunning: Bool {
        if status != nil { return false }
        var raw: Int32 = 0
        let rc = waitpid(pid, &raw, WNOHANG)
        if rc == pid {
            status = (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
            return false
        }
        return rc == 0
    }

    /// Waits until exit or `timeout`; returns false on timeout.
    func wait(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning {
            if Date() >= deadline { return false }
            usleep(2_000)
        }
        return true
    }

    func kill() {
        guard isRunning else { return }
        Glibc.kill(pid, SIGTERM)
        if !wait(timeout: 5) {
            Glibc.kill(pid, SIGKILL)
            _ = wait(timeout: 5)
        }
    }
}

/// A peer started for a test, killed in tearDown.
final class Spawned: @unchecked Sendable {
    let child: ChildProcess
    let stdoutFD: Int32
    let stderrFD: Int32

    init(_ arguments: [String], environment: [String: String]) throws {
        var out: [Int32] = [-1, -1]
        var err: [Int32] = [-1, -1]
        guard pipe(&out) == 0, pipe(&err) == 0 else { throw NSError(domain: "X11Tests", code: 2) }
        // Every end close-on-exec: the child gets its ends through dup2, and a daemon it leaves behind
        // must not keep the pipes open.
        for fd in out + err { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        child = try ChildProcess(arguments, environment: environment, stdout: out[1], stderr: err[1])
        close(out[1])
        close(err[1])
        stdoutFD = out[0]
        stderrFD = err[0]
    }

    deinit {
        close(stdoutFD)
        close(stderrFD)
    }

    /// Waits for a line on stdout (a peer's "ready").
    func waitForLine(_ line: String, timeout: TimeInterval = 15) throws {
        var text = ""
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard let chunk = readSome(stdoutFD, timeoutMS: 200) else { continue }
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            if text.split(separator: "\n").contains(Substring(line)) { return }
        }
        let errors = String(decoding: readSome(stderrFD, timeoutMS: 100) ?? Data(), as: UTF8.self)
        throw NSError(domain: "X11Tests", code: 1, userInfo: [NSLocalizedDescriptionKey: "peer never printed '\(line)': \(text) \(errors)"])
    }

    func kill() { child.kill() }
}

/// Reads what is available within `timeoutMS` (nil: nothing yet; empty: end of file), retrying on EINTR
/// (Foundation's FileHandle traps on EINTR while child processes exit).
func readSome(_ fd: Int32, timeoutMS: Int32) -> Data? {
    var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    let ready = poll(&pfd, 1, timeoutMS)
    guard ready > 0 else { return nil }
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = read(fd, &buffer, buffer.count)
        if n < 0 && errno == EINTR { continue }
        return n <= 0 ? Data() : Data(buffer[0..<n])
    }
}

/// Reads to end of file, retrying on EINTR.
func readToEnd(_ fd: Int32) -> Data {
    var result = Data()
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = read(fd, &buffer, buffer.count)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return result }
        result.append(contentsOf: buffer[0..<n])
    }
}

struct ToolResult {
    var status: Int32
    var stdout: Data
    var stderr: String
    var seconds: Double
    var timedOut: Bool
    var text: String { String(decoding: stdout, as: UTF8.self) }
}

/// Base class: one Xvfb per test class, peers and tools run with DISPLAY set, every spawned process
/// killed in tearDown.
class X11TestCase: XCTestCase {
    nonisolated(unsafe) static var server: XvfbServer?
    nonisolated(unsafe) static var serverError: Error?
    var spawned: [Spawned] = []
    var scratch = ""

    /// Whether this class's Xvfb resets when its last client disconnects (the X default; off here).
    class var serverResetsWhenIdle: Bool { false }

    override class func setUp() {
        super.setUp()
        do { server = try XvfbServer(resetsWhenIdle: serverResetsWhenIdle) } catch { serverError = error }
    }

    override class func tearDown() {
        server?.stop()
        server = nil
        super.tearDown()
    }

    var display: String { Self.server?.display ?? "" }
    var python: String { "/usr/bin/python3" }
    var peers: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("X11Peers").path
    }
    var pbctl: String { PbctlRunner.binary }

    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["DISPLAY"] = display
        env["QT_QPA_PLATFORM"] = "xcb"
        env["XDG_RUNTIME_DIR"] = scratch
        env["NO_AT_BRIDGE"] = "1"
        env["PBCTL_BACKEND"] = "x11"
        env["PBCTL_STORE"] = scratch + "/store"
        env["PBCTL_HISTORY"] = scratch + "/history"
        env.removeValue(forKey: "WAYLAND_DISPLAY")
        return env
    }

    override func setUpWithError() throws {
        if let error = Self.serverError { throw error }
        guard Self.server != nil else { throw XCTSkip("no Xvfb") }
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: PbctlRunner.binary), "pbctl is not built")
        scratch = NSTemporaryDirectory() + "pbctl-x11-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: scratch)
        // Start from an empty clipboard.
        _ = try run([pbctl, "clear"])
    }

    override func tearDownWithError() throws {
        for process in spawned { process.kill() }
        spawned = []
        // Background owners (ours, xclip's) exit when the selection is cleared.
        _ = try? run([pbctl, "clear"], timeout: 10)
        try? FileManager.default.removeItem(atPath: scratch)
    }

    func requireTool(_ path: String) throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: path), "\(path) is not installed")
    }

    func requirePython(_ module: String) throws {
        try requireTool(python)
        let check = try run([python, "-c", "import \(module)"], timeout: 20)
        try XCTSkipUnless(check.status == 0, "python3 module \(module) is not installed")
    }

    /// Runs a tool to completion (killed after `timeout`), stdin from `input` or a file.
    /// `detached`: stdout and stderr on /dev/null, for tools that fork a background owner (xclip -i).
    func run(_ arguments: [String], input: Data? = nil, inputFile: String? = nil, outputFile: String? = nil,
             environment extra: [String: String] = [:], timeout: TimeInterval = 30, detached: Bool = false) throws -> ToolResult {
        var env = environment
        for (k, v) in extra { env[k] = v }
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        var inPipe: [Int32] = [-1, -1]
        var stdinFD: Int32 = -1
        var stdoutFD: Int32 = -1
        var stderrFD: Int32 = -1
        var toClose: [Int32] = []
        if let inputFile {
            stdinFD = open(inputFile, O_RDONLY | O_CLOEXEC)
            toClose.append(stdinFD)
        } else if input != nil {
            _ = pipe(&inPipe)
            _ = fcntl(inPipe[1], F_SETFD, FD_CLOEXEC)
            stdinFD = inPipe[0]
            toClose.append(inPipe[0])
        }
        if let outputFile {
            stdoutFD = open(outputFile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            toClose.append(stdoutFD)
        } else if !detached {
            _ = pipe(&outPipe)
            _ = fcntl(outPipe[0], F_SETFD, FD_CLOEXEC)
            stdoutFD = outPipe[1]
            toClose.append(outPipe[1])
        }
        if !detached {
            _ = pipe(&errPipe)
            _ = fcntl(errPipe[0], F_SETFD, FD_CLOEXEC)
            stderrFD = errPipe[1]
            toClose.append(errPipe[1])
        }
        let start = Date()
        let child = try ChildProcess(arguments, environment: env, stdin: stdinFD, stdout: stdoutFD, stderr: stderrFD)
        for fd in toClose { close(fd) }
        if let input {
            let fd = inPipe[1]
            DispatchQueue.global().async {
                input.withUnsafeBytes { raw in
                    var offset = 0
                    while offset < raw.count {
                        let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                        if n < 0 && errno == EINTR { continue }
                        if n <= 0 { break }
                        offset += n
                    }
                }
                close(fd)
            }
        }
        let outBox = Box()
        let errBox = Box()
        let group = DispatchGroup()
        if outPipe[0] >= 0 {
            let fd = outPipe[0]
            group.enter()
            DispatchQueue.global().async {
                outBox.data = readToEnd(fd)
                close(fd)
                group.leave()
            }
        }
        if errPipe[0] >= 0 {
            let fd = errPipe[0]
            group.enter()
            DispatchQueue.global().async {
                errBox.data = readToEnd(fd)
                close(fd)
                group.leave()
            }
        }
        let timedOut = !child.wait(timeout: timeout)
        if timedOut { child.kill() }
        let seconds = Date().timeIntervalSince(start)
        // A background owner may hold our pipes only if its stdio were not detached; never wait long.
        _ = group.wait(timeout: .now() + 5)
        return ToolResult(status: child.status ?? -1, stdout: outBox.data, stderr: String(decoding: errBox.data, as: UTF8.self),
                          seconds: seconds, timedOut: timedOut)
    }

    /// Starts a long-running peer and waits for its "ready".
    @discardableResult
    func startPeer(_ arguments: [String], environment extra: [String: String] = [:], waitFor line: String? = "ready") throws -> Spawned {
        let peer = try Spawned(arguments, environment: environment.merging(extra) { $1 })
        spawned.append(peer)
        if let line { try peer.waitForLine(line) }
        return peer
    }

    func write(_ data: Data, _ name: String) throws -> String {
        let path = scratch + "/" + name
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Waits until `condition` holds or `timeout` passes.
    func eventually(timeout: TimeInterval = 5, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            usleep(50_000)
        }
        return try condition()
    }
}
