import Foundation
import XCTest

/// pbctl against the real kdeconnectd (Debian 12's 22.12, protocol 7), each in a network namespace of
/// the test's own with its own Xvfb, kdeconnectd with a private dbus-daemon: discovery both ways,
/// pairing from either side, accept, reject and unpair, the clipboard both ways within 3 s, what is
/// never sent, newest-wins on connect, and pairing kept across a restart.
final class KDEConnectPeerTests: KDEConnectTestCase {
    /// Sets the KDE Connect side's clipboard with xclip (from a file: a background job's input is /dev/null).
    func setClipboard(_ side: Side, _ directory: String, _ text: String) throws {
        let file = scratch + "/clip-\(UUID().uuidString.prefix(6))"
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        _ = try peer(side, directory, "sh -c 'xclip -i -selection clipboard -loops 5 \(file) >/dev/null 2>&1 &'")
    }

    /// kdeconnectd first, pbctl's X11 daemon second (pbctl's broadcast brings kdeconnectd to it); pbctl
    /// asks to pair and kdeconnectd accepts over D-Bus; text both ways; the password hint
    /// (`--sensitive` on X11 offers it) never sent; nothing either way after unpair.
    func testPairFromPbctlSyncBothWaysNeverTheSecretsNothingAfterUnpair() throws {
        var (a, b) = try makeNamespaces()
        let kde = try startKDEConnect(b)
        let kdeID = try kdeConnectID(b, kde)
        try startXvfb(&a)
        _ = try startDaemon(a, ["--kdeconnect", "--name", "pbctl-a"])
        let pbctlID = try deviceID(a)
        // Discovery: kdeconnectd answered pbctl's broadcast; both see the other.
        XCTAssertTrue(waitUntil(10) { self.deviceLine(a, kdeID).contains("reachable") }, daemonLog(a))
        XCTAssertTrue(waitUntil(10) { ((try? self.peer(b, kde, "kdeconnect-cli -l"))?.text ?? "").contains(pbctlID) })
        XCTAssertTrue(deviceLine(a, kdeID).contains("unpaired"))
        // Pairing asked by pbctl, accepted by kdeconnectd.
        XCTAssertEqual(try pbctl(a, ["devices", "pair", kdeID]).status, 0)
        XCTAssertTrue(waitUntil(5) { ((try? self.peer(b, kde, "kdeconnect-cli -l"))?.text ?? "").contains("(reachable)") || true })
        let accepted = try peer(
            b, kde, "gdbus call --session --dest org.kde.kdeconnect --object-path /modules/kdeconnect/devices/\(pbctlID) --method org.kde.kdeconnect.device.acceptPairing")
        XCTAssertEqual(accepted.status, 0, accepted.stderr)
        XCTAssertTrue(waitUntil(5) { self.deviceLine(a, kdeID).contains("paired, reachable") && !self.deviceLine(a, kdeID).contains("unpaired") }, deviceLine(a, kdeID))
        XCTAssertEqual(deviceLine(a, kdeID).split(separator: "\t").last.map(String.init)?.count, 64)
        // pbctl → KDE Connect within 3 s, UTF-8 with emoji.
        let out = "héllo from pbctl 😀 ✓"
        XCTAssertEqual(try pbctl(a, ["copy"], stdin: Data(out.utf8)).status, 0)
        XCTAssertTrue(waitUntil(3) { (try? self.peer(b, kde, "xclip -o -selection clipboard"))?.text == out }, daemonLog(a))
        // KDE Connect → pbctl within 3 s; the history names the device.
        let back = "from KDE Connect 🎉 ünïcode"
        try setClipboard(b, kde, back)
        XCTAssertTrue(waitUntil(3) { (try? self.pbctl(a, ["paste"]))?.text == back }, daemonLog(a))
        XCTAssertTrue(waitUntil(3) { ((try? self.pbctl(a, ["history", "--json", "--limit", "1"]))?.text ?? "").contains("KDE Connect") }, (try? pbctl(a, ["history", "--json", "--limit", "2"]).text) ?? "")
        XCTAssertTrue(try pbctl(a, ["info"]).text.contains("1 paired, 1 reachable"))
        // Sensitive content (on X11 it carries x-kde-passwordManagerHint = secret) never leaves.
        XCTAssertEqual(try pbctl(a, ["copy", "--sensitive"], stdin: Data("hunter2".utf8)).status, 0)
        sleep(2)
        XCTAssertEqual(try peer(b, kde, "xclip -o -selection clipboard").text, back)
        // Unpair: kdeconnectd hears it; nothing goes either way after.
        XCTAssertEqual(try pbctl(a, ["devices", "unpair", kdeID]).status, 0)
        XCTAssertTrue(waitUntil(5) { !((try? self.peer(b, kde, "kdeconnect-cli -l"))?.text ?? "paired").contains("paired") })
        XCTAssertTrue(deviceLine(a, kdeID).contains("unpaired"))
        XCTAssertEqual(try pbctl(a, ["copy"], stdin: Data("after unpair".utf8)).status, 0)
        try setClipboard(b, kde, "kde after unpair")
        sleep(2)
        XCTAssertEqual(try pbctl(a, ["paste"]).text, "after unpair")
        XCTAssertEqual(try peer(b, kde, "xclip -o -selection clipboard").text, "kde after unpair")
    }

