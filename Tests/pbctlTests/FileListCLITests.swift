import Foundation
import XCTest

/// Files on the clipboard without a display: `copy --files`, `paste --files`, `--into`.
final class FileListCLITests: PbctlTestCase {
    func testFilesAreOfferedAsEveryFileManagerReadsThem() throws {
        let folder = scratch + "/src"
        try FileManager.default.createDirectory(atPath: folder + "/sub dir", withIntermediateDirectories: true)
        try Data("a".utf8).write(to: URL(fileURLWithPath: folder + "/ä b.txt"))
        try Data("b".utf8).write(to: URL(fileURLWithPath: folder + "/sub dir/inner"))
        XCTAssertEqual(try pbctl.run("copy", "--files", folder + "/ä b.txt", folder + "/sub dir").status, 0)
        XCTAssertEqual(
            try pbctl.run("paste", "--type", "text/uri-list").text,
            "file://\(folder)/%C3%A4%20b.txt\r\nfile://\(folder)/sub%20dir\r\n")
        XCTAssertEqual(
            try pbctl.run("paste", "--type", "x-special/gnome-copied-files").text,
            "copy\nfile://\(folder)/%C3%A4%20b.txt\nfile://\(folder)/sub%20dir")
        XCTAssertEqual(try pbctl.run("paste").text, "\(folder)/ä b.txt\n\(folder)/sub dir\n")
        XCTAssertEqual(try pbctl.run("paste", "--files").text, "\(folder)/ä b.txt\n\(folder)/sub dir\n")
        XCTAssertEqual(try pbctl.run("paste", "--files", "-0").text, "\(folder)/ä b.txt\0\(folder)/sub dir\0")
        // Into a folder: copied, never over what is there.
        let target = scratch + "/dst"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        XCTAssertEqual(try pbctl.run("paste", "--files", "--into", target).status, 0)
        XCTAssertEqual(try String(contentsOfFile: target + "/sub dir/inner", encoding: .utf8), "b")
        let again = try pbctl.run("paste", "--files", "--into", target)
        XCTAssertEqual(again.status, 74)
        XCTAssertTrue(again.stderr.contains("already there") && again.stderr.contains("ä b.txt"), again.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/ä b.txt"), "a copy keeps the source")
    }

    func testACutMovesTheFilesAndMissingPathsCopyNothing() throws {
        let source = scratch + "/moved.txt"
        try Data("m".utf8).write(to: URL(fileURLWithPath: source))
        try pbctl.run("copy", stdin: "previous")
        let missing = try pbctl.run("copy", "--files", source, scratch + "/not-there", scratch + "/nor-this")
        XCTAssertEqual(missing.status, 66)
        XCTAssertTrue(missing.stderr.contains("not-there") && missing.stderr.contains("nor-this"), missing.stderr)
        XCTAssertEqual(try pbctl.run("paste").text, "previous")
        XCTAssertEqual(try pbctl.run("copy", "--files", "--cut", source).status, 0)
        XCTAssertEqual(try pbctl.run("paste", "--type", "application/x-kde-cutselection").text, "1")
        XCTAssertTrue(try pbctl.run("paste", "--type", "x-special/gnome-copied-files").text.hasPrefix("cut\n"))
        let target = scratch + "/dst"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        XCTAssertEqual(try pbctl.run("paste", "--files", "--into", target).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: target + "/moved.txt"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: source), "a cut moves")
        XCTAssertEqual(try pbctl.run("paste", "--files").status, 1, "the list is cleared after a cut is pasted")
        XCTAssertEqual(try pbctl.run("copy", "--cut", stdin: "x").status, 64)
        XCTAssertEqual(try pbctl.run("paste", "--files").status, 1)
    }
}
