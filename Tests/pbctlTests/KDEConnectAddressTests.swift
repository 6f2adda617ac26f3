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
