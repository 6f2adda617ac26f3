import Foundation
import XCTest

/// The clipboard history without a display: what `pbctl copy` through the store records, the list's
/// shape, negotiation on paste, copy back, bounds, pause, damage.
final class HistoryCLITests: PbctlTestCase {
    var history: String { pbctl.environment["PBCTL_HISTORY"]! }

    func lines() throws -> [String] {
        try pbctl.run("history").text.split(separator: "\n").map(String.init)
    }

    func testCopiesAreRecordedNewestFirstWithEveryRepresentation() throws {
        try pbctl.run("copy", stdin: "first line\nsecond line\n")
        try pbctl.run("copy", "--from", "markdown", stdin: "# Notes\n\nSome *emphasis*\n")
        try pbctl.run("copy", "--type", "html", stdin: "<p>Hello <b>there</b></p>")
        XCTAssertEqual(try lines(), ["3\tHello there", "2\t# Notes", "1\tfirst line"])
        let json = try JSONSerialization.jsonObject(with: try pbctl.run("history", "--json", "--limit", "2").stdout) as? [[String: Any]]
        XCTAssertEqual(json?.count, 2)
        let types = (json?[1]["types"] as? [[String: Any]])?.compactMap { $0["type"] as? String }
        XCTAssertEqual(types, ["net.daringfireball.markdown", "public.html", "public.rtf", "public.utf8-plain-text"])
        XCTAssertEqual(json?[1]["application"] as? String, "pbctl")
        // Paste negotiates as pbctl paste does.
        XCTAssertEqual(try pbctl.run("history", "paste", "2").text, "# Notes\n\nSome *emphasis*\n")
        XCTAssertEqual(try pbctl.run("history", "paste", "2", "--as", "html").text, "<h1>Notes</h1>\n<p>Some <em>emphasis</em></p>\n")
        XCTAssertEqual(try pbctl.run("history", "paste", "3", "--as", "markdown").text, "Hello **there**\n")
        XCTAssertTrue(try pbctl.run("history", "paste", "3", "--type", "rtf").text.hasPrefix("{\\rtf1"))
        XCTAssertEqual(try pbctl.run("history", "paste", "9").status, 1)
    }

    func testIdenticalContentMovesItsEntryUp() throws {
        try pbctl.run("copy", stdin: "alpha")
        try pbctl.run("copy", stdin: "beta")
        try pbctl.run("copy", stdin: "alpha")
        XCTAssertEqual(try lines(), ["1\talpha", "2\tbeta"])
        // Same bytes as another type are other content.
        try pbctl.run("copy", "--type", "html", stdin: "alpha")
        XCTAssertEqual(try lines().count, 3)
    }

    /// Large content is confirmed byte for byte (from the stored files) before it counts as a duplicate:
    /// one byte changed in the middle, where the cheap digest does not look, is new content.
    func testLargeDuplicatesAreConfirmedByteForByte() throws {
        var big = Data(repeating: 0x61, count: 3 << 20)
        let first = scratch + "/big-1.bin", second = scratch + "/big-2.bin"
        try big.write(to: URL(fileURLWithPath: first))
        big[big.count / 2] = 0x62
        try big.write(to: URL(fileURLWithPath: second))
        XCTAssertEqual(try pbctl.run(["copy", "--type", "public.data", first]).status, 0)
        XCTAssertEqual(try pbctl.run(["copy", "--type", "public.data", first]).status, 0)
        XCTAssertEqual(try lines().count, 1, "the same 3 MiB twice is one entry")
        XCTAssertEqual(try pbctl.run(["copy", "--type", "public.data", second]).status, 0)
        XCTAssertEqual(try lines().count, 2, "one byte differs: another entry")
        let newest = String(try lines()[0].prefix(while: { $0 != "\t" }))
        XCTAssertEqual(try pbctl.run(["history", "paste", newest]).stdout, big)
        XCTAssertEqual(try pbctl.run(["copy", "--type", "public.data"], stdin: big).status, 0)
        XCTAssertEqual(try lines().count, 2, "the same bytes piped in: the entry moves up")
    }

