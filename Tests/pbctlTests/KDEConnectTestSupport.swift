import Foundation
import XCTest

/// What the KDE Connect tests share: network namespaces the test makes itself (`scripts/kdeconnect-netns.sh`:
/// two namespaces joined by a veth pair, addresses of their own, so no broadcast or connection leaves
/// them), a pbctl "device" in one of them with its own state, store and history, a headless kdeconnectd
/// in the other, and commands run with waitpid and a timeout.
class KDEConnectTestCase: XCTestCase {
    var scratch = ""
    var prefix = ""
    var octet = 0
    var children: [ChildProcess] = []
    var peers: [String] = []
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/kdeconnect-netns.sh").path
    nonisolated(unsafe) static var counter = 0

    /// One side: a namespace (nil: this machine, loopback only) and pbctl's folders there.
    struct Side {
        var namespace: String?
        var home: String
        var display: String?
        var address: String

        var environment: [String: String] {
            var environment = [
                "PATH": "/usr/bin:/bin", "HOME": home, "XDG_STATE_HOME": home + "/state", "PBCTL_STORE": home + "/store",
                "PBCTL_HISTORY": home + "/history", "XDG_RUNTIME_DIR": home + "/run",
            ]
            if let display { environment["DISPLAY"] = display }
            return environment
        }
    }

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: PbctlRunner.binary), "pbctl is not built")
        Self.counter += 1
        scratch = NSTemporaryDirectory() + "pbctl-kdc-\(getpid())-\(Self.counter)"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        for child in children.reversed() { child.kill() }
        for peer in peers { _ = try? sh("'\(Self.script)' peer-stop '\(peer)'") }
        if !prefix.isEmpty { _ = try? sh("'\(Self.script)' down \(prefix)") }
        if !scratch.isEmpty { try? FileManager.default.removeItem(atPath: scratch) }
    }

    /// Two namespaces joined by a veth pair; skipped where they cannot be made (not root, no `ip`).
    func makeNamespaces() throws -> (a: Side, b: Side) {
        try XCTSkipUnless(getuid() == 0, "network namespaces need root")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") || FileManager.default.isExecutableFile(atPath: "/sbin/ip"), "iproute2 is not installed")
        prefix = "pk\(getpid() % 10000)\(Self.counter % 10)"
        octet = Int.random(in: 1...250)
        let made = try sh("'\(Self.script)' up \(prefix) \(octet)")
        try XCTSkipUnless(made.status == 0, "cannot make network namespaces: \(made.stderr)")
        return (
            Side(namespace: prefix + "a", home: scratch + "/a", display: nil, address: "10.213.\(octet).1"),
            Side(namespace: prefix + "b", home: scratch + "/b", display: nil, address: "10.213.\(octet).2")
        )
    }

    /// A headless KDE Connect (kdeconnectd under Xvfb with a private D-Bus) in `side`'s namespace.
    func startKDEConnect(_ side: Side) throws -> String {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/lib/x86_64-linux-gnu/libexec/kdeconnectd"), "kdeconnect is not installed")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb"), "xvfb is not installed")
        let directory = side.home + "-kdeconnect"
        peers.append(directory)
        let started = try sh("'\(Self.script)' peer-start \(side.namespace!) '\(directory)'", timeout: 60)
        XCTAssertEqual(started.status, 0, started.stderr)
        return directory
    }

    /// A command in the KDE Connect peer's namespace with its D-Bus and display.
    func peer(_ side: Side, _ directory: String, _ command: String, stdin: Data? = nil) throws -> (status: Int32, text: String, stderr: String) {
        try sh("'\(Self.script)' peer \(side.namespace!) '\(directory)' " + command, stdin: stdin)
    }

    func kdeConnectID(_ side: Side, _ directory: String) throws -> String {
        try peer(side, directory, "kdeconnect-cli --my-id").text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// An Xvfb in `side`'s namespace (its socket is a file, so pbctl reaches it from there).
    func startXvfb(_ side: inout Side) throws {
        let file = scratch + "/xvfb-\(side.namespace!)"
        let output = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(output) }
        let child = try ChildProcess(
            ["/usr/sbin/ip", "netns", "exec", side.namespace!, "Xvfb", "-displayfd", "1", "-nolisten", "tcp"], environment: ["PATH": "/usr/bin:/bin"], stdout: output)
        children.append(child)
        var number = ""
        XCTAssertTrue(waitUntil(10) {
            number = ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            return !number.isEmpty
        }, "Xvfb did not start")
        side.display = ":" + number
    }

    /// `pbctl ARGUMENTS` on `side`.
    @discardableResult
    func pbctl(_ side: Side, _ arguments: [String], stdin: Data? = nil) throws -> (status: Int32, text: String, stderr: String) {
        try sh(pbctlCommand(side, arguments), stdin: stdin)
    }

    /// `pbctl ARGUMENTS` on `side` as a shell command.
    func pbctlCommand(_ side: Side, _ arguments: [String]) throws -> String {
        try FileManager.default.createDirectory(atPath: side.home + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let command = ([PbctlRunner.binary] + arguments).map(quoted).joined(separator: " ")
        let environment = side.environment.map { "\($0.key)=\(quoted($0.value))" }.joined(separator: " ")
        let prefix = side.namespace.map { "/usr/sbin/ip netns exec \($0) " } ?? ""
        return prefix + "env -i " + environment + " " + command
    }

    /// `pbctl daemon ARGUMENTS` on `side`, in the background, logging to its home.
    func startDaemon(_ side: Side, _ arguments: [String]) throws -> ChildProcess {
        let child = try spawnDaemon(side, arguments)
        // Up once its control socket answers.
        XCTAssertTrue(waitUntil(10) { (try? self.pbctl(side, ["devices", "--json"]))?.stderr.contains("no daemon") == false }, "the daemon did not start: \(daemonLog(side))")
        return child
    }

    /// ``startDaemon(_:_:)`` without waiting for it to answer.
    func spawnDaemon(_ side: Side, _ arguments: [String]) throws -> ChildProcess {
        try FileManager.default.createDirectory(atPath: side.home + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let log = open(side.home + "/daemon.log", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        defer { close(log) }
        var command = ["/usr/bin/env", "-i"] + side.environment.map { "\($0.key)=\($0.value)" } + [PbctlRunner.binary, "daemon", "--verbose"] + arguments
        if let namespace = side.namespace { command = ["/usr/sbin/ip", "netns", "exec", namespace] + command }
        let child = try ChildProcess(command, environment: ["PATH": "/usr/bin:/bin"], stdout: log, stderr: log)
        children.append(child)
        return child
    }

    func daemonLog(_ side: Side) -> String { (try? String(contentsOfFile: side.home + "/daemon.log", encoding: .utf8)) ?? "" }

    /// The device line of `id` in `pbctl devices` on `side`.
    func deviceLine(_ side: Side, _ id: String) -> String {
        ((try? pbctl(side, ["devices"]))?.text ?? "").split(separator: "\n").first { $0.hasPrefix(id) }.map(String.init) ?? ""
    }

    /// This side's device id (from its certificate, once the daemon made it).
    func deviceID(_ side: Side) throws -> String {
        let pem = try String(contentsOfFile: side.home + "/state/pbctl/kdeconnect/certificate.pem", encoding: .utf8)
        let out = try sh("printf '%s' \(quoted(pem)) | openssl x509 -noout -subject -nameopt multiline | sed -n 's/ *commonName *= *//p'")
        return out.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func waitUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(100_000)
        }
        return condition()
    }

    func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// `command` with sh, its status and output (children reaped with waitpid).
    func sh(_ command: String, stdin: Data? = nil, timeout: TimeInterval = 60) throws -> (status: Int32, text: String, stderr: String) {
        let id = UUID().uuidString.prefix(8)
        let base = scratch.isEmpty ? NSTemporaryDirectory() : scratch
        let (inPath, outPath, errPath) = ("\(base)/\(id).in", "\(base)/\(id).out", "\(base)/\(id).err")
        try (stdin ?? Data()).write(to: URL(fileURLWithPath: inPath))
        let input = open(inPath, O_RDONLY), output = open(outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600), errors = open(errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(input); close(output); close(errors) }
        let child = try ChildProcess(["/bin/sh", "-c", command], environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], stdin: input, stdout: output, stderr: errors)
        if !child.wait(timeout: timeout) {
            child.kill()
            XCTFail("timed out: \(command)")
        }
        let text = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        for path in [inPath, outPath, errPath] { unlink(path) }
        return (child.status ?? -1, text, stderr)
    }
}
