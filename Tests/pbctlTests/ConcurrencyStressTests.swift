import Foundation
import XCTest

/// Concurrency as a class, on the built binary: copies, pastes, clears, history reads and writes from
/// several processes at once, with copies killed with SIGKILL at random moments, on one store and one
/// history. Checked are invariants, never timings: a well-formed operation never fails; every copy
/// that succeeded is in the history; a paste gets one whole copy, never a mix; nothing is left behind.
final class ConcurrencyStressTests: PbctlTestCase {
    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        var copied: [String] = []
        var failures: [String] = []
        var operations = 0
        func add(copied text: String) { lock.withLock { copied.append(text) } }
        func fail(_ message: String) { lock.withLock { failures.append(message) } }
        func count() { lock.withLock { operations += 1 } }
    }

    func testMixedOperationsFromManyProcessesKeepEveryInvariant() throws {
        let runner = pbctl!
        let log = Log()
        let workers = 8
        let perWorker = 30
        let group = DispatchGroup()
        for worker in 0..<workers {
            DispatchQueue.global().async(group: group) {
                var rng = SystemRandomNumberGenerator()
                for step in 0..<perWorker {
                    log.count()
                    let text = "w\(worker)-\(step) \(UInt32.random(in: 0...UInt32.max, using: &rng))\n" + String(repeating: "x", count: Int.random(in: 0...5000, using: &rng))
                    let choice = Int.random(in: 0..<10, using: &rng)
                    do {
                        switch choice {
                        case 0...3:
                            let result = try runner.run(["copy"], stdin: Data(text.utf8))
                            if result.status == 0, result.stderr.isEmpty { log.add(copied: text) } else {
                                log.fail("copy exited \(result.status): \(result.stderr)")
                            }
                        case 4:
                            let result = try runner.run(["copy", "--from", "markdown"], stdin: Data(("# " + text).utf8))
                            if result.status == 0, result.stderr.isEmpty { log.add(copied: "# " + text) } else {
                                log.fail("markdown copy exited \(result.status): \(result.stderr)")
                            }
                        case 5, 6:
                            let result = try runner.run(["paste"])
                            let pasted = result.text
                            if result.status == 1, result.stderr.contains("nothing to paste") { break }
                            if result.status != 0 || !(pasted.hasPrefix("w") || pasted.hasPrefix("# w")) || !pasted.contains(" ") {
                                log.fail("paste exited \(result.status) with \(pasted.prefix(40).debugDescription): \(result.stderr)")
                            }
                        case 7:
                            let result = try runner.run(["clear"])
                            if result.status != 0 { log.fail("clear exited \(result.status): \(result.stderr)") }
                        case 8:
                            let result = try runner.run(["history"])
                            if result.status != 0 || !result.stderr.isEmpty { log.fail("history exited \(result.status): \(result.stderr)") }
                        default:
                            let list = try runner.run(["history", "--limit", "5"])
                            guard let line = list.text.split(separator: "\n").randomElement(using: &rng) else { break }
                            let result = try runner.run(["history", "copy", String(line)])
                            if result.status != 0 { log.fail("history copy \(line.prefix(20)) exited \(result.status): \(result.stderr)") }
                        }
                    } catch {
                        log.fail("\(error)")
                    }
                }
            }
        }
        // Meanwhile, large copies killed with SIGKILL at random moments.
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: PbctlRunner.binary)
            process.arguments = ["copy", "--type", "public.data", "/dev/zero", "--max-size", "8G"]
            process.environment = runner.environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 1_000...80_000, using: &rng))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        XCTAssertEqual(group.wait(timeout: .now() + 600), .success, "the workers did not finish")
        XCTAssertGreaterThanOrEqual(log.operations + 20, 200)
        XCTAssertEqual(log.failures, [], "well-formed operations failed")

        // Every successful copy is in the history (the bounds are far away: 1000 entries).
        let listing = try runner.run("history").text
        let previews = Set(listing.split(separator: "\n").map { $0.split(separator: "\t", maxSplits: 1).last.map(String.init) ?? "" })
        for text in log.copied {
            let first = String(text.split(separator: "\n").first ?? "")
            XCTAssertTrue(previews.contains(first), "a successful copy is missing from the history: \(first)")
        }

        // Nothing left behind: the store's package holds what its metadata names; the history's index
        // lists every package, each with its record, and no temporary file remains anywhere.
        let package = scratch + "/store/general.pasteboard"
        let files = try FileManager.default.contentsOfDirectory(atPath: package)
        let info = (try? Data(contentsOf: URL(fileURLWithPath: package + "/Info.json"))).map { String(decoding: $0, as: UTF8.self) } ?? ""
        for file in files where !["Info.json", "lock"].contains(file) {
            XCTAssertTrue(file.hasSuffix(".data") && info.contains("\"\(file)\""), "the store holds debris: \(file)")
        }
        // The history: its database and the files of large representations, nothing else; the database
        // whole (sqlite3's integrity check and the search index's own), every file it names there and no
        // other.
        let history = scratch + "/store-history"
        let entries = try FileManager.default.contentsOfDirectory(atPath: history)
        XCTAssertTrue(Set(entries).isSubset(of: ["history.db", "history.db-wal", "history.db-shm", "lock", "blobs"]), "the history holds debris: \(entries)")
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") {
            func sqlite(_ sql: String) throws -> String {
                let check = Process()
                check.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
                check.arguments = [history + "/history.db", sql]
                let out = Pipe()
                check.standardOutput = out
                try check.run()
                let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                check.waitUntilExit()
                return text
            }
            XCTAssertEqual(try sqlite("PRAGMA integrity_check; INSERT INTO search(search) VALUES('integrity-check');"), "ok\n")
            XCTAssertEqual(
                Int(try sqlite("SELECT count(*) FROM entry").trimmingCharacters(in: .whitespacesAndNewlines)),
                listing.split(separator: "\n").count, "the database and the listing disagree")
            let named = Set(try sqlite("SELECT hash FROM blob WHERE refs > 0").split(separator: "\n").map(String.init))
            let stored = Set((try? FileManager.default.contentsOfDirectory(atPath: history + "/blobs")) ?? [])
            XCTAssertEqual(stored, named, "the files of large representations and the database disagree")
        }
    }
}
