import Foundation
import XCTest

/// The Wayland daemon as a KDE Connect device (headless sway), linked on loopback with discovery off to
/// a second pbctl device on the store: wl-copy's copy reaches the other device, and what it sends
/// becomes the compositor's clipboard, recorded with the device as its application.
final class KDEConnectWaylandTests: WaylandTestCase {
    func testTheWaylandClipboardSyncsBothWays() throws {
        let wayland = scratch + "/wayland-device", store = scratch + "/store-device"
        var waylandEnvironment = environment
        waylandEnvironment["XDG_STATE_HOME"] = wayland
        var storeEnvironment = environment
        storeEnvironment["XDG_STATE_HOME"] = store
        storeEnvironment["PBCTL_BACKEND"] = "store"
        storeEnvironment["PBCTL_STORE"] = scratch + "/other-store"
        storeEnvironment["PBCTL_HISTORY"] = scratch + "/other-history"
        storeEnvironment.removeValue(forKey: "WAYLAND_DISPLAY")
        storeEnvironment.removeValue(forKey: "DISPLAY")
        let flags = ["--kdeconnect", "--no-discovery", "--listen", "127.0.0.1"]
        spawned.append(try Spawned([pbctl, "daemon", "--wayland", "--verbose", "--name", "sway-side"] + flags, environment: waylandEnvironment))
        spawned.append(try Spawned([pbctl, "daemon", "--verbose", "--name", "store-side"] + flags, environment: storeEnvironment))
        func devices(_ env: [String: String]) -> String { (try? run([pbctl, "devices"], environment: env))?.text ?? "" }
        func certificateID(_ folder: String) -> String? {
            guard let pem = try? String(contentsOfFile: folder + "/pbctl/kdeconnect/certificate.pem", encoding: .utf8) else { return nil }
            let out = try? run(["/usr/bin/openssl", "x509", "-noout", "-subject", "-nameopt", "multiline"], input: Data(pem.utf8))
            return out?.text.split(separator: "\n").first { $0.contains("commonName") }?.split(separator: "=").last?.trimmingCharacters(in: .whitespaces)
        }
        XCTAssertTrue(waitFor(10) { certificateID(wayland) != nil && certificateID(store) != nil && (try? self.run([self.pbctl, "info"], environment: waylandEnvironment))?.text.contains("kdeconnect:") == true })
        let waylandID = try XCTUnwrap(certificateID(wayland)), storeID = try XCTUnwrap(certificateID(store))
        let info = try run([pbctl, "info"], environment: waylandEnvironment).text
        let port = try XCTUnwrap(info.range(of: #"TCP port [0-9]+"#, options: .regularExpression).map { info[$0].split(separator: " ").last! })
        XCTAssertEqual(try run([pbctl, "devices", "add", "127.0.0.1:\(port)"], environment: storeEnvironment).status, 0)
        XCTAssertTrue(waitFor(5) { devices(waylandEnvironment).contains(storeID) })
        XCTAssertEqual(try run([pbctl, "devices", "pair", storeID], environment: waylandEnvironment).status, 0)
        XCTAssertTrue(waitFor(3) { devices(storeEnvironment).contains("requested-by-peer") })
        XCTAssertEqual(try run([pbctl, "devices", "accept", waylandID], environment: storeEnvironment).status, 0)
        XCTAssertTrue(waitFor(3) { devices(waylandEnvironment).contains("paired, reachable") })
        // wl-copy → the other device.
        XCTAssertEqual(try run(["/usr/bin/wl-copy"], input: Data("from sway 😀".utf8), environment: waylandEnvironment, detached: true).status, 0)
        XCTAssertTrue(waitFor(3) { (try? self.run([self.pbctl, "paste"], environment: storeEnvironment))?.text == "from sway 😀" })
        // The other device → the compositor's clipboard, in the history with the device's name.
        XCTAssertEqual(try run([pbctl, "copy"], input: Data("to sway ✓".utf8), environment: storeEnvironment).status, 0)
        XCTAssertTrue(waitFor(3) { (try? self.run(["/usr/bin/wl-paste", "-n"], environment: waylandEnvironment))?.text == "to sway ✓" })
        XCTAssertTrue(waitFor(3) { (try? self.run([self.pbctl, "history", "--json", "--limit", "1"], environment: waylandEnvironment))?.text.contains("KDE Connect: store-side") == true })
    }

    func waitFor(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(100_000)
        }
        return condition()
    }
}
