import Foundation
import XCTest

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
