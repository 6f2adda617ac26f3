import Foundation
import XCTest

/// `pbctl devices add ADDRESS` between daemons that do not listen for announcements (`--no-discovery`),
/// in network namespaces of the test's own: an address given by the user links, or the command fails
/// saying why; and an idle daemon is not woken by a timer.
final class KDEConnectAddressTests: KDEConnectTestCase {
    /// Issue 46: two `--no-discovery` daemons that each `devices add` the other (no port, both at once)
    /// link, and `add` returns once they have; they pair, sync, and find each other again after both
    /// restart at once (the address on record, the paired device where it was last seen).
    func testTwoDaemonsWithoutDiscoveryEachAddTheOtherByAddress() throws {
        let (a, b) = try makeNamespaces()
        let daemonA = try startDaemon(a, ["--kdeconnect", "--name", "addr-a", "--no-discovery"])
        let daemonB = try startDaemon(b, ["--kdeconnect", "--name", "addr-b", "--no-discovery"])
        let idA = try deviceID(a), idB = try deviceID(b)
        // Both at once: each command waits for the link, and reports it.
        let both = try sh(
            "(\(try pbctlCommand(a, ["devices", "add", b.address])); echo \"status $?\") & (\(try pbctlCommand(b, ["devices", "add", a.address])); echo \"status $?\") & wait")
        let lines = both.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0 == "status 0" }.count, 2, both.text + both.stderr + daemonLog(a) + daemonLog(b))
        XCTAssertTrue(lines.contains { $0.hasPrefix("linked to addr-b (\(idB)) at \(b.address)") }, both.text)
        XCTAssertTrue(lines.contains { $0.hasPrefix("linked to addr-a (\(idA)) at \(a.address)") }, both.text)
        // Up when the command returned, and still up once both sides settled on one link.
        XCTAssertTrue(deviceLine(a, idB).contains("unpaired, reachable"), deviceLine(a, idB))
        sleep(3)
        XCTAssertTrue(deviceLine(a, idB).contains("unpaired, reachable"), daemonLog(a))
        XCTAssertTrue(deviceLine(b, idA).contains("unpaired, reachable"), daemonLog(b))
        // Adding again answers at once from the link that is up.
        XCTAssertEqual(try pbctl(a, ["devices", "add", b.address]).status, 0)
        XCTAssertEqual(try pbctl(a, ["devices", "pair", idB]).status, 0)
        XCTAssertTrue(waitUntil(5) { self.deviceLine(b, idA).contains("requested-by-peer") }, daemonLog(b))
        XCTAssertEqual(try pbctl(b, ["devices", "accept", idA]).status, 0)
        XCTAssertTrue(waitUntil(5) { self.deviceLine(a, idB).hasPrefix(idB + "\taddr-b\tpaired, reachable") }, deviceLine(a, idB))
        XCTAssertEqual(try pbctl(a, ["copy"], stdin: Data("by address".utf8)).status, 0)
        XCTAssertTrue(waitUntil(5) { (try? self.pbctl(b, ["paste"]))?.text == "by address" }, daemonLog(b))
        // Both restart at once: they find each other again.
        daemonA.kill()
        daemonB.kill()
        XCTAssertTrue(waitUntil(5) { daemonA.wait(timeout: 0) && daemonB.wait(timeout: 0) })
        _ = try spawnDaemon(a, ["--kdeconnect", "--name", "addr-a", "--no-discovery"])
        _ = try spawnDaemon(b, ["--kdeconnect", "--name", "addr-b", "--no-discovery"])
        XCTAssertTrue(waitUntil(10) { self.deviceLine(a, idB).contains("paired, reachable") && self.deviceLine(b, idA).contains("paired, reachable") }, daemonLog(a) + daemonLog(b))
        sleep(3)
        XCTAssertTrue(deviceLine(a, idB).contains("paired, reachable") && deviceLine(b, idA).contains("paired, reachable"), daemonLog(a) + daemonLog(b))
        XCTAssertEqual(try pbctl(b, ["copy"], stdin: Data("after the restart".utf8)).status, 0)
        XCTAssertTrue(waitUntil(5) { (try? self.pbctl(a, ["paste"]))?.text == "after the restart" }, daemonLog(a))
    }

    /// Where nothing links, `add` fails with the reason and exit 69 (a port refused, a host that is not
    /// there), an address that is not one with 64; nothing is kept to try again.
    func testAnAddressWhereNothingLinksFailsSayingWhy() throws {
        let (a, b) = try makeNamespaces()
        _ = try startDaemon(a, ["--kdeconnect", "--name", "lonely", "--no-discovery"])
        let refused = try pbctl(a, ["devices", "add", b.address])
        XCTAssertEqual(refused.status, 69, refused.text)
        XCTAssertTrue(refused.stderr.contains("cannot link to \(b.address): cannot connect to \(b.address):1716: Connection refused"), refused.stderr)
        let absent = "10.213.\(octet).3"
        let nobody = try pbctl(a, ["devices", "add", absent + ":1739"])
        XCTAssertEqual(nobody.status, 69, nobody.text)
        XCTAssertTrue(nobody.stderr.contains("cannot link to \(absent):1739: "), nobody.stderr)
        let bad = try pbctl(a, ["devices", "add", "a b"])
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.contains("not an address"), bad.stderr)
        let unknown = try pbctl(a, ["devices", "add", "nowhere.invalid"])
        XCTAssertEqual(unknown.status, 69)
        XCTAssertTrue(unknown.stderr.contains("nowhere.invalid: not an IPv4 address, nor a name that resolves to one"), unknown.stderr)
        let records = (try? String(contentsOfFile: a.home + "/state/pbctl/kdeconnect/devices.json", encoding: .utf8)) ?? ""
        XCTAssertFalse(records.contains(b.address), records)
        XCTAssertFalse(records.contains(absent), records)
        // A daemon that comes up there later is linked by the same command.
        _ = try startDaemon(b, ["--kdeconnect", "--name", "late", "--no-discovery"])
        let linked = try pbctl(a, ["devices", "add", b.address])
        XCTAssertEqual(linked.status, 0, linked.stderr)
        XCTAssertTrue(linked.text.hasPrefix("linked to late ("), linked.text)
        XCTAssertTrue(try String(contentsOfFile: a.home + "/state/pbctl/kdeconnect/devices.json", encoding: .utf8).contains(b.address))
    }
}

