import Foundation
import XCTest

/// Faults a user meets, on the built binary: a store on a full disk, a copy killed with SIGKILL half
/// way, damaged metadata. docs/reliability.md lists what the user sees in each.
final class StoreFaultTests: XCTestCase {
    var scratch = ""

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: PbctlRunner.binary), "pbctl is not built")
        scratch = NSTemporaryDirectory() + "pbctl-fault-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if FileManager.default.fileExists(atPath: scratch + "/full") { _ = shell("umount \(scratch)/full") }
        try? FileManager.default.removeItem(atPath: scratch)
    }

    @discardableResult
    func shell(_ command: String) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// A store on a 256 KiB tmpfs: a copy that does not fit fails with exit 74 and a message, and the
    /// previous item still pastes byte for byte (plain and Markdown copies).
    func testCopyIntoAFullStoreFailsWith74AndKeepsThePreviousItem() throws {
        try XCTSkipUnless(getuid() == 0, "mounting a small tmpfs needs root")
        let mountPoint = scratch + "/full"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        try XCTSkipUnless(shell("mount -t tmpfs -o size=256k,mode=0700 tmpfs \(mountPoint)") == 0, "cannot mount a tmpfs here")
        var pbctl = PbctlRunner(store: mountPoint + "/store")
        // The history on another file system, as by default (~/.local/state beside a tmpfs store).
        pbctl.environment["PBCTL_HISTORY"] = scratch + "/history"
        let previous = Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        XCTAssertEqual(try pbctl.run(["copy", "--type", "public.data"], stdin: previous).status, 0)

        let tooLarge = Data(repeating: 0x61, count: 400 << 10)
        let failed = try pbctl.run(["copy"], stdin: tooLarge)
        XCTAssertEqual(failed.status, 74, failed.stderr)
        XCTAssertTrue(failed.stderr.contains("No space left") || failed.stderr.contains("space"), failed.stderr)
        XCTAssertEqual(try pbctl.run(["paste", "--type", "public.data"]).stdout, previous, "the previous item was damaged")

        var markdown = Data("# Big\n\n".utf8)
        markdown.append(Data(repeating: 0x78, count: 300 << 10))
        let failedMarkdown = try pbctl.run(["copy", "--from", "markdown"], stdin: markdown)
        XCTAssertEqual(failedMarkdown.status, 74, failedMarkdown.stderr)
        XCTAssertEqual(try pbctl.run(["paste", "--type", "public.data"]).stdout, previous, "the previous item was damaged")

        // Nothing of the failed copies stays behind, so the next small copy fits.
        let package = mountPoint + "/store/general.pasteboard"
        let files = try FileManager.default.contentsOfDirectory(atPath: package).sorted()
        XCTAssertEqual(files.filter { $0 != "Info.json" && $0 != "lock" }.count, 1, "left behind: \(files)")
        let small = try pbctl.run(["copy"], stdin: Data("seven b".utf8))
        XCTAssertEqual(small.status, 0, small.stderr)
        XCTAssertEqual(try pbctl.run(["paste"]).text, "seven b")

        // A full disk never wedges the store: clear works, then copies again.
        _ = try pbctl.run(["copy", "--type", "public.data"], stdin: Data(repeating: 1, count: 200 << 10))
        let filler = mountPoint + "/filler"
        _ = shell("head -c 1M /dev/zero > \(filler)")
        let clear = try pbctl.run(["clear"])
        XCTAssertEqual(clear.status, 0, clear.stderr)
        try? FileManager.default.removeItem(atPath: filler)
        XCTAssertEqual(try pbctl.run(["copy"], stdin: Data("after".utf8)).status, 0)
    }

    /// The history on a full disk: a copy goes through and warns; the history keeps what it had, lists
    /// and pastes; once there is room again it records; the database stays whole throughout (sqlite3).
    /// An import killed with SIGKILL at random moments leaves whole batches and a sound database, and the
    /// same import run again completes it.
    func testTheHistoryOnAFullDiskAndImportsKilledHalfWay() throws {
        try XCTSkipUnless(getuid() == 0, "mounting a small tmpfs needs root")
        let mountPoint = scratch + "/full"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        try XCTSkipUnless(shell("mount -t tmpfs -o size=2m,mode=0700 tmpfs \(mountPoint)") == 0, "cannot mount a tmpfs here")
        var pbctl = PbctlRunner(store: scratch + "/store")
        pbctl.environment["PBCTL_HISTORY"] = mountPoint + "/history"
        pbctl.environment["PBCTL_BACKEND"] = "store"
        for n in 1...5 { XCTAssertEqual(try pbctl.run("copy", stdin: "before \(n)").status, 0) }
        // Fill the rest of the disk.
        _ = shell("dd if=/dev/zero of=\(mountPoint)/filler bs=4k 2>/dev/null")
        var warned = 0
        for n in 1...20 {
            let copy = try pbctl.run("copy", stdin: "while full \(n) " + String(repeating: "x", count: 20_000))
            XCTAssertEqual(copy.status, 0, copy.stderr)
            XCTAssertTrue(try pbctl.run("paste").text.hasPrefix("while full \(n) "))
            if copy.stderr.contains("copied, but not recorded in the history") { warned += 1 }
        }
        XCTAssertGreaterThan(warned, 0, "the disk never filled")
        let listed = try pbctl.run("history")
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.text.contains("\tbefore 1\n"))
        XCTAssertEqual(try pbctl.run("history", "paste", "1").text, "before 1")
        try FileManager.default.removeItem(atPath: mountPoint + "/filler")
        XCTAssertEqual(try pbctl.run("copy", stdin: "after room").status, 0)
        XCTAssertEqual(try pbctl.run("history").text.split(separator: "\n").first.map(String.init), "\(5 + 20 - warned + 1)\tafter room")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "sqlite3 is not installed")
        func integrity(_ database: String, index: Bool = true) -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            process.arguments = [database, "PRAGMA integrity_check;" + (index ? " INSERT INTO search(search) VALUES('integrity-check');" : "")]
            let out = Pipe()
            process.standardOutput = out
            try? process.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return text
        }
        XCTAssertEqual(integrity(mountPoint + "/history/history.db"), "ok\n")
        // Imports killed half way, on a disk with room.
        var lines = ""
        for n in 0..<30_000 {
            lines += #"{"time":"2026-01-01T00:00:00Z","representations":{"text/plain":""# + Data("imported \(n)".utf8).base64EncodedString() + "\"}}\n"
        }
        try Data(lines.utf8).write(to: URL(fileURLWithPath: scratch + "/import.jsonl"))
        pbctl.environment["PBCTL_HISTORY"] = scratch + "/history"
        let config = scratch + "/config/pbctl"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try Data("history.max-entries = 100000\n".utf8).write(to: URL(fileURLWithPath: config + "/config"))
        pbctl.environment["XDG_CONFIG_HOME"] = scratch + "/config"
        for delay in [800_000, 2_000_000, 4_000_000] as [UInt32] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: PbctlRunner.binary)
            process.arguments = ["history", "import", scratch + "/import.jsonl"]
            process.environment = pbctl.environment
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // Killed before its first transaction committed, there is no schema yet to check the index of.
            let count = try pbctl.run("history").text.split(separator: "\n").count
            XCTAssertEqual(integrity(scratch + "/history/history.db", index: count > 0), "ok\n", "after a kill at \(delay) µs")
            XCTAssertEqual(count % 10_000, 0, "whole batches only: \(count)")
        }
        XCTAssertEqual(try pbctl.run("history", "import", scratch + "/import.jsonl").status, 0)
        XCTAssertEqual(try pbctl.run("history").text.split(separator: "\n").count, 30_000)
    }

    /// A store on a read-only mount (a snapshot) still pastes; a copy says why it cannot write.
    func testReadOnlyStorePastes() throws {
        try XCTSkipUnless(getuid() == 0, "a read-only bind mount needs root")
        let directory = scratch + "/ro"
        let pbctl = PbctlRunner(store: directory + "/store")
        XCTAssertEqual(try pbctl.run(["copy"], stdin: Data("kept".utf8)).status, 0)
        try XCTSkipUnless(shell("mount --bind \(directory) \(directory) && mount -o remount,ro,bind \(directory)") == 0,
                          "cannot make a read-only bind mount here")
        defer { _ = shell("umount \(directory)") }
        let paste = try pbctl.run(["paste"])
        XCTAssertEqual(paste.status, 0, paste.stderr)
        XCTAssertEqual(paste.text, "kept")
        XCTAssertEqual(try pbctl.run(["types"]).status, 0)
        XCTAssertEqual(try pbctl.run(["paste", "-p", "never-written"]).status, 1)
        let copy = try pbctl.run(["copy"], stdin: Data("x".utf8))
        XCTAssertEqual(copy.status, 74)
        XCTAssertTrue(copy.stderr.contains("Read-only"), copy.stderr)
    }

    /// With no HOME or XDG variables the store goes under /tmp/pbctl-UID: a directory another user
    /// planted there first, or a link planted below it, is refused with exit 74 naming it.
    func testPlantedFallbackDirectoryIsRefused() throws {
        try XCTSkipUnless(getuid() == 0, "planting a directory as another user needs root")
        let fallback = "/tmp/pbctl-\(getuid())"
        let saved = fallback + ".saved-\(getpid())"
        let hadOne = rename(fallback, saved) == 0
        defer {
            _ = shell("rm -rf \(fallback)")
            if hadOne { rename(saved, fallback) }
        }
        var pbctl = PbctlRunner(store: "")
        pbctl.environment = ["PATH": "/usr/bin:/bin"]
        XCTAssertEqual(shell("mkdir -m 777 \(fallback) && chown nobody \(fallback)"), 0)
        var copy = try pbctl.run(["copy"], stdin: Data("x".utf8))
        XCTAssertEqual(copy.status, 74, copy.stderr)
        XCTAssertTrue(copy.stderr.contains(fallback) && copy.stderr.contains("another user"), copy.stderr)

        XCTAssertEqual(shell("rm -rf \(fallback) && mkdir -m 700 \(fallback) && ln -s /tmp \(fallback)/.cache"), 0)
        copy = try pbctl.run(["copy"], stdin: Data("x".utf8))
        XCTAssertEqual(copy.status, 74, copy.stderr)
        XCTAssertTrue(copy.stderr.contains(fallback + "/.cache"), copy.stderr)

        XCTAssertEqual(shell("rm -rf \(fallback)"), 0)
        copy = try pbctl.run(["copy"], stdin: Data("fine".utf8))
        XCTAssertEqual(copy.status, 0, copy.stderr)
        XCTAssertEqual(try pbctl.run(["paste"]).text, "fine")
    }

    /// The reader of standard output going away ends pbctl quietly with 141, as `cat` does.
    func testClosedPipeEndsQuietlyWith141() throws {
        let pbctl = PbctlRunner(store: scratch + "/store")
        let lines = (1...200_000).map { "line \($0)\n" }.joined()
        XCTAssertEqual(try pbctl.run(["copy"], stdin: Data(lines.utf8)).status, 0)
        let file = scratch + "/doc.md"
        try Data(lines.utf8).write(to: URL(fileURLWithPath: file))
        for command in ["'\(PbctlRunner.binary)' paste", "'\(PbctlRunner.binary)' convert --from markdown --to html '\(file)'",
                        "'\(PbctlRunner.binary)' paste --as html"] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", "\(command) 2>'\(scratch)/err' | head -c 10 >/dev/null; echo ${PIPESTATUS[0]} > '\(scratch)/status'"]
            process.environment = pbctl.environment
            try process.run()
            process.waitUntilExit()
            let status = try String(contentsOfFile: scratch + "/status", encoding: .utf8)
            XCTAssertEqual(status.trimmingCharacters(in: .whitespacesAndNewlines), "141", command)
            XCTAssertEqual(try String(contentsOfFile: scratch + "/err", encoding: .utf8), "", command)
        }
    }

    /// Endless or oversized input ends with exit 65, and the previous content stays.
    func testInputLargerThanMaxSizeIsRefused() throws {
        let pbctl = PbctlRunner(store: scratch + "/store")
        XCTAssertEqual(try pbctl.run(["copy"], stdin: Data("kept".utf8)).status, 0)
        let big = Data(repeating: 0x61, count: 5000)
        var refused = try pbctl.run(["copy", "--max-size", "4K"], stdin: big)
        XCTAssertEqual(refused.status, 65, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("4K"), refused.stderr)
        let file = scratch + "/big.txt"
        try big.write(to: URL(fileURLWithPath: file))
        var env = pbctl
        env.environment["PBCTL_MAX_SIZE"] = "1k"
        refused = try env.run(["copy", file])
        XCTAssertEqual(refused.status, 65, refused.stderr)
        XCTAssertEqual(try pbctl.run(["paste"]).text, "kept")
        XCTAssertEqual(try pbctl.run(["copy", "--max-size", "8K", file]).status, 0)
        XCTAssertEqual(try pbctl.run(["copy", "--max-size", "lots"], stdin: big).status, 64)

        // /dev/zero never ends: the default cap (1 GiB) stops it.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: PbctlRunner.binary)
        process.arguments = ["copy", "--max-size", "64M"]
        process.environment = pbctl.environment
        process.standardInput = FileHandle(forReadingAtPath: "/dev/zero")
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 65)
    }

    /// Arguments are checked before any I/O.
    func testBadArgumentsAreUsageErrorsWhateverTheStoreHolds() throws {
        let pbctl = PbctlRunner(store: scratch + "/store")
        XCTAssertEqual(try pbctl.run(["paste", "--as", "no-such-format"]).status, 64, "empty pasteboard")
        XCTAssertEqual(try pbctl.run(["copy", "--type", "a/b\nc"], stdin: Data("x".utf8)).status, 64)
        XCTAssertEqual(try pbctl.run(["copy", "--clear-after", "1e308"], stdin: Data("x".utf8)).status, 64)
        XCTAssertEqual(try pbctl.run(["copy", "--clear-after", "nan"], stdin: Data("x".utf8)).status, 64)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch + "/store"), "a refused command wrote to the store")
    }

    /// SIGKILL at any point of a copy leaves the previous item whole, and the next copy works.
    func testCopyKilledHalfWayLeavesThePreviousItemAndTheNextCopyWorks() throws {
        let store = scratch + "/store"
        let pbctl = PbctlRunner(store: store)
        XCTAssertEqual(try pbctl.run(["copy"], stdin: Data("before\n".utf8)).status, 0)
        let big = scratch + "/big.bin"
        try Data(repeating: 0x42, count: 48 << 20).write(to: URL(fileURLWithPath: big))
        for delay in [5_000, 20_000, 60_000, 150_000] as [useconds_t] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: PbctlRunner.binary)
            process.arguments = ["copy", "--type", "public.data", big]
            process.environment = pbctl.environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let paste = try pbctl.run(["paste"])
            XCTAssertEqual(paste.status, 0, paste.stderr)
            // Either the copy had finished before the kill, or the previous item is intact.
            XCTAssertTrue(paste.stdout == Data("before\n".utf8) || paste.stdout.count == 48 << 20,
                          "after a kill at \(delay) µs the store holds \(paste.stdout.count) bytes")
            XCTAssertEqual(try pbctl.run(["copy"], stdin: Data("before\n".utf8)).status, 0)
        }
        let again = try pbctl.run(["copy"], stdin: Data("after\n".utf8))
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try pbctl.run(["paste"]).text, "after\n")
    }

    /// Copies killed with SIGKILL while streaming in leave nothing on disk, at once: no later write is
    /// needed to sweep them (four killed copies of 256 MiB once left 900 MB until the next copy).
    func testCopiesKilledWithSIGKILLLeaveNothingOnDisk() throws {
        let store = scratch + "/store"
        let pbctl = PbctlRunner(store: store)
        XCTAssertEqual(try pbctl.run(["copy"], stdin: Data("before\n".utf8)).status, 0)
        let package = store + "/general.pasteboard"
        var writers: [FileHandle] = []
        var processes: [Process] = []
        for _ in 0..<4 {
            var fds: [Int32] = [0, 0]
            XCTAssertEqual(pipe(&fds), 0)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: PbctlRunner.binary)
            process.arguments = ["copy", "--type", "public.data"]
            process.environment = pbctl.environment
            process.standardInput = FileHandle(fileDescriptor: fds[0], closeOnDealloc: true)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let writer = FileHandle(fileDescriptor: fds[1], closeOnDealloc: true)
            try writer.write(contentsOf: Data(repeating: 0x41, count: 4 << 20))
            writers.append(writer)
            processes.append(process)
        }
        // Until every copy has taken in what was written (its spool holds 4 MiB), then SIGKILL.
        let deadline = Date().addingTimeInterval(10)
        func spooled(_ process: Process) -> Bool {
            let fdFolder = "/proc/\(process.processIdentifier)/fd"
            return ((try? FileManager.default.contentsOfDirectory(atPath: fdFolder)) ?? []).contains { fd in
                guard ((try? FileManager.default.destinationOfSymbolicLink(atPath: fdFolder + "/" + fd)) ?? "").hasPrefix(package + "/")
                else { return false }
                var st = stat()
                return stat(fdFolder + "/" + fd, &st) == 0 && st.st_size >= 4 << 20
            }
        }
        while Date() < deadline, !processes.allSatisfy(spooled) { usleep(10_000) }
        XCTAssertTrue(processes.allSatisfy(spooled), "the copies never streamed into the store")
        for process in processes {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        for writer in writers { try? writer.close() }
        let files = try FileManager.default.contentsOfDirectory(atPath: package)
        XCTAssertEqual(Set(files), Set(["Info.json", "lock", "c1-0-0.data"]), "killed copies left \(files)")
        XCTAssertEqual(try pbctl.run(["paste"]).text, "before\n")
    }

    /// A copy streaming in when SIGINT or SIGTERM ends it (Ctrl-C on `producer | pbctl copy`): its
    /// spool file is removed at once, the previous content stays, the next copy works.
    func testInterruptedCopyLeavesNothingBehind() throws {
        let store = scratch + "/store"
        let pbctl = PbctlRunner(store: store)
        XCTAssertEqual(try pbctl.run(["copy"], stdin: Data("before\n".utf8)).status, 0)
        for sig in [SIGINT, SIGTERM] {
            // Input that never ends: a pipe whose writer stays open.
            var fds: [Int32] = [0, 0]
            XCTAssertEqual(pipe(&fds), 0)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: PbctlRunner.binary)
            process.arguments = ["copy", "--type", "public.data"]
            process.environment = pbctl.environment
            process.standardInput = FileHandle(fileDescriptor: fds[0], closeOnDealloc: true)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let writer = FileHandle(fileDescriptor: fds[1], closeOnDealloc: true)
            try writer.write(contentsOf: Data(repeating: 0x41, count: 1 << 20))
            // Wait until the copy has its spool open in the package (an unnamed file, or a named one
            // where the file system has none), then interrupt.
            let package = store + "/general.pasteboard"
            func spooling() -> Bool {
                let fdFolder = "/proc/\(process.processIdentifier)/fd"
                return ((try? FileManager.default.contentsOfDirectory(atPath: fdFolder)) ?? []).contains { fd in
                    ((try? FileManager.default.destinationOfSymbolicLink(atPath: fdFolder + "/" + fd)) ?? "").hasPrefix(package + "/")
                }
            }
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline, !spooling() { usleep(10_000) }
            XCTAssertTrue(spooling(), "the copy never started streaming into the store")
            kill(process.processIdentifier, sig)
            process.waitUntilExit()
            try? writer.close()
            XCTAssertEqual(process.terminationReason, .uncaughtSignal, "signal \(sig)")
            let files = try FileManager.default.contentsOfDirectory(atPath: package)
            XCTAssertEqual(Set(files), Set(["Info.json", "lock", "c1-0-0.data"]), "signal \(sig) left \(files)")
            XCTAssertEqual(try pbctl.run(["paste"]).text, "before\n")
        }
        XCTAssertEqual(try pbctl.run(["copy"], stdin: Data("after\n".utf8)).status, 0)
        XCTAssertEqual(try pbctl.run(["paste"]).text, "after\n")
    }

    /// A full disk at every point of a plain and a Markdown copy: each fails with 74 or succeeds; a
    /// failure leaves the previous content whole and nothing of its own behind, and the next copy works.
    func testFullDiskAtEveryPointLeavesNothingBehind() throws {
        try XCTSkipUnless(getuid() == 0, "mounting a small tmpfs needs root")
        let mountPoint = scratch + "/full"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        try XCTSkipUnless(shell("mount -t tmpfs -o size=512k,mode=0700 tmpfs \(mountPoint)") == 0, "cannot mount a tmpfs here")
        var pbctl = PbctlRunner(store: mountPoint + "/store")
        // The history on another file system, as by default (~/.local/state beside a tmpfs store).
        pbctl.environment["PBCTL_HISTORY"] = scratch + "/history"
        let package = mountPoint + "/store/general.pasteboard"
        for size in stride(from: 64 << 10, through: 640 << 10, by: 48 << 10) {
            for markdown in [false, true] {
                let previous = Data("previous \(size) \(markdown)\n".utf8)
                XCTAssertEqual(try pbctl.run(["copy"], stdin: previous).status, 0)
                var input = Data(markdown ? "# Big\n\n".utf8 : "".utf8)
                input.append(Data(repeating: 0x78, count: size))
                let copy = try pbctl.run(markdown ? ["copy", "--from", "markdown"] : ["copy"], stdin: input)
                if copy.status == 0 {
                    XCTAssertEqual(try pbctl.run(["paste"]).stdout, input, "size \(size)")
                } else {
                    XCTAssertEqual(copy.status, 74, "size \(size) markdown \(markdown): \(copy.stderr)")
                    XCTAssertEqual(try pbctl.run(["paste"]).stdout, previous, "size \(size): the previous item was damaged")
                    let left = try FileManager.default.contentsOfDirectory(atPath: package).filter { $0 != "Info.json" && $0 != "lock" }
                    XCTAssertEqual(left.count, 1, "size \(size) markdown \(markdown) left \(left)")
                }
                XCTAssertEqual(try pbctl.run(["clear"]).status, 0)
            }
        }
    }

    /// Damaged metadata of every kind gives exit 74 naming the file, and `pbctl clear` recovers.
    func testDamagedMetadataGivesExit74AndClearRecovers() throws {
        let store = scratch + "/store"
        let pbctl = PbctlRunner(store: store)
        XCTAssertEqual(try pbctl.run(["copy"], stdin: Data("x".utf8)).status, 0)
        let info = store + "/general.pasteboard/Info.json"
        for damaged in ["", "{", "[]", "{\"format\": 2, \"changeCount\": 1, \"items\": []}", "\u{0}\u{1}garbage",
                        "{\"format\": 1, \"changeCount\": \"x\", \"items\": []}"] {
            try Data(damaged.utf8).write(to: URL(fileURLWithPath: info))
            let paste = try pbctl.run(["paste"])
            XCTAssertEqual(paste.status, 74, "\(damaged): \(paste.stderr)")
            XCTAssertTrue(paste.stderr.contains("Info.json"), paste.stderr)
            let clear = try pbctl.run(["clear"])
            XCTAssertEqual(clear.status, 0, "\(damaged): \(clear.stderr)")
            XCTAssertEqual(try pbctl.run(["copy"], stdin: Data("x".utf8)).status, 0)
        }
    }
}
