import Foundation
import XCTest

/// Starting `pbctl daemon` in a test and checking that it manages the clipboard: shared by the daemon
/// and the history tests.
extension X11TestCase {
    /// Starts `pbctl daemon` in the foreground and waits until it answers on CLIPBOARD_MANAGER.
    @discardableResult
    func startDaemon(_ extra: [String] = [], display other: String? = nil,
                     environment more: [String: String] = [:]) throws -> Spawned {
        var env = environment
        if let other { env["DISPLAY"] = other }
        for (key, value) in more { env[key] = value }
        var errors = ""
        // One retry when the connection itself failed: seen once in dozens of runs on a machine where
        // several test suites start Xvfb servers at the same time.
        for _ in 0..<2 {
            let daemon = try Spawned([pbctl, "daemon", "--verbose"] + extra, environment: env)
            spawned.append(daemon)
            if try eventually(timeout: 10, { try managerOwned(display: other) || !daemon.child.isRunning }),
                daemon.child.isRunning
            {
                return daemon
            }
            errors = stderrText(daemon)
            guard errors.contains("cannot open display") else { break }
        }
        XCTFail("the daemon never took CLIPBOARD_MANAGER: \(errors)")
        return spawned.last!
    }

    /// Whether a client owns CLIPBOARD_MANAGER (what GTK and Qt check before saving).
    func managerOwned(display other: String? = nil) throws -> Bool {
        var extra: [String: String] = [:]
        if let other { extra["DISPLAY"] = other }
        let result = try run([pbctl, "daemon", "--status"], environment: extra, timeout: 5)
        return result.status == 0 && result.text.contains("pbctl daemon (pid")
    }

    func stderrText(_ process: Spawned) -> String {
        var text = ""
        while let chunk = readSome(process.stderrFD, timeoutMS: 200), !chunk.isEmpty {
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text
    }

}