/// Issue 46: an idle `--kdeconnect` daemon wakes only when there is work, alone or with a paired device
/// linked: its threads' context switches over 5 s (a daemon with a 250 ms timer made about 25).
final class KDEConnectIdleTests: KDEConnectTestCase {
    /// Context switches of every thread of `pid` (threads gone or new between two samples count too).
    func switches(_ pid: pid_t) -> [String: Int] {
        var result: [String: Int] = [:]
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)) ?? ""
            result[task] = status.split(separator: "\n").filter { $0.contains("ctxt_switches") }.compactMap { Int($0.split(separator: "\t").last ?? "") }.reduce(0, +)
        }
        return result
    }

    func wakeUps(_ pid: pid_t, over seconds: UInt32) -> Int {
        let before = switches(pid)
        sleep(seconds)
        let after = switches(pid)
        let changed = after.reduce(0) { $0 + $1.value - (before[$1.key] ?? 0) }
        return changed + before.keys.filter { after[$0] == nil }.count
    }

    func testAnIdleDaemonIsNotWokenByATimer() throws {
        let (a, b) = try makeNamespaces()
        // Alone, with discovery (the next broadcast is 2 minutes away).
        let alone = try startDaemon(a, ["--kdeconnect", "--name", "idle-a"])
        sleep(2)
        let aloneWakeUps = wakeUps(alone.pid, over: 5)
        XCTAssertLessThanOrEqual(aloneWakeUps, 2, daemonLog(a))
        // Linked to a paired device, without discovery.
        let other = try startDaemon(b, ["--kdeconnect", "--name", "idle-b", "--no-discovery"])
        let idA = try deviceID(a), idB = try deviceID(b)
        XCTAssertEqual(try pbctl(b, ["devices", "add", a.address]).status, 0, daemonLog(b))
        XCTAssertEqual(try pbctl(b, ["devices", "pair", idA]).status, 0)
        XCTAssertTrue(waitUntil(5) { self.deviceLine(a, idB).contains("requested-by-peer") }, daemonLog(a))
        XCTAssertEqual(try pbctl(a, ["devices", "accept", idB]).status, 0)
        XCTAssertEqual(try pbctl(a, ["copy"], stdin: Data("wake".utf8)).status, 0)
        XCTAssertTrue(waitUntil(5) { (try? self.pbctl(b, ["paste"]))?.text == "wake" }, daemonLog(b))
        sleep(2)
        let linkedWakeUps = (wakeUps(alone.pid, over: 5), wakeUps(other.pid, over: 5))
        // A worker thread retiring after the copy may count once.
        XCTAssertLessThanOrEqual(linkedWakeUps.0, 2, daemonLog(a))
        XCTAssertLessThanOrEqual(linkedWakeUps.1, 2, daemonLog(b))
        XCTAssertTrue(deviceLine(b, idA).contains("paired, reachable"))
        print("wake-ups over 5 s: alone \(aloneWakeUps), linked \(linkedWakeUps.0) and \(linkedWakeUps.1)")
    }
}