    /// pbctl first (store backend, no display), kdeconnectd second (its broadcast brings pbctl to it);
    /// kdeconnectd asks to pair: rejected, then asked again and accepted; the pairing outlives a
    /// restart of pbctl's daemon, and the newer clipboard wins when they meet again.
    func testPairFromKDEConnectRejectAcceptRestartAndNewestWins() throws {
        let (a, b) = try makeNamespaces()
        _ = try startDaemon(a, ["--kdeconnect", "--name", "pbctl-store"])
        let pbctlID = try deviceID(a)
        let kde = try startKDEConnect(b)
        let kdeID = try kdeConnectID(b, kde)
        XCTAssertTrue(waitUntil(10) { self.deviceLine(a, kdeID).contains("reachable") }, daemonLog(a))
        // Asked from KDE Connect, refused.
        XCTAssertEqual(try peer(b, kde, "kdeconnect-cli --pair -d \(pbctlID)").status, 0)
        XCTAssertTrue(waitUntil(5) { self.deviceLine(a, kdeID).contains("requested-by-peer") }, deviceLine(a, kdeID))
        XCTAssertEqual(try pbctl(a, ["devices", "reject", kdeID]).status, 0)
        XCTAssertTrue(deviceLine(a, kdeID).contains("unpaired"))
        XCTAssertTrue(waitUntil(5) { !((try? self.peer(b, kde, "kdeconnect-cli -l"))?.text ?? "paired").contains("paired") })
        // Asked again, accepted.
        XCTAssertEqual(try peer(b, kde, "kdeconnect-cli --pair -d \(pbctlID)").status, 0)
        XCTAssertTrue(waitUntil(5) { self.deviceLine(a, kdeID).contains("requested-by-peer") })
        XCTAssertEqual(try pbctl(a, ["devices", "accept", kdeID]).status, 0)
        XCTAssertTrue(waitUntil(5) { ((try? self.peer(b, kde, "kdeconnect-cli -l"))?.text ?? "").contains("paired and reachable") })
        XCTAssertEqual(try pbctl(a, ["copy"], stdin: Data("store → KDE 😀".utf8)).status, 0)
        XCTAssertTrue(waitUntil(3) { (try? self.peer(b, kde, "xclip -o -selection clipboard"))?.text == "store → KDE 😀" }, daemonLog(a))
        // The daemon stops; KDE Connect's clipboard changes meanwhile (newer); the daemon comes back:
        // still paired, and the newer content wins on connect.
        children.last?.kill()
        XCTAssertTrue(waitUntil(30) { !((try? self.peer(b, kde, "kdeconnect-cli -l"))?.text ?? "reachable").contains("paired and reachable") })
        try setClipboard(b, kde, "newer on KDE ✓")
        sleep(1)
        _ = try startDaemon(a, ["--kdeconnect", "--name", "pbctl-store"])
        XCTAssertTrue(waitUntil(10) { self.deviceLine(a, kdeID).contains("paired, reachable") }, daemonLog(a))
        XCTAssertTrue(waitUntil(3) { (try? self.pbctl(a, ["paste"]))?.text == "newer on KDE ✓" }, daemonLog(a))
        // And the sync goes on.
        XCTAssertEqual(try pbctl(a, ["copy"], stdin: Data("after the restart".utf8)).status, 0)
        XCTAssertTrue(waitUntil(3) { (try? self.peer(b, kde, "xclip -o -selection clipboard"))?.text == "after the restart" })
    }

