import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `pbctl daemon` when its compositor goes away: not a success (exit 69), so the user unit's
/// Restart=on-failure starts it again. Its own sway: the test kills it.
final class WaylandDaemonCompositorLossTests: WaylandTestCase {
    func testTheDaemonExits69WhenTheCompositorGoesAway() throws {
        let daemon = try startPeer([pbctl, "daemon"], waitFor: nil)
        XCTAssertTrue(try eventually(timeout: 10) { try run([pbctl, "daemon", "--status"]).status == 0 }, "the daemon did not start: \(stderrText(daemon))")
        XCTAssertEqual(try run([pbctl, "copy"], input: Data("kept".utf8), timeout: 20).status, 0)
        XCTAssertEqual(kill(Self.swayPID, SIGTERM), 0)
        XCTAssertTrue(daemon.child.wait(timeout: 10), "the daemon outlived its compositor")
        XCTAssertEqual(daemon.child.status, 69, stderrText(daemon))
        let message = stderrText(daemon)
        XCTAssertTrue(message.contains("exiting with status 69"), message)
    }
}
