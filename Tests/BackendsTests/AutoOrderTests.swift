import XCTest
@testable import Backends
import Pasteboard

/// What `auto` tries, from the environment alone: the one order the full choice and both quick paths read.
final class AutoOrderTests: XCTestCase {
    func order(_ environment: [String: String]) -> AutoOrder { AutoOrder { environment[$0] } }

    func testTheOrderIsRemoteWaylandX11ThenTheStore() {
        let all = order(["PBCTL_REMOTE": "/tmp/s", "WAYLAND_DISPLAY": "wayland-1", "DISPLAY": ":0"])
        XCTAssertEqual(all.remote, "/tmp/s")
        XCTAssertEqual(all.wayland, "wayland-1")
        XCTAssertEqual(all.x11, ":0")
        XCTAssertFalse(all.isStoreOnly)
        XCTAssertTrue(order([:]).isStoreOnly)
        XCTAssertTrue(order(["DISPLAY": "", "WAYLAND_DISPLAY": "", "PBCTL_REMOTE": ""]).isStoreOnly, "empty counts as unset")
    }

    func testSessionsWhoseTerminalACopyIsMirroredTo() {
        XCTAssertEqual(order(["SSH_CONNECTION": "1 2 3 4"]).terminalSession, "an SSH session")
        XCTAssertEqual(order(["SSH_TTY": "/dev/pts/1"]).terminalSession, "an SSH session")
        XCTAssertEqual(order(["TMUX": "/tmp/t,1,0"]).terminalSession, "inside tmux")
        XCTAssertEqual(order(["STY": "1.pts"]).terminalSession, "inside GNU screen")
        XCTAssertNil(order([:]).terminalSession)
    }

    func testTheRequestedKind() {
        XCTAssertEqual(AutoOrder.requestedKind { _ in nil }, .auto)
        XCTAssertEqual(AutoOrder.requestedKind { $0 == "PBCTL_BACKEND" ? "" : nil }, .auto)
        XCTAssertEqual(AutoOrder.requestedKind { $0 == "PBCTL_BACKEND" ? "X11" : nil }, .x11)
        XCTAssertNil(AutoOrder.requestedKind { $0 == "PBCTL_BACKEND" ? "nonsense" : nil })
    }

    func testTheQuickCopyGoesToTheStoreOnlyWhereTheFullOneWould() {
        XCTAssertTrue(BackendChoice.copiesToTheStoreAlone { [:][$0] })
        XCTAssertTrue(BackendChoice.copiesToTheStoreAlone { ["PBCTL_BACKEND": "store", "DISPLAY": ":0"][$0] })
        XCTAssertFalse(BackendChoice.copiesToTheStoreAlone { ["DISPLAY": ":0"][$0] })
        XCTAssertFalse(BackendChoice.copiesToTheStoreAlone { ["TMUX": "x"][$0] }, "mirrored to the terminal")
        XCTAssertFalse(BackendChoice.copiesToTheStoreAlone { ["PBCTL_BACKEND": "osc52"][$0] })
    }

    func testOneSizeReading() {
        XCTAssertEqual(ByteSize.parse("512"), 512)
        XCTAssertEqual(ByteSize.parse("64k"), 64 << 10)
        XCTAssertEqual(ByteSize.parse("300MiB"), 300 << 20)
        XCTAssertEqual(ByteSize.parse("2GB"), 2 << 30)
        XCTAssertEqual(ByteSize.parse("0"), 0, "zero is a size; callers say whether they take it")
        for bad in ["", "M", "-1", "1.5M", "+3", "12X", "99999999999999999999", "9000000T"] { XCTAssertNil(ByteSize.parse(bad), bad) }
    }
}
