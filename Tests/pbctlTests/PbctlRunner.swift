import Foundation
import XCTest

/// Runs the built `pbctl` binary as a user would and captures what it prints (swift-argument-parser's
/// `AssertExecuteCommand` style). Each test gets its own private store and no display.
struct PbctlRunner: Sendable {
    let store: String
    var environment: [String: String]

    static var binary: String {
        if let explicit = ProcessInfo.processInfo.environment["PBCTL_BINARY"] { return explicit }
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // The .xctest bundle may be a directory on some platforms.
        if directory.lastPathComponent.hasSuffix(".xctest") { directory = directory.deletingLastPathComponent() }
        return directory.appendingPathComponent("pbctl").path
    }

    init(store: String) {
        self.store = store
        var environment = ProcessInfo.processInfo.environment
        environment["PBCTL_STORE"] = store
        environment["PBCTL_HISTORY"] = store + "-history"
        environment.removeValue(forKey: "DISPLAY")
        environment.removeValue(forKey: "WAYLAND_DISPLAY")
        environment.removeValue(forKey: "PBCTL_BACKEND")
        self.environment = environment
    }

    struct Result {
        var status: Int32
        var stdout: Data
        var stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    @discardableResult
    func run(_ arguments: [String], stdin: Data? = nil, executable: String? = nil) throws -> Result {
        // pbctl may stop reading its input early (a full disk, --max-size): the write then fails with
        // EPIPE instead of killing the test process.
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable ?? Self.binary)
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        if let stdin {
            DispatchQueue.global().async {
                try? input.fileHandleForWriting.write(contentsOf: stdin)
                try? input.fileHandleForWriting.close()
            }
        }
        let out = Box()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            out.data = output.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: out.data, stderr: String(decoding: err, as: UTF8.self))
    }

    func run(_ arguments: String..., stdin: String? = nil) throws -> Result {
        try run(arguments, stdin: stdin.map { Data($0.utf8) })
    }
}

/// Data handed from a reader thread; the DispatchGroup orders the accesses.
final class Box: @unchecked Sendable {
    var data = Data()
}

class PbctlTestCase: XCTestCase {
    var pbctl: PbctlRunner!
    var scratch = ""

    override func setUpWithError() throws {
        scratch = NSTemporaryDirectory() + "pbctl-cli-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        pbctl = PbctlRunner(store: scratch + "/store")
        try XCTSkipUnless(
            FileManager.default.isExecutableFile(atPath: PbctlRunner.binary),
            "pbctl binary not built at \(PbctlRunner.binary)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: scratch)
    }
}
