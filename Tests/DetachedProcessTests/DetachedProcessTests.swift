import Foundation
import XCTest
@testable import DetachedProcess
@testable import Pasteboard

/// The detached child's contract with real processes (`/bin/sh` as the child): the parent returns on
/// the child's report, never on its end; the child gets its input, /dev/null for output, no inherited
/// descriptors, a session of its own; every failure to report ends in an error within the deadline.
final class DetachedProcessTests: XCTestCase {
    var scratch = ""

    override func setUpWithError() throws {
        scratch = NSTemporaryDirectory() + "pbctl-detached-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: scratch) }

    func shell(_ script: String, input: DetachedProcess.Input = .bytes([]), timeout: Double = 10) throws {
        try DetachedProcess.spawn(executable: "/bin/sh", arguments: ["-c", script], input: input, timeout: timeout)
    }

    func contents(_ name: String, timeout: TimeInterval = 5) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: scratch + "/" + name, encoding: .utf8), text.hasSuffix("\n") { return text }
            usleep(20_000)
        }
        return nil
    }

    func testTheParentReturnsOnTheReportNotOnTheChildsEnd() throws {
        let start = Date()
        try shell("printf K >&3; exec 3>&-; sleep 30")
        XCTAssertLessThan(Date().timeIntervalSince(start), 10, "spawn waited for the child to end")
    }

    func testTheChildGetsItsInputAndNothingElse() throws {
        let parts = [Data("first ".utf8), Data("second\n".utf8)]
        // `touch` (a command of its own, no redirection in this shell) marks the moment the shell holds
        // only its standard descriptors: a redirection such as `>&3` briefly keeps a saved copy (fd 10),
        // and reading /proc while the shell is in one was a race that failed on a loaded machine.
        try shell(
            "cat > '\(scratch)/input'; echo $$ > '\(scratch)/pid'; printf K >&3; exec 3>&-; touch '\(scratch)/closed'; exec sleep 5",
            input: .bytes(parts))
        XCTAssertEqual(contents("input"), "first second\n")
        let pid = try XCTUnwrap(contents("pid").flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        defer { kill(pid, SIGKILL) }
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: scratch + "/closed"), Date() < deadline { usleep(10_000) }
        // Looked at from outside while it runs: standard output and error are /dev/null, nothing else
        // inherited, and it leads a session of its own.
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap(Int.init).sorted()
        XCTAssertEqual(descriptors, [0, 1, 2], "inherited descriptors")
        for fd in [1, 2] {
            XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"), "/dev/null")
        }
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = stat[stat.range(of: ")")!.upperBound...].split(separator: " ")
        XCTAssertEqual(fields[3], Substring(String(pid)), "the child's session is its own (stat: \(stat))")
    }

    func testAReportedErrorReachesTheParent() {
        XCTAssertThrowsError(try shell("printf 'E!no display here' >&3")) { error in
            let error = error as? PasteboardError
            XCTAssertEqual(error?.code, .unavailable)
            XCTAssertTrue(error?.message.contains("no display here") == true, error?.message ?? "")
        }
    }

    func testAChildThatExitsWithoutReportingIsAnError() {
        XCTAssertThrowsError(try shell("exit 3")) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .unavailable)
        }
    }

    func testAChildThatNeverReportsTimesOut() {
        let start = Date()
        XCTAssertThrowsError(try shell("sleep 30", timeout: 0.5))
        XCTAssertLessThan(Date().timeIntervalSince(start), 5, "the deadline was not kept")
    }

    func testAMissingExecutableIsAnError() {
        XCTAssertThrowsError(
            try DetachedProcess.spawn(executable: scratch + "/none", arguments: [], input: .bytes([]), timeout: 2))
    }

    /// A descriptor as input (what the X11 owner's memfd is): read from its start.
    func testADescriptorAsInput() throws {
        let path = scratch + "/archive"
        try Data("archived bytes\n".utf8).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        try shell("cat > '\(scratch)/copied'; printf K >&3", input: .descriptor(fd))
        XCTAssertEqual(contents("copied"), "archived bytes\n")
    }
}
