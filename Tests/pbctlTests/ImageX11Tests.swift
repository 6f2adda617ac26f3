import Foundation
import XCTest

/// Images on X11 with real owners and consumers: pbctl's copy read by GTK (`wait_for_image`), Qt
/// (`QClipboard.image()`) and xclip under every BMP name; foreign owners offering one image type
/// converted by `paste --as`.
final class ImageX11Tests: X11TestCase {
    let xclip = "/usr/bin/xclip"

    func picture(_ format: String) throws -> String {
        try requireTool("/usr/bin/convert")
        let path = scratch + "/picture." + format
        XCTAssertEqual(try run(["/usr/bin/convert", "-size", "40x30", "gradient:red-blue", "-depth", "8", path]).status, 0)
        return path
    }

    func testAPbctlImageCopyIsReadByGTKQtAndXclip() throws {
        try requireTool(xclip)
        let png = try picture("png")
        XCTAssertEqual(try run([pbctl, "copy", png], timeout: 20).status, 0)
        let targets = try run([xclip, "-o", "-selection", "clipboard", "-t", "TARGETS"]).text.split(separator: "\n").map(String.init)
        for target in ["image/png", "image/jpeg", "image/bmp", "image/x-bmp", "image/x-MS-bmp", "image/tiff", "image/webp", "text/html", "text/rtf"] {
            XCTAssertTrue(targets.contains(target), "TARGETS lacks \(target): \(targets)")
        }
        for target in ["image/bmp", "image/x-bmp", "image/x-MS-bmp"] {
            XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard", "-t", target]).stdout.prefix(2), Data("BM".utf8), target)
        }
        XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard", "-t", "image/jpeg"]).stdout.prefix(3), Data([0xFF, 0xD8, 0xFF]))
        if (try? requirePython("gi")) != nil {
            let gtk = try run([python, peers + "/gtk_peer.py", "image", scratch + "/gtk.png"])
            XCTAssertEqual(gtk.status, 0, gtk.stderr)
            XCTAssertEqual(gtk.text, "40 30\n")
            XCTAssertEqual(magickPixels(scratch + "/gtk.png"), magickPixels(png))
        }
        if (try? requirePython("PyQt5")) != nil {
            let qt = try run([python, peers + "/qt_peer.py", "image", scratch + "/qt.png"])
            XCTAssertEqual(qt.status, 0, qt.stderr)
            XCTAssertEqual(qt.text, "40 30\n")
        }
    }

    func testForeignOwnersOfOneImageTypeConvertToAnyOther() throws {
        try requireTool(xclip)
        let reference = try XCTUnwrap(magickPixels(try picture("png")))
        for (format, target) in [("bmp", "image/bmp"), ("jpg", "image/jpeg"), ("tiff", "image/tiff"), ("gif", "image/gif"), ("webp", "image/webp")] {
            let file = try picture(format)
            XCTAssertEqual(try run([xclip, "-selection", "clipboard", "-t", target, "-i", file], detached: true).status, 0)
            let out = scratch + "/converted-\(format).png"
            let paste = try run([pbctl, "paste", "--as", "png", "-o", out])
            XCTAssertEqual(paste.status, 0, "\(target): \(paste.stderr)")
            let pixels = try XCTUnwrap(magickPixels(out), target)
            if format == "jpg" || format == "webp" || format == "gif" {
                XCTAssertGreaterThan(psnr(pixels, reference), 25, target)
            } else {
                XCTAssertEqual(pixels, reference, target)
            }
            XCTAssertEqual(try run([pbctl, "paste", "--as", "bmp"]).stdout.prefix(2), Data("BM".utf8), target)
        }
        // An owner offering a damaged image: the conversion fails cleanly, in one line, exit 65.
        let truncated = try write(try Data(contentsOf: URL(fileURLWithPath: try picture("png"))).prefix(100), "truncated.png")
        XCTAssertEqual(try run([xclip, "-selection", "clipboard", "-t", "image/png", "-i", truncated], detached: true).status, 0)
        let damaged = try run([pbctl, "paste", "--as", "jpeg"])
        XCTAssertEqual(damaged.status, 65, damaged.stderr)
        XCTAssertEqual(damaged.stderr.split(separator: "\n").count, 1, damaged.stderr)
    }
}
