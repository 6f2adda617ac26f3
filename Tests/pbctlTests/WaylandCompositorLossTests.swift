import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The compositor going away while pbctl's owner is writing: the transfer does not depend on it (the
/// reader holds a pipe), so the owner finishes it before exiting. Its own sway: the test kills it.
final class WaylandCompositorLossTests: WaylandTestCase {
    func testTheOwnerFinishesATransferWhenTheCompositorDies() throws {
        let payload = scratch + "/payload.txt"
        XCTAssertEqual(try run(["/bin/sh", "-c", "head -c 20000000 /dev/urandom | base64 > '\(payload)'"]).status, 0)
        XCTAssertEqual(try run([pbctl, "copy", "--type", "txt", payload], timeout: 20).status, 0)
        // A reader that takes its time: the owner is mid-transfer when the compositor dies.
        let output = scratch + "/out.txt"
        let reader = try startPeer(["/bin/sh", "-c", "/usr/bin/wl-paste --no-newline | (sleep 1.5; cat > '\(output)')"], waitFor: nil)
        usleep(500_000)
        XCTAssertEqual(kill(Self.swayPID, SIGTERM), 0)
        XCTAssertTrue(reader.child.wait(timeout: 30), "the reader never got to the end")
        let got = try Data(contentsOf: URL(fileURLWithPath: output))
        let expected = try Data(contentsOf: URL(fileURLWithPath: payload))
        XCTAssertEqual(got.count, expected.count, "the transfer was cut when the compositor went away")
        XCTAssertTrue(got == expected)
        // With the compositor gone, pbctl says so (exit 69) and does not hang.
        let paste = try run([pbctl, "paste"], timeout: 10)
        XCTAssertEqual(paste.status, 69, paste.stderr)
    }
}
