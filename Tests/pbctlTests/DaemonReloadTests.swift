import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Issue 46, rules are live: `pbctl daemon` applies an edited configuration (the file changed, or
/// SIGHUP as the unit's ExecReload sends) to the next copy without restarting, SIGHUP no longer stops
/// it, and entries past history.max-age are removed when they pass it, not at the next copy.
final class DaemonReloadTests: X11TestCase {
    let xclip = "/usr/bin/xclip"

    func configure(_ text: String) throws {
        let folder = scratch + "/config/pbctl"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Written aside and renamed into place, as editors save.
        try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/config"), options: .atomic)
    }

    func history() throws -> String {
        try run([pbctl, "history"], environment: ["XDG_CONFIG_HOME": scratch + "/config"]).text
    }

    /// A real owner, xclip, takes the clipboard with `text` and stays (until the next owner).
    func copyWithXclip(_ text: String) throws {
        let file = scratch + "/owned-\(UUID().uuidString)"
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        try startPeer([xclip, "-quiet", "-i", "-selection", "clipboard", file], waitFor: nil)
    }

    func testAnEditedRuleAppliesToTheNextCopyAndSIGHUPReloadsWithoutStopping() throws {
        try requireTool(xclip)
        try configure("# nothing yet\n")
        let daemon = try startDaemon(environment: ["XDG_CONFIG_HOME": scratch + "/config"])
        try copyWithXclip("token=first-7731")
        XCTAssertTrue(try eventually(timeout: 10) { try history().contains("token=first-7731") })
        // A rule saved while the daemon runs: the next token is never recorded.
        try configure("history.ignore-regex = ^token=\n")
        var log = ""
        XCTAssertTrue(eventually(timeout: 10) {
            log += stderrText(daemon)
            return log.contains("configuration read again")
        }, log)
        try copyWithXclip("token=second-7732")
        XCTAssertTrue(eventually(timeout: 10) {
            log += stderrText(daemon)
            return log.contains("not recorded: history.ignore-regex matches it")
        }, log)
        try copyWithXclip("plain after the rule")
        XCTAssertTrue(try eventually(timeout: 10) { try history().contains("plain after the rule") })
        let listed = try history()
        XCTAssertFalse(listed.contains("token=second-7732"), listed)
        // Changed again (the token rule given up), then SIGHUP: read once more, and the daemon runs on.
        func reads() -> Int {
            log += stderrText(daemon)
            return log.components(separatedBy: "configuration read again").count - 1
        }
        let before = reads()
        try configure("history.ignore-regex = ^secret=\n")
        XCTAssertTrue(eventually(timeout: 10) { reads() > before }, log)
        usleep(500_000)
        let settled = reads()
        kill(daemon.child.pid, SIGHUP)
        XCTAssertTrue(eventually(timeout: 10) { reads() > settled }, log)
        XCTAssertTrue(daemon.child.isRunning, "SIGHUP stopped the daemon")
        try copyWithXclip("token=third-7733")
        XCTAssertTrue(try eventually(timeout: 10) { try history().contains("token=third-7733") }, "the rule given up on reload still applied")
        XCTAssertTrue(try managerOwned())
    }

    func testEntriesPastTheAgeLimitAreRemovedWhenTheyPassIt() throws {
        try requireTool(xclip)
        try configure("history.max-age = 2s\n")
        try startDaemon(environment: ["XDG_CONFIG_HOME": scratch + "/config"])
        try copyWithXclip("short-lived 5521")
        XCTAssertTrue(try eventually(timeout: 10) { try history().contains("short-lived 5521") })
        XCTAssertEqual(try run([pbctl, "history", "pin", "1"]).status, 0)
        try copyWithXclip("shorter-lived 5522")
        XCTAssertTrue(try eventually(timeout: 10) { try history().contains("shorter-lived 5522") })
        // No copy follows: the daemon removes it by itself, from the database as well as from listings.
        XCTAssertTrue(try eventually(timeout: 15) {
            let rows = try run(["/usr/bin/sqlite3", scratch + "/history/history.db", "SELECT count(*) FROM entry"]).text
            return rows.trimmingCharacters(in: .whitespacesAndNewlines) == "1"
        }, "the expired entry is still in the database")
        XCTAssertEqual(try history(), "1\tshort-lived 5521\n", "the pinned entry stays")
    }

    /// Issue 46: the daemon says why the history failed, with its cause, once per cause (every copy
    /// on a refused folder fails the same way), and keeps the clipboard all the same.
    func testAHistoryFailureIsSaidWithItsCauseOnce() throws {
        try requireTool(xclip)
        // A file where the history's folder should be.
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: scratch + "/history"))
        let daemon = try startDaemon()
        var log = ""
        try copyWithXclip("first 8811")
        XCTAssertTrue(eventually(timeout: 10) {
            log += stderrText(daemon)
            return log.contains("could not record the clipboard: ")
        }, log)
        try copyWithXclip("second 8812")
        XCTAssertTrue(eventually(timeout: 10) {
            log += stderrText(daemon)
            return log.components(separatedBy: "history: could not record: ").count - 1 >= 2
        }, log)
        XCTAssertEqual(log.components(separatedBy: "could not record the clipboard: ").count - 1, 1, log)
        XCTAssertTrue(log.contains(scratch + "/history"), "the cause names the history: \(log)")
        XCTAssertTrue(daemon.child.isRunning)
        XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard"], timeout: 5).text, "second 8812")
    }
}