    /// A large copy's file in the history is the store's, linked, under a unique name: nothing is hashed,
    /// and the copy never brings the item into memory (it did, hashing the whole mapped file, 64 MiB of
    /// resident pages for a 64 MiB copy), nor when the same bytes are copied again and compared with
    /// the file the history has (a window at a time). A paused history records nothing of it; a piped
    /// copy (spooled too) and a file copied again are the same entry, its file stored once.
    func testALargeCopyIsKeptUnderAUniqueNameWithoutComingIntoMemory() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "GNU time is not installed")
        var generator = UInt64(0x9E37_79B9_7F4A_7C15)
        var big = Data(count: 64 << 20)
        big.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt64.self)
            for i in words.indices {
                generator = generator &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                words[i] = generator
            }
        }
        let file = scratch + "/big.bin", rss = scratch + "/rss"
        try big.write(to: URL(fileURLWithPath: file))
        func peakKilobytes(_ arguments: [String]) throws -> Int {
            let copy = try pbctl.run(["-f", "%M", "-o", rss, PbctlRunner.binary] + arguments, executable: "/usr/bin/time")
            XCTAssertEqual(copy.status, 0, copy.stderr)
            let kilobytes = Int((try String(contentsOfFile: rss, encoding: .utf8)).split(separator: "\n").last ?? "") ?? 0
            XCTAssertGreaterThan(kilobytes, 0)
            return kilobytes
        }
        let kilobytes = try peakKilobytes(["copy", "--type", "public.data", file])
        XCTAssertLessThan(kilobytes, 40 << 10, "peak memory \(kilobytes) KB for a 64 MiB copy: the item came into memory")
        let files = try FileManager.default.contentsOfDirectory(atPath: history + "/blobs")
        XCTAssertEqual(files.count, 1)
        let expected = try XCTUnwrap(files.first)
        XCTAssertEqual(expected.utf8.count, 64)
        XCTAssertNotEqual(expected, try pbctl.run(["-b", file], executable: "/usr/bin/sha256sum").text.prefix(64).description,
                          "a unique name: nothing was hashed")
        var store = stat(), blob = stat()
        XCTAssertEqual(stat(history + "/blobs/" + expected, &blob), 0)
        let stored = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: scratch + "/store/general.pasteboard").first { $0.hasSuffix(".data") })
        XCTAssertEqual(stat(scratch + "/store/general.pasteboard/" + stored, &store), 0)
        XCTAssertEqual(store.st_ino, blob.st_ino, "the store's file, linked")
        XCTAssertEqual(try pbctl.run(["history", "paste", "1"]).stdout == big, true)
        // Again, from a file (compared with the history's file) and from a pipe: the same entry moves up, one file.
        let again = try peakKilobytes(["copy", "--type", "public.data", file])
        XCTAssertLessThan(again, 40 << 10, "peak memory \(again) KB for a 64 MiB copy compared: the item came into memory")
        XCTAssertEqual(try pbctl.run(["copy", "--type", "public.data"], stdin: big).status, 0)
        XCTAssertEqual(try lines().count, 1)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: history + "/blobs"), [expected])
        // Paused: copied, not recorded, nothing staged.
        XCTAssertEqual(try pbctl.run("history", "pause").status, 0)
        big[12345] ^= 0xFF
        try big.write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(try pbctl.run(["copy", "--type", "public.data", file]).status, 0)
        XCTAssertEqual(try pbctl.run(["paste", "--type", "public.data"]).stdout == big, true)
        XCTAssertEqual(try lines().count, 1)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: history + "/blobs"), [expected])
    }

    /// The same large file copied again is compared with the history's file of its size before
    /// anything is copied, and that file is linked into the store: the store's file and the history's
    /// are one inode, and the copy writes nothing of the content (it copied all of it into a spool and
    /// then compared both files: 1.8-2x `cp`). Counted with strace: the bytes written (write, pwrite,
    /// copy_file_range, sendfile, splice) and read (read, pread).
    func testTheSameLargeFileCopiedAgainIsLinkedFromTheHistoryNotCopied() throws {
        let strace = "/usr/bin/strace"
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: strace), "strace is not installed")
        var generator = UInt64(0x2545_F491_4F6C_DD1D)
        var big = Data(count: 4 << 20)
        big.withUnsafeMutableBytes { raw in
            for i in raw.bindMemory(to: UInt64.self).indices {
                generator = generator &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                raw.bindMemory(to: UInt64.self)[i] = generator
            }
        }
        let file = scratch + "/again.bin", trace = scratch + "/trace"
        try big.write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(try pbctl.run(["copy", "--type", "public.data", file]).status, 0)
        XCTAssertEqual(try pbctl.run(["copy", "--type", "public.data"], stdin: Data("between".utf8)).status, 0)
        let probe = try pbctl.run(["-o", "/dev/null", PbctlRunner.binary, "--version"], executable: strace)
        try XCTSkipUnless(probe.status == 0, "strace cannot trace here: \(probe.stderr)")
        let copy = try pbctl.run(
            ["-f", "-o", trace, "-e", "trace=read,pread64,write,pwrite64,writev,pwritev,copy_file_range,sendfile,splice",
             PbctlRunner.binary, "copy", "--type", "public.data", file], executable: strace)
        XCTAssertEqual(copy.status, 0, copy.stderr)
        var written = 0, read = 0
        for line in try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n") {
            guard let equals = line.range(of: " = ", options: .backwards),
                let count = Int(line[equals.upperBound...].prefix(while: { $0.isNumber }))
            else { continue }
            // "PID  name(...) = N", or "PID  <... name resumed>...) = N" for a call another thread interrupted.
            var call = line.drop(while: { $0.isNumber }).drop(while: { $0 == " " })
            if call.hasPrefix("<... ") { call = call.dropFirst(5) }
            let name = call.prefix(while: { $0.isLetter || $0.isNumber || $0 == "_" })
            if name == "read" || name == "pread64" { read += count } else { written += count }
        }
        XCTAssertLessThan(written, 256 << 10, "\(written) bytes written for 4 MiB copied again: the content was copied")
        XCTAssertLessThanOrEqual(read, 2 * big.count + (1 << 20), "\(read) bytes read: more than both files once")
        let files = try FileManager.default.contentsOfDirectory(atPath: history + "/blobs")
        XCTAssertEqual(files.count, 1, "one file for the content")
        var blob = stat(), store = stat()
        XCTAssertEqual(stat(history + "/blobs/" + (files.first ?? ""), &blob), 0)
        let stored = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: scratch + "/store/general.pasteboard").first { $0.hasSuffix(".data") })
        XCTAssertEqual(stat(scratch + "/store/general.pasteboard/" + stored, &store), 0)
        XCTAssertEqual(store.st_ino, blob.st_ino, "the history's file, linked into the store")
        XCTAssertEqual(try pbctl.run(["paste", "--type", "public.data"]).stdout == big, true)
        XCTAssertEqual(try lines().count, 2)
        XCTAssertTrue(try lines()[0].hasPrefix("1\t"), "the entry moved up")
        XCTAssertEqual(try pbctl.run(["history", "paste", "1"]).stdout == big, true)
        // Other bytes of the same size are copied, not linked.
        big[big.count - 1] ^= 0xFF
        try big.write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(try pbctl.run(["copy", "--type", "public.data", file]).status, 0)
        XCTAssertEqual(try pbctl.run(["paste", "--type", "public.data"]).stdout == big, true)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: history + "/blobs").count, 2)
        XCTAssertEqual(try lines().count, 3)
    }

    /// The store on a tmpfs and the history on disk (\$XDG_RUNTIME_DIR and ~/.local/state, as users run
    /// it): the history cannot link the store's file, and copies it through the kernel before its write
    /// lock, never through the store's mapping (it wrote the mapped bytes, bringing every page of a 64
    /// MiB copy into the copy's memory: 73 MiB peak). The copy again is compared, not linked (another
    /// file system), and moves its entry up.
    func testALargeCopyToAStoreOnAnotherFileSystemThanTheHistoryStaysInBoundedMemory() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "GNU time is not installed")
        let tmpfs = "/dev/shm/pbctl-split-\(getpid())-\(UUID().uuidString)"
        var here = stat(), there = stat()
        guard (try? FileManager.default.createDirectory(atPath: tmpfs, withIntermediateDirectories: false)) != nil else {
            throw XCTSkip("no /dev/shm to put the store on")
        }
        addTeardownBlock { try? FileManager.default.removeItem(atPath: tmpfs) }
        try XCTSkipUnless(stat(scratch, &here) == 0 && stat(tmpfs, &there) == 0 && here.st_dev != there.st_dev,
                          "/dev/shm is on the scratch folder's file system")
        pbctl.environment["PBCTL_STORE"] = tmpfs + "/store"
        var generator = UInt64(0x9E37_79B9_7F4A_7C15)
        var big = Data(count: 64 << 20)
        big.withUnsafeMutableBytes { raw in
            for i in raw.bindMemory(to: UInt64.self).indices {
                generator = generator &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                raw.bindMemory(to: UInt64.self)[i] = generator
            }
        }
        let file = tmpfs + "/big.bin", rss = scratch + "/rss"
        try big.write(to: URL(fileURLWithPath: file))
        func peakKilobytes() throws -> Int {
            let copy = try pbctl.run(["-f", "%M", "-o", rss, PbctlRunner.binary, "copy", "--type", "public.data", file], executable: "/usr/bin/time")
            XCTAssertEqual(copy.status, 0, copy.stderr)
            XCTAssertEqual(copy.stderr, "", "recorded without a warning")
            return Int((try String(contentsOfFile: rss, encoding: .utf8)).split(separator: "\n").last ?? "") ?? 0
        }
        let first = try peakKilobytes()
        XCTAssertLessThan(first, 40 << 10, "peak memory \(first) KB for a 64 MiB copy recorded on another file system")
        let files = try FileManager.default.contentsOfDirectory(atPath: history + "/blobs")
        XCTAssertEqual(files.count, 1)
        XCTAssertEqual(try pbctl.run(["history", "paste", "1"]).stdout == big, true)
        let again = try peakKilobytes()
        XCTAssertLessThan(again, 40 << 10, "peak memory \(again) KB for the same 64 MiB again")
        XCTAssertEqual(try lines().count, 1)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: history + "/blobs"), files)
        XCTAssertEqual(try pbctl.run(["paste", "--type", "public.data"]).stdout == big, true)
    }

    func testCopyBackByIDOrByALineOnStandardInput() throws {
        try pbctl.run("copy", "--from", "markdown", stdin: "**kept**\n")
        try pbctl.run("copy", stdin: "later")
        XCTAssertEqual(try pbctl.run("history", "copy", "1").status, 0)
        XCTAssertEqual(try pbctl.run("paste").text, "**kept**\n")
        XCTAssertTrue(try pbctl.run("types").text.contains("public.rtf"), "every type comes back")
        XCTAssertEqual(try lines().first, "1\t**kept**", "copied back: at the top")
        let line = try lines()[1]
        XCTAssertEqual(try pbctl.run(["history", "copy"], stdin: Data((line + "\n").utf8)).status, 0)
        XCTAssertEqual(try pbctl.run("paste").text, "later")
        XCTAssertEqual(try pbctl.run(["history", "copy"], stdin: Data("nonsense\n".utf8)).status, 64)
    }

    func testPreviewsOfImagesFilesAndControlCharacters() throws {
        let png = try XCTUnwrap(Data(base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAEElEQVR4nGP4z8AAQQxwFgBB0gX7h/C5SAAAAABJRU5ErkJggg=="))
        let image = scratch + "/shot.png"
        try png.write(to: URL(fileURLWithPath: image))
        try pbctl.run("copy", image)
        try pbctl.run("copy", "--files", image, scratch)
        try pbctl.run("copy", stdin: "\n\n  tab\there\u{1}\r and a long line " + String(repeating: "x", count: 100))
        let all = try lines()
        XCTAssertEqual(all[2], "1\t[image/png 3×2 \(png.count) B]")
        XCTAssertTrue(all[1].hasPrefix("2\t[2 files: shot.png, "), all[1])
        XCTAssertTrue(all[0].hasPrefix("3\ttab␉here␁␍ and a long line x"), all[0])
        XCTAssertEqual(all[0].dropFirst(2).count, 80)
        XCTAssertTrue(all[0].hasSuffix("…"))
    }

    func testSensitiveTransientAndPausedContentIsNeverRecorded() throws {
        try pbctl.run("copy", stdin: "public")
        try pbctl.run("copy", "--transient", stdin: "one-time code")
        try pbctl.run("copy", "--sensitive", stdin: "hunter2")
        XCTAssertEqual(try pbctl.run("history", "pause").status, 0)
        try pbctl.run("copy", stdin: "while paused")
        XCTAssertEqual(try pbctl.run("history", "resume").status, 0)
        try pbctl.run("copy", "--from", "md", stdin: "after")
        XCTAssertEqual(try lines(), ["2\tafter", "1\tpublic"])
        let disk = try FileManager.default.subpathsOfDirectory(atPath: history).compactMap {
            try? Data(contentsOf: URL(fileURLWithPath: history + "/" + $0))
        }
        XCTAssertFalse(disk.contains { String(decoding: $0, as: UTF8.self).contains("hunter2") }, "a secret reached the history")
        // A pause with an end.
        XCTAssertEqual(try pbctl.run("history", "pause", "--for", "1s").status, 0)
        try pbctl.run("copy", stdin: "during the pause")
        sleep(2)
        try pbctl.run("copy", stdin: "after the pause")
        XCTAssertEqual(try lines().first, "3\tafter the pause")
        XCTAssertEqual(try pbctl.run("history", "pause", "--for", "soon").status, 64)
    }

    /// Issue 46: on the store (no display, SSH, a headless host) content meant to vanish is never
    /// recorded and vanishes: a paste-once copy pastes once, a --clear-after copy ends with its lifetime,
    /// and neither reaches the history nor the store's disk.
    func testPasteOnceAndClearAfterOnTheStoreAreNeverRecordedAndVanish() throws {
        try pbctl.run("copy", stdin: "kept")
        XCTAssertEqual(try pbctl.run("copy", "--paste-once", stdin: "one-time 4417").status, 0)
        let first = try pbctl.run("paste")
        XCTAssertEqual(first.text, "one-time 4417", first.stderr)
        let second = try pbctl.run("paste")
        XCTAssertEqual(second.status, 1, "a paste-once item pastes once: \(second.stderr)")
        XCTAssertTrue(second.stdout.isEmpty)
        XCTAssertEqual(try pbctl.run("copy", "--clear-after", "1", stdin: "expiring 9931").status, 0)
        XCTAssertEqual(try pbctl.run("paste").text, "expiring 9931")
        var gone = false
        for _ in 0..<50 where !gone {
            usleep(100_000)
            gone = try pbctl.run("paste").status == 1
        }
        XCTAssertTrue(gone, "a --clear-after copy outlived its lifetime")
        XCTAssertEqual(try lines(), ["1\tkept"])
        for root in [history, pbctl.environment["PBCTL_STORE"]!] {
            let disk = (FileManager.default.subpaths(atPath: root) ?? []).compactMap {
                try? Data(contentsOf: URL(fileURLWithPath: root + "/" + $0))
            }
            XCTAssertFalse(disk.contains { String(decoding: $0, as: UTF8.self).contains("4417") || String(decoding: $0, as: UTF8.self).contains("9931") },
                           "vanishing content reached \(root)")
        }
    }

    /// Issue 46: `history import` reads the markers and the configuration's rules as a copy does: an entry
    /// carrying a password manager's hint (by its MIME name, any case), a concealed marker, or text the
    /// configuration ignores is never recorded, and the import says how many.
    func testImportRefusesMarkedAndIgnoredEntries() throws {
        let config = scratch + "/config/pbctl"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try Data("history.ignore-regex = ^token=\nhistory.ignore-types = image/*\n".utf8).write(to: URL(fileURLWithPath: config + "/config"))
        var runner = pbctl!
        runner.environment["XDG_CONFIG_HOME"] = scratch + "/config"
        let secret = Data("hunter2-secret".utf8).base64EncodedString()
        let lines = """
            {"time":"2026-01-01T00:00:00Z","representations":{"text/plain":"\(Data("ordinary".utf8).base64EncodedString())"}}
            {"time":"2026-01-01T00:00:01Z","representations":{"text/plain":"\(secret)","x-kde-passwordManagerHint":"\(Data("secret".utf8).base64EncodedString())"}}
            {"time":"2026-01-01T00:00:02Z","representations":{"text/plain":"\(secret)","org.nspasteboard.ConcealedType":""}}
            {"time":"2026-01-01T00:00:03Z","representations":{"text/plain":"\(Data("token=abc".utf8).base64EncodedString())"}}
            {"time":"2026-01-01T00:00:04Z","representations":{"image/png":"iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAEElEQVR4nGP4z8AAQQxwFgBB0gX7h/C5SAAAAABJRU5ErkJggg=="}}
            """
        let imported = try runner.run(["history", "import", "-"], stdin: Data(lines.utf8))
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stderr.contains("4 never recorded"), imported.stderr)
        XCTAssertEqual(try runner.run("history").text, "1\tordinary\n")
        let disk = (FileManager.default.subpaths(atPath: history) ?? []).compactMap { try? Data(contentsOf: URL(fileURLWithPath: history + "/" + $0)) }
        XCTAssertFalse(disk.contains { String(decoding: $0, as: UTF8.self).contains("hunter2") }, "a secret reached the history")
    }

    /// Issue 46: an entry past history.max-age is never listed, searched or pasted, even before a copy
    /// removes it; pinned entries stay.
    func testEntriesPastTheAgeLimitAreNeverShownOrPasted() throws {
        try pbctl.run("copy", stdin: "old and pinned")
        try pbctl.run("copy", stdin: "old")
        XCTAssertEqual(try pbctl.run("history", "pin", "1").status, 0)
        sleep(2)
        let config = scratch + "/config/pbctl"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try Data("history.max-age = 1s\n".utf8).write(to: URL(fileURLWithPath: config + "/config"))
        var runner = pbctl!
        runner.environment["XDG_CONFIG_HOME"] = scratch + "/config"
        XCTAssertEqual(try runner.run("history").text, "1\told and pinned\n")
        XCTAssertEqual(try runner.run("history", "search", "old").text, "1\told and pinned\n")
        let paste = try runner.run("history", "paste", "2")
        XCTAssertEqual(paste.status, 1)
        XCTAssertTrue(paste.stderr.contains("history.max-age"), paste.stderr)
        XCTAssertEqual(try runner.run("history", "copy", "2").status, 1)
        XCTAssertEqual(try runner.run("history", "paste", "1").text, "old and pinned")
    }

    func testBoundsFromTheConfigurationFile() throws {
        let config = scratch + "/config/pbctl"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try Data("# bounds\nhistory.max-entries = 3\nhistory.max-entry-size = 1K\nhistory.bogus = 1\n".utf8)
            .write(to: URL(fileURLWithPath: config + "/config"))
        var runner = pbctl!
        runner.environment["XDG_CONFIG_HOME"] = scratch + "/config"
        for n in 1...5 { try runner.run("copy", stdin: "entry \(n)") }
        let copy = try runner.run(["copy", "--type", "public.data"], stdin: Data(repeating: 7, count: 2000))
        XCTAssertTrue(copy.stderr.contains("unknown key history.bogus"), copy.stderr)
        XCTAssertEqual(
            try runner.run("history").text,
            "6\t[not kept: application/octet-stream 2.0 KB over history.max-entry-size]\n5\tentry 5\n4\tentry 4\n",
            "oldest dropped; the large one listed as skipped, with its size")
        for gone in ["1", "2", "3"] { XCTAssertEqual(try runner.run("history", "paste", gone).status, 1, "entry \(gone) was dropped") }
        // It has nothing to paste, and says so; it never becomes the clipboard.
        let paste = try runner.run("history", "paste", "6")
        XCTAssertEqual(paste.status, 1)
        XCTAssertTrue(paste.stderr.contains("over history.max-entry-size"), paste.stderr)
        XCTAssertEqual(try runner.run("history", "copy", "6").status, 1)
        XCTAssertEqual(try runner.run("paste").stdout, Data(repeating: 7, count: 2000))
    }

    func testSearchDeleteAndClear() throws {
        try pbctl.run("copy", stdin: "ticket ABC-123 fixed")
        try pbctl.run("copy", "--type", "html", stdin: "<p>Meeting <i>notes</i></p>")
        try pbctl.run("copy", stdin: "lunch")
        XCTAssertEqual(try pbctl.run("history", "search", "MEETING").text, "2\tMeeting notes\n")
        XCTAssertEqual(try pbctl.run("history", "search", "--regex", "[A-Z]{3}-[0-9]+").text, "1\tticket ABC-123 fixed\n")
        XCTAssertEqual(try pbctl.run("history", "search", "nothing like it").status, 1)
        XCTAssertEqual(try pbctl.run("history", "search", "--regex", "(").status, 64)
        XCTAssertEqual(try pbctl.run("history", "delete", "2").status, 0)
        XCTAssertEqual(try lines(), ["3\tlunch", "1\tticket ABC-123 fixed"])
        XCTAssertEqual(try pbctl.run("history", "delete", "2").status, 1)
        XCTAssertEqual(try pbctl.run("history", "clear").status, 0)
        XCTAssertEqual(try pbctl.run("history").text, "")
        try pbctl.run("copy", stdin: "new")
        XCTAssertEqual(try lines(), ["4\tnew"], "numbers are never reused")
    }

    /// A regular expression is matched in linear time, line by line as grep does: one entry of 24 `a`
    /// took 19 s with `(a*)*b` when a backtracking engine searched it.
    func testRegexSearchIsLinearAndPerLine() throws {
        try pbctl.run("copy", stdin: String(repeating: "a", count: 24))
        try pbctl.run("copy", stdin: "x\nn 1050\ny")
        let started = Date()
        let search = try pbctl.run("history", "search", "--regex", "(a*)*b")
        XCTAssertEqual(search.status, 1, search.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "a pathological pattern must not stall the search")
        XCTAssertEqual(try pbctl.run("history", "search", "--regex", "^n 1050$").text, "2\tx\n")
        XCTAssertEqual(try pbctl.run("history", "search", "--regex", "^a{24}$").text, "1\taaaaaaaaaaaaaaaaaaaaaaaa\n")
        let bad = try pbctl.run("history", "search", "--regex", "(a)\\1")
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.contains("--regex"), bad.stderr)
    }

    /// Damage is reported and never fatal: a representation's file changed by hand fails its paste
    /// (74, naming the file) and nothing else; a database that is no longer one fails the history's
    /// commands (74, naming it) but never a copy, which goes through and warns.
    func testDamageIsReportedAndNeverFatal() throws {
        try pbctl.run("copy", stdin: "one")
        let big = scratch + "/big.bin"
        try Data(repeating: 0x42, count: 300_000).write(to: URL(fileURLWithPath: big))
        XCTAssertEqual(try pbctl.run(["copy", "--type", "public.data", big]).status, 0)
        // A file of an old format beside the database changes nothing.
        try Data("{ garbage".utf8).write(to: URL(fileURLWithPath: history + "/index.json"))
        XCTAssertEqual(try lines().count, 2)
        let blob = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: history + "/blobs").first)
        try Data("longer than it was".utf8).write(to: URL(fileURLWithPath: history + "/blobs/" + blob))
        let damaged = try pbctl.run("history", "paste", "2")
        XCTAssertEqual(damaged.status, 74)
        XCTAssertTrue(damaged.stderr.contains(blob), damaged.stderr)
        XCTAssertEqual(try pbctl.run("history", "paste", "1").text, "one")
        // The database itself overwritten: named, exit 74; a copy still goes through.
        for name in ["history.db-wal", "history.db-shm"] { try? FileManager.default.removeItem(atPath: history + "/" + name) }
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: history + "/history.db"))
        let listed = try pbctl.run("history")
        XCTAssertEqual(listed.status, 74)
        XCTAssertTrue(listed.stderr.contains("history.db"), listed.stderr)
        let copy = try pbctl.run("copy", stdin: "still copied")
        XCTAssertEqual(copy.status, 0)
        XCTAssertTrue(copy.stderr.contains("copied, but not recorded in the history"), copy.stderr)
        XCTAssertEqual(try pbctl.run("paste").text, "still copied")
    }

    /// A history written by the previous pbctl (`Fixtures/history-format1`) moves into the database the
    /// first time pbctl reads it: every entry with its number, preview and bytes, what was not kept, the
    /// pause; numbers go on after the old ones; the old files are gone.
    func testAnOldHistoryIsMigratedOnFirstUse() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/history-format1").path
        try? FileManager.default.removeItem(atPath: history)
        try FileManager.default.copyItem(atPath: fixture, toPath: history)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: history)
        let listed = try pbctl.run("history")
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.stderr.contains("recording is paused"), listed.stderr)
        XCTAssertEqual(
            listed.text.split(separator: "\n").map(String.init),
            [
                "8\tlast one", "1\tfirst plain text", "6\t[not kept: application/octet-stream 300 KB over history.max-entry-size]",
                "5\t[application/octet-stream 150 KB]", "4\t[image/png 3×2 74 B]", "3\tHello there", "2\t# Notes",
            ])
        XCTAssertEqual(try pbctl.run("history", "paste", "2", "--as", "html").text, "<h1>Notes</h1>\n<p>Some <em>emphasis</em></p>\n")
        let big = try pbctl.run(["history", "paste", "5"]).stdout
        XCTAssertEqual(big, Data((0..<150_000).map { UInt8($0 % 251) }))
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: history))
        XCTAssertFalse(files.contains { $0.hasSuffix(".pasteboard") || $0.hasPrefix("index.") || $0 == "paused" }, "\(files)")
        XCTAssertEqual(try pbctl.run("history", "resume").status, 0)
        try pbctl.run("copy", stdin: "after the migration")
        XCTAssertEqual(try lines().first, "9\tafter the migration", "7 was deleted before: never given again")
    }

    /// Export writes JSON Lines that import reads back: into an empty history, exported again, the same
    /// bytes; imported twice, nothing added; a bad line is reported by number and the rest imported.
    func testExportImportRoundTrip() throws {
        try pbctl.run("copy", "--from", "markdown", stdin: "# Notes\n\nSome *emphasis*\n")
        try pbctl.run("copy", "--type", "html", stdin: "<p>Hello <b>there</b></p>")
        let png = try XCTUnwrap(Data(base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAEElEQVR4nGP4z8AAQQxwFgBB0gX7h/C5SAAAAABJRU5ErkJggg=="))
        try png.write(to: URL(fileURLWithPath: scratch + "/shot.png"))
        try pbctl.run("copy", scratch + "/shot.png")
        XCTAssertEqual(try pbctl.run("history", "pin", "1").status, 0)
        let exported = try pbctl.run("history", "export")
        XCTAssertEqual(exported.status, 0, exported.stderr)
        let lines = exported.text.split(separator: "\n")
        XCTAssertEqual(lines.count, 3)
        XCTAssertTrue(lines[0].contains(#""source":"pbctl","pinned":true,"representations":{"text/markdown":"#), String(lines[0]))
        try exported.stdout.write(to: URL(fileURLWithPath: scratch + "/history.jsonl"))
        var other = PbctlRunner(store: scratch + "/other")
        other.environment["PBCTL_BACKEND"] = "store"
        let imported = try other.run("history", "import", scratch + "/history.jsonl")
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(try other.run("history", "export").stdout, exported.stdout, "export → import → export: the same bytes")
        XCTAssertEqual(try other.run(["history", "import", "-"], stdin: exported.stdout).status, 0)
        XCTAssertEqual(try other.run("history").text.split(separator: "\n").count, 3, "entries already there are not added again")
        XCTAssertEqual(try other.run("history", "paste", "3").stdout, png)
        XCTAssertEqual(try other.run("history", "--pinned").text, "1\t# Notes\n")
        // Bad lines: each named, the rest imported, exit 65.
        let mixed = """
            {"time":"2026-01-01T00:00:00Z","representations":{"text/plain":"Z29vZA=="}}
            not json
            {"time":"2026-01-01T00:00:01Z","representations":{"image/png":"bm90IGEgcGljdHVyZQ=="}}
            {"time":"2026-01-01T00:00:02Z","representations":{"text/plain;charset=utf-8":"/w=="}}
            {"time":"2026-01-01T00:00:03Z","representations":{"no/such-type-anywhere-really":"eA==","x y":"eA=="}}
            {"time":"2026-01-01T00:00:04Z","source":"editor","representations":{"text/html":"PGI+b2s8L2I+"}}
            """
        let partial = try other.run(["history", "import", "-"], stdin: Data(mixed.utf8))
        XCTAssertEqual(partial.status, 65, partial.stderr)
        for number in [2, 3, 4, 5] { XCTAssertTrue(partial.stderr.contains("line \(number): "), "line \(number): \(partial.stderr)") }
        XCTAssertFalse(partial.stderr.contains("line 1:") || partial.stderr.contains("line 6:"), partial.stderr)
        XCTAssertEqual(try other.run("history", "search", "good").status, 0)
        XCTAssertEqual(try other.run("history", "--source", "editor").text.split(separator: "\n").count, 1)
        XCTAssertEqual(try other.run("history", "import", scratch + "/missing.jsonl").status, 65)
    }

    /// Filters, pins, clear that keeps them, and the configuration's rules (ignored types and text,
    /// the age limit).
    func testFiltersPinsAndRules() throws {
        let config = scratch + "/config/pbctl"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try Data("""
            history.ignore-types = application/x-secret, image/*
            history.ignore-regex = ^password: 
            history.ignore-regex = [0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{4}
            history.max-age = 1y
            """.utf8).write(to: URL(fileURLWithPath: config + "/config"))
        var runner = pbctl!
        runner.environment["XDG_CONFIG_HOME"] = scratch + "/config"
        try runner.run("copy", stdin: "kept text")
        try runner.run("copy", "--type", "html", stdin: "<p>kept html</p>")
        try runner.run("copy", stdin: "password: hunter2")
        try runner.run("copy", stdin: "card 1234-5678-9012-3456 here")
        try runner.run(["copy", "--type", "application/x-secret"], stdin: Data("s3cret".utf8))
        let png = try XCTUnwrap(Data(base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAEElEQVR4nGP4z8AAQQxwFgBB0gX7h/C5SAAAAABJRU5ErkJggg=="))
        try png.write(to: URL(fileURLWithPath: scratch + "/shot.png"))
        let verbose = try runner.run("copy", "-v", scratch + "/shot.png")
        XCTAssertTrue(verbose.stderr.contains("history.ignore-types"), verbose.stderr)
        XCTAssertEqual(try runner.run("history").text, "2\tkept html\n1\tkept text\n")
        XCTAssertEqual(try runner.run("history", "--type", "text/html").text, "2\tkept html\n")
        XCTAssertEqual(try runner.run("history", "--type", "public.text", "--since", "1h").text.split(separator: "\n").count, 2)
        XCTAssertEqual(try runner.run("history", "--since", "2999-01-01").text, "")
        XCTAssertEqual(try runner.run("history", "--since", "yesterday-ish").status, 64)
        XCTAssertEqual(try runner.run("history", "--source", "nobody").text, "")
        XCTAssertEqual(try runner.run("history", "search", "KEPT", "--type", "html").text, "2\tkept html\n")
        // Pins survive clear unless asked.
        XCTAssertEqual(try runner.run("history", "pin", "1").status, 0)
        XCTAssertEqual(try runner.run("history", "pin", "99").status, 1)
        XCTAssertEqual(try runner.run("history", "clear").status, 0)
        XCTAssertEqual(try runner.run("history").text, "1\tkept text\n")
        XCTAssertEqual(try runner.run("history", "clear", "--all").status, 0)
        XCTAssertEqual(try runner.run("history").text, "")
        // An imported entry older than the age limit is dropped; a pinned one stays.
        let old = """
            {"time":"2001-01-01T00:00:00Z","representations":{"text/plain":"b2xk"}}
            {"time":"2001-01-02T00:00:00Z","pinned":true,"representations":{"text/plain":"b2xkIHBpbm5lZA=="}}
            """
        XCTAssertEqual(try runner.run(["history", "import", "-"], stdin: Data(old.utf8)).status, 0)
        XCTAssertEqual(try runner.run("history").text, "4\told pinned\n", "ignored copies took no number")
        // A bad rule is reported and ignored.
        try Data("history.max-age = forever\nhistory.ignore-regex = (\n".utf8).write(to: URL(fileURLWithPath: config + "/config"))
        let warned = try runner.run("history")
        XCTAssertTrue(warned.stderr.contains("history.max-age") && warned.stderr.contains("history.ignore-regex"), warned.stderr)
    }

    /// `history import --from cliphist` runs `cliphist list` and `cliphist decode` (cliphist is not in
    /// Debian: a script answers as cliphist's own tests say it does, `ID<TAB>preview` newest first and
    /// the bytes of the line's ID).
    func testImportFromCliphist() throws {
        let bin = scratch + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let png = try XCTUnwrap(Data(base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAEElEQVR4nGP4z8AAQQxwFgBB0gX7h/C5SAAAAABJRU5ErkJggg=="))
        try png.write(to: URL(fileURLWithPath: bin + "/3"))
        try Data("second\nwith two lines".utf8).write(to: URL(fileURLWithPath: bin + "/2"))
        try Data("first".utf8).write(to: URL(fileURLWithPath: bin + "/1"))
        let script = """
            #!/bin/sh
            case "$1" in
            list) printf '3\\t[[ binary data 74 B png 3x2 ]]\\n2\\tsecond with two lines\\n1\\tfirst\\n' ;;
            decode) IFS= read -r line; id=$(printf '%s' "$line" | cut -f1); cat "\(bin)/$id" ;;
            *) exit 1 ;;
            esac
            """
        try Data(script.utf8).write(to: URL(fileURLWithPath: bin + "/cliphist"))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bin + "/cliphist")
        var runner = pbctl!
        runner.environment["PATH"] = bin + ":" + (runner.environment["PATH"] ?? "/usr/bin:/bin")
        let imported = try runner.run("history", "import", "--from", "cliphist")
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(try runner.run("history").text, "3\t[image/png 3×2 \(png.count) B]\n2\tsecond\n1\tfirst\n")
        XCTAssertEqual(try runner.run("history", "paste", "2").text, "second\nwith two lines")
        XCTAssertEqual(try runner.run("history", "import", "--from", "cliphist").status, 0)
        XCTAssertEqual(try runner.run("history").text.split(separator: "\n").count, 3, "again: nothing added")
        runner.environment["PATH"] = "/nonexistent"
        XCTAssertEqual(try runner.run("history", "import", "--from", "cliphist").status, 69)
    }

    /// Several processes record at once: every copy that succeeded is an entry, none twice, and the
    /// database is whole (sqlite3's integrity check, the index's own).
    func testConcurrentRecordersLoseNothing() throws {
        let runner = pbctl!
        let group = DispatchGroup()
        let failures = ConcurrencyStressTests.Log()
        for worker in 0..<6 {
            DispatchQueue.global().async(group: group) {
                for step in 0..<15 {
                    let result = try? runner.run("copy", stdin: "worker \(worker) copy \(step)")
                    if result?.status != 0 { failures.fail("copy \(worker)-\(step): \(result?.stderr ?? "")") }
                }
            }
        }
        group.wait()
        XCTAssertEqual(failures.failures, [])
        let previews = Set(try lines().map { String($0.split(separator: "\t")[1]) })
        XCTAssertEqual(previews.count, 90)
        for worker in 0..<6 { for step in 0..<15 { XCTAssertTrue(previews.contains("worker \(worker) copy \(step)")) } }
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "sqlite3 is not installed")
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        check.arguments = [history + "/history.db", "PRAGMA integrity_check; INSERT INTO search(search) VALUES('integrity-check'); SELECT count(*) FROM entry;"]
        let out = Pipe()
        check.standardOutput = out
        try check.run()
        check.waitUntilExit()
        XCTAssertEqual(String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self), "ok\n90\n")
    }

    /// Readers list while writers record: every listing is whole.
    func testListingWhileRecording() throws {
        let runner = pbctl!
        let group = DispatchGroup()
        for n in 0..<4 {
            DispatchQueue.global().async(group: group) { for k in 0..<10 { _ = try? runner.run("copy", stdin: "w\(n)-\(k)") } }
        }
        for _ in 0..<20 {
            let listed = try pbctl.run("history")
            XCTAssertEqual(listed.status, 0, listed.stderr)
            XCTAssertTrue(listed.stderr.isEmpty, listed.stderr)
        }
        group.wait()
        XCTAssertEqual(try pbctl.run("history").text.split(separator: "\n").count, 40)
    }
}

extension Process {
    /// Waits for the process and returns its exit status (the history tests' concurrent runs).
    func waitAndStatus() -> Int32 {
        waitUntilExit()
        return terminationStatus
    }
}