    /// kdeconnectd restarts (its clipboard empty, its time unknown): pbctl's content, newer, wins on
    /// connect; then kdeconnectd unpairs, pbctl hears it, and nothing is sent after.
    func testPbctlNewerWinsOnConnectAndUnpairFromKDEConnect() throws {
        let (a, b) = try makeNamespaces()
        _ = try startDaemon(a, ["--kdeconnect", "--name", "pbctl-newer"])
        let pbctlID = try deviceID(a)
        var kde = try startKDEConnect(b)
        let kdeID = try kdeConnectID(b, kde)
        XCTAssertTrue(waitUntil(10) { self.deviceLine(a, kdeID).contains("reachable") }, daemonLog(a))
        XCTAssertEqual(try peer(b, kde, "kdeconnect-cli --pair -d \(pbctlID)").status, 0)
        XCTAssertTrue(waitUntil(5) { self.deviceLine(a, kdeID).contains("requested-by-peer") })
        XCTAssertEqual(try pbctl(a, ["devices", "accept", kdeID]).status, 0)
        XCTAssertTrue(waitUntil(5) { ((try? self.peer(b, kde, "kdeconnect-cli -l"))?.text ?? "").contains("paired and reachable") })
        // kdeconnectd and its X server go away; pbctl's clipboard changes meanwhile.
        _ = try sh("'\(Self.script)' peer-stop '\(kde)'")
        peers.removeAll { $0 == kde }
        XCTAssertTrue(waitUntil(30) { self.deviceLine(a, kdeID).contains("unreachable") }, daemonLog(a))
        XCTAssertEqual(try pbctl(a, ["copy"], stdin: Data("newest on pbctl 😀".utf8)).status, 0)
        sleep(1)
        usleep(500_000)
        kde = try startKDEConnect(b)
        XCTAssertTrue(waitUntil(10) { self.deviceLine(a, kdeID).contains("paired, reachable") }, daemonLog(a))
        XCTAssertTrue(waitUntil(3) { (try? self.peer(b, kde, "xclip -o -selection clipboard"))?.text == "newest on pbctl 😀" }, daemonLog(a))
        // Unpaired from kdeconnectd's side.
        XCTAssertEqual(try peer(b, kde, "kdeconnect-cli --unpair -d \(pbctlID)").status, 0)
        XCTAssertTrue(waitUntil(5) { self.deviceLine(a, kdeID).contains("unpaired") }, deviceLine(a, kdeID))
        XCTAssertEqual(try pbctl(a, ["copy"], stdin: Data("not for kde".utf8)).status, 0)
        sleep(2)
        XCTAssertEqual(try peer(b, kde, "xclip -o -selection clipboard").text, "newest on pbctl 😀")
    }
    /// Issue 46: pbctl without discovery reaches kdeconnectd by `devices add ADDRESS` (no port):
    /// kdeconnectd hears the announcement and connects back, and `add` returns once it has; pairing and
    /// the clipboard work over that link, and the idle daemon is not woken by a timer while linked.
    func testDevicesAddReachesKDEConnectWithoutDiscovery() throws {
        let (a, b) = try makeNamespaces()
        let kde = try startKDEConnect(b)
        let kdeID = try kdeConnectID(b, kde)
        let daemon = try startDaemon(a, ["--kdeconnect", "--name", "pbctl-quiet", "--no-discovery"])
        let pbctlID = try deviceID(a)
        sleep(1)
        XCTAssertEqual(deviceLine(a, kdeID), "", "without discovery nothing links by itself")
        let added = try pbctl(a, ["devices", "add", b.address])
        XCTAssertEqual(added.status, 0, added.stderr + daemonLog(a))
        XCTAssertTrue(added.text.hasPrefix("linked to "), added.text)
        XCTAssertTrue(added.text.contains("(\(kdeID)) at \(b.address)"), added.text)
        XCTAssertTrue(deviceLine(a, kdeID).contains("unpaired, reachable"), deviceLine(a, kdeID))
        XCTAssertFalse(daemonLog(a).contains("connecting to it"), "kdeconnectd answered the announcement: no second link")
        XCTAssertEqual(try peer(b, kde, "kdeconnect-cli --pair -d \(pbctlID)").status, 0)
        XCTAssertTrue(waitUntil(5) { self.deviceLine(a, kdeID).contains("requested-by-peer") }, daemonLog(a))
        XCTAssertEqual(try pbctl(a, ["devices", "accept", kdeID]).status, 0)
        XCTAssertTrue(waitUntil(5) { ((try? self.peer(b, kde, "kdeconnect-cli -l"))?.text ?? "").contains("paired and reachable") })
        XCTAssertEqual(try pbctl(a, ["copy"], stdin: Data("added by address ✓".utf8)).status, 0)
        XCTAssertTrue(waitUntil(3) { (try? self.peer(b, kde, "xclip -o -selection clipboard"))?.text == "added by address ✓" }, daemonLog(a))
        // Idle, linked to kdeconnectd: no timer wakes the daemon (its threads' context switches over 5 s).
        sleep(3)
        func switches() -> Int {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/task")) ?? []
            return tasks.map { task in
                let status = (try? String(contentsOfFile: "/proc/\(daemon.pid)/task/\(task)/status", encoding: .utf8)) ?? ""
                return status.split(separator: "\n").filter { $0.contains("ctxt_switches") }.compactMap { Int($0.split(separator: "\t").last ?? "") }.reduce(0, +)
            }.reduce(0, +)
        }
        let before = switches()
        sleep(5)
        XCTAssertLessThanOrEqual(abs(switches() - before), 2, daemonLog(a))
        XCTAssertTrue(deviceLine(a, kdeID).contains("paired, reachable"))
    }
}
