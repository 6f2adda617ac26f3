import Foundation
import XCTest

/// pbctl in a real terminal: panes of a private tmux 3.3 server (`set-clipboard on`), which keeps what
/// applications send with OSC 52 as buffers and answers OSC 52 queries with its top buffer.
final class TerminalClipboardTests: XCTestCase {
    var scratch = ""
    var socket = ""
    let tmux = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }

    override func setUpWithError() throws {
        try XCTSkipUnless(tmux != nil, "tmux is not installed")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: PbctlRunner.binary), "pbctl is not built")
        scratch = NSTemporaryDirectory() + "pbctl-tmux-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        socket = "pbctl-test-\(getpid())-\(UUID().uuidString.prefix(8))"
        XCTAssertEqual(tmuxCommand(["-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "40"]).status, 0)
        XCTAssertEqual(tmuxCommand(["set", "-g", "set-clipboard", "on"]).status, 0)
    }

    override func tearDownWithError() throws {
        if tmux != nil { _ = tmuxCommand(["kill-server"]) }
        try? FileManager.default.removeItem(atPath: scratch)
    }

    @discardableResult
    func tmuxCommand(_ arguments: [String]) -> (status: Int32, output: Data) {
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "TMUX")
        // Output to a file, not a pipe (the server tmux starts would hold a pipe open), and a child
        // reaped with waitpid (Foundation's Process can miss the exit of one that forks).
        let file = scratch + "/tmux-\(UUID().uuidString.prefix(8)).out"
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer {
            close(fd)
            try? FileManager.default.removeItem(atPath: file)
        }
        guard let child = try? ChildProcess([tmux!, "-L", socket] + arguments, environment: environment, stdout: fd) else { return (-1, Data()) }
        guard child.wait(timeout: 20) else {
            child.kill()
            return (-1, Data())
        }
        return (child.status ?? -1, (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data())
    }

    /// Runs a shell command in a new pane of the private server and waits for it; returns its status,
    /// its standard output and standard error.
    func inPane(_ command: String, timeout: TimeInterval = 20) throws -> (status: Int32, stdout: Data, stderr: String) {
        let id = UUID().uuidString.prefix(8)
        let status = "\(scratch)/\(id).status", out = "\(scratch)/\(id).out", err = "\(scratch)/\(id).err"
        let line = "export PBCTL_STORE='\(scratch)/store' PBCTL_HISTORY='\(scratch)/history'; { \(command); } > '\(out)' 2> '\(err)'; echo $? > '\(status).tmp'; mv '\(status).tmp' '\(status)'"
        XCTAssertEqual(tmuxCommand(["new-window", "-d", line]).status, 0)
        let deadline = Date().addingTimeInterval(timeout)
        while !FileManager.default.fileExists(atPath: status), Date() < deadline { usleep(50_000) }
        let code = Int32((try? String(contentsOfFile: status, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? -1
        return (code, (try? Data(contentsOf: URL(fileURLWithPath: out))) ?? Data(), (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }

    var buffer: Data { tmuxCommand(["save-buffer", "-"]).output }
    var pbctl: String { "'\(PbctlRunner.binary)'" }

    /// 200 KB through OSC 52 itself (the pane's TMUX variable removed, so no tmux command helps), byte
    /// for byte, with nothing on standard output; and through tmux's own load-buffer inside tmux.
    func testCopyWithTheOSC52BackendReachesTheTerminalByteExact() throws {
        let file = scratch + "/in.txt"
        var text = Data()
        var rng = SystemRandomNumberGenerator()
        while text.count < 200_000 { text.append(contentsOf: Array("line \(rng.next() % 1_000_000) ⟨ünïcödé⟩\n".utf8)) }
        try text.write(to: URL(fileURLWithPath: file))
        var result = try inPane("env -u TMUX \(pbctl) copy --backend osc52 < '\(file)'")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, Data(), "nothing on standard output")
        XCTAssertEqual(buffer, text, "the tmux buffer is not what was copied")

        try Data("via load-buffer".utf8).write(to: URL(fileURLWithPath: file))
        result = try inPane("\(pbctl) copy --backend osc52 < '\(file)'")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(buffer, Data("via load-buffer".utf8))
    }

    /// A stale `TMUX` (inherited into `su`, a container, an SSH hop: its server cannot be reached) must
    /// not swallow the copy: the terminal is sent OSC 52 directly, and `-v` says why.
    func testAStaleTMUXVariableStillReachesTheTerminal() throws {
        let result = try inPane(
            "printf 'through a stale TMUX' | env -u DISPLAY -u WAYLAND_DISPLAY TMUX='\(scratch)/no-such-tmux,4242,0' "
                + "SSH_CONNECTION='10.0.0.1 1 10.0.0.2 22' PBCTL_BACKEND=auto \(pbctl) copy -v")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(buffer, Data("through a stale TMUX".utf8), "nothing reached the terminal")
        XCTAssertTrue(result.stderr.contains("does not answer"), result.stderr)
    }

    /// A copy too large for the terminal still streams into the store through the OSC 52 path
    /// (MirroredPasteboard passes the store's spooling on): memory stays flat.
    func testALargeCopyThroughTheTerminalPathStreamsIntoTheStore() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "GNU time is not installed")
        let result = try inPane(
            "head -c 300000000 /dev/zero | tr '\\0' a | env -u TMUX /usr/bin/time -f 'maxrss %M' -o '\(scratch)/rss' \(pbctl) copy --backend osc52",
            timeout: 120)
        XCTAssertEqual(result.status, 65, "more than the terminal takes: refused, kept in the store: \(result.stderr)")
        let rss = Int(((try? String(contentsOfFile: scratch + "/rss", encoding: .utf8)) ?? "").split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        XCTAssertGreaterThan(rss, 0)
        XCTAssertLessThan(rss, 100_000, "peak memory \(rss) KB for a 300 MB copy")
        let size = try inPane("\(pbctl) paste --backend store | wc -c")
        XCTAssertEqual(String(decoding: size.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), "300000000")
    }

    /// Markdown arrives as its text; the store keeps every representation.
    func testMarkdownArrivesAsTextAndTheStoreKeepsEverything() throws {
        let file = scratch + "/notes.md"
        try Data("# Notes\n\n*important*\n".utf8).write(to: URL(fileURLWithPath: file))
        let result = try inPane("env -u TMUX \(pbctl) copy --backend osc52 '\(file)'")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(buffer, Data("# Notes\n\n*important*\n".utf8))
        let html = try inPane("\(pbctl) paste --backend store --as html")
        XCTAssertTrue(String(decoding: html.stdout, as: UTF8.self).contains("<em>important</em>"), html.stderr)
    }

    /// `auto` over SSH (no display): the store and the terminal; a `pbctl paste` there reads the store.
    func testAutoOverSSHWritesTheStoreAndTheTerminal() throws {
        let result = try inPane("printf 'over ssh' | env -u TMUX -u DISPLAY -u WAYLAND_DISPLAY SSH_CONNECTION='10.0.0.1 1 10.0.0.2 22' PBCTL_BACKEND=auto \(pbctl) copy")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(buffer, Data("over ssh".utf8))
        let paste = try inPane("env -u DISPLAY \(pbctl) paste --backend store")
        XCTAssertEqual(paste.stdout, Data("over ssh".utf8))
    }

    /// Without a controlling terminal (cron, CI, `ssh host cmd`): the store only, exit 0, at once.
    func testNoTerminalMeansStoreOnlyAndSuccess() throws {
        let store = scratch + "/nt-store"
        let process = Process()  // setsid -w does not fork: Process sees its exit
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["-w", PbctlRunner.binary, "copy"]
        var environment = ProcessInfo.processInfo.environment
        environment["PBCTL_STORE"] = store
        environment["PBCTL_HISTORY"] = store + "-history"
        environment["SSH_CONNECTION"] = "10.0.0.1 1 10.0.0.2 22"
        environment.removeValue(forKey: "DISPLAY")
        process.environment = environment
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data("no tty".utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        var runner = PbctlRunner(store: store)
        runner.environment["PBCTL_BACKEND"] = "store"
        XCTAssertEqual(try runner.run(["paste"]).text, "no tty")
        // --backend osc52 with no terminal says so (exit 69), and the store still holds the copy.
        process.arguments = ["-w", PbctlRunner.binary, "copy", "--backend", "osc52"]
        let again = Process()
        again.executableURL = process.executableURL
        again.arguments = process.arguments
        again.environment = environment
        again.standardInput = FileHandle.nullDevice
        again.standardError = FileHandle.nullDevice
        try again.run()
        again.waitUntilExit()
        XCTAssertEqual(again.terminationStatus, 69)
    }

    /// Paste back: tmux answers the OSC 52 query with its top buffer; the mode of the terminal is put back.
    func testPasteReadsTheTerminalsClipboard() throws {
        XCTAssertEqual(tmuxCommand(["set-buffer", "from tmux"]).status, 0)
        var result = try inPane("env -u TMUX \(pbctl) paste --backend osc52; stty -g > '\(scratch)/mode-after'; true")
        XCTAssertEqual(String(decoding: result.stdout, as: UTF8.self), "from tmux")
        result = try inPane("stty -g")
        let before = String(decoding: result.stdout, as: UTF8.self)
        let after = (try? String(contentsOfFile: scratch + "/mode-after", encoding: .utf8)) ?? ""
        XCTAssertEqual(before, after, "the terminal mode was not restored")
        XCTAssertEqual(tmuxCommand(["set-buffer", "second"]).status, 0)
        result = try inPane("\(pbctl) paste --backend osc52")
        XCTAssertEqual(String(decoding: result.stdout, as: UTF8.self), "second", result.stderr)
    }

    /// Over the cap: exit 65, nothing sent, the store keeps it.
    func testOversizedTextIsRefusedAndTheStoreKeepsIt() throws {
        XCTAssertEqual(tmuxCommand(["set-buffer", "unchanged"]).status, 0)
        let file = scratch + "/big.txt"
        try Data(repeating: 0x61, count: 5000).write(to: URL(fileURLWithPath: file))
        let result = try inPane("env -u TMUX PBCTL_OSC52_MAX=4K \(pbctl) copy --backend osc52 '\(file)'")
        XCTAssertEqual(result.status, 65, result.stderr)
        XCTAssertTrue(result.stderr.contains("store still holds"), result.stderr)
        XCTAssertEqual(buffer, Data("unchanged".utf8), "a refused copy sent something")
        XCTAssertEqual(try inPane("\(pbctl) paste --backend store").stdout.count, 5000)
    }
}
