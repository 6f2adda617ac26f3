import Foundation
import XCTest

/// Pixels of an image file as ImageMagick decodes them: RGBA, 8 bits a channel.
func magickPixels(_ path: String) -> Data? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/convert")
    process.arguments = [path + "[0]", "-depth", "8", "rgba:-"]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return nil }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return process.terminationStatus == 0 ? data : nil
}

/// The PSNR of `a` against `b` (RGB, the alpha channel left out) in dB.
func psnr(_ a: Data, _ b: Data) -> Double {
    guard a.count == b.count, !a.isEmpty else { return 0 }
    var sum = 0.0
    var count = 0
    for i in stride(from: 0, to: a.count, by: 4) {
        for c in 0..<3 {
            let d = Double(a[a.startIndex + i + c]) - Double(b[b.startIndex + i + c])
            sum += d * d
            count += 1
        }
    }
    let mse = sum / Double(count)
    return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
}

/// Images through the store, as a user copies and pastes them: one copy offers every raster type,
/// HTML and RTF; every target decodes to the same pixels (JPEG by PSNR); damaged files and bombs are
/// refused before the clipboard changes.
final class ImageCLITests: PbctlTestCase {
    var magick: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/convert") }

    /// A 64×48 picture with a gradient and a translucent corner, made by ImageMagick.
    func picture(_ name: String = "shot.png") throws -> String {
        try XCTSkipUnless(magick, "ImageMagick is not installed")
        let path = scratch + "/" + name
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/convert")
        process.arguments = ["-size", "64x48", "gradient:#ff8000-#0040ff", "-alpha", "set", "-region", "16x16+0+0", "-channel", "A",
                             "-evaluate", "set", "40%", "+region", "-depth", "8", path]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return path
    }

    func testOneImageCopyOffersEveryTypeAndEachDecodesToTheSamePixels() throws {
        let png = try picture()
        XCTAssertEqual(try pbctl.run("copy", png).status, 0)
        let types = try pbctl.run("types").text
        for type in ["image/png", "image/jpeg", "image/bmp", "image/tiff", "image/webp", "text/html", "text/rtf"] {
            XCTAssertTrue(types.contains(type), "not offered: \(type)\n" + types)
        }
        XCTAssertFalse(types.contains("text/plain"), "an image offers no plain text")
        XCTAssertTrue(types.hasPrefix("public.png"), "the original first")
        let original = try XCTUnwrap(magickPixels(png))
        for format in ["png", "bmp", "tiff", "webp"] {
            let out = scratch + "/out." + format
            XCTAssertEqual(try pbctl.run("paste", "-o", out).status, 0, format)
            XCTAssertEqual(magickPixels(out), original, "\(format) keeps every pixel and the alpha")
        }
        let jpeg = scratch + "/out.jpg"
        XCTAssertEqual(try pbctl.run("paste", "--as", "jpeg", "-o", jpeg).status, 0)
        var white = Data()
        for i in stride(from: 0, to: original.count, by: 4) {
            let a = Double(original[i + 3]) / 255
            for c in 0..<3 { white.append(UInt8((Double(original[i + c]) * a + 255 * (1 - a)).rounded())) }
            white.append(255)
        }
        XCTAssertGreaterThan(psnr(try XCTUnwrap(magickPixels(jpeg)), white), 30, "JPEG composites alpha over white")
        let small = try pbctl.run("paste", "--as", "jpeg", "--quality", "10").stdout.count
        XCTAssertLessThan(small, try Data(contentsOf: URL(fileURLWithPath: jpeg)).count, "--quality lowers the size")
        XCTAssertTrue(try pbctl.run("paste", "--type", "text/html").text.hasPrefix("<img src=\"data:image/png;base64,"))
        XCTAssertTrue(try pbctl.run("paste", "--as", "rtf").text.contains("\\pict\\pngblip\\picw64\\pich48"))
        XCTAssertTrue(try pbctl.run("history").text.hasPrefix("1\t[image/png 64×48 "), "the history lists it with its size")
        let fromHistory = scratch + "/history.jpg"
        XCTAssertEqual(try pbctl.run("history", "paste", "1", "--as", "jpeg", "-o", fromHistory).status, 0)
        XCTAssertNotNil(magickPixels(fromHistory))
        // A plain paste writes the image it was, not the HTML made to carry it; it has no text.
        XCTAssertEqual(try pbctl.run("paste").stdout, try Data(contentsOf: URL(fileURLWithPath: png)))
        let plain = try pbctl.run("paste", "--plain")
        XCTAssertEqual(plain.status, 1)
        XCTAssertTrue(plain.stdout.isEmpty)
        XCTAssertTrue(plain.stderr.contains("image"), plain.stderr)
    }

    /// LibreOffice Writer, the rich-text consumer: the RTF and the HTML an image copy offers both carry
    /// the picture (its PDF export lays out one 64×48 image).
    func testLibreOfficeWriterTakesThePictureFromTheRTFAndTheHTML() throws {
        let png = try picture()
        XCTAssertEqual(try pbctl.run("copy", png).status, 0)
        for (format, name, filter) in [("rtf", "pic.rtf", nil), ("html", "pic.html", "HTML (StarWriter)")] {
            let path = scratch + "/" + name
            XCTAssertEqual(try pbctl.run("paste", "--as", format, "-o", path).status, 0)
            try libreOfficeConvert(path, to: "pdf:writer_pdf_Export", in: scratch, inputFilter: filter)
            let pdf = String(decoding: try Data(contentsOf: URL(fileURLWithPath: scratch + "/pic.pdf")), as: UTF8.self)
            XCTAssertTrue(pdf.contains("/Subtype/Image/Width 64/Height 48"), "Writer shows no 64×48 picture from the \(format)")
            try FileManager.default.removeItem(atPath: scratch + "/pic.pdf")
        }
    }

    func testAnImageIsKnownByItsContentWhateverItsName() throws {
        let png = try picture()
        let misnamed = scratch + "/really-a-png.jpg"
        try FileManager.default.copyItem(atPath: png, toPath: misnamed)
        XCTAssertEqual(try pbctl.run("copy", misnamed).status, 0)
        XCTAssertTrue(try pbctl.run("types").text.hasPrefix("public.png"))
        XCTAssertEqual(try pbctl.run(["copy", "--type", "image/bmp"], stdin: try Data(contentsOf: URL(fileURLWithPath: png))).status, 0)
        XCTAssertTrue(try pbctl.run("types").text.hasPrefix("public.png"), "the content decides when it is an image")
        XCTAssertEqual(try pbctl.run(["convert", "--from", "png", "--to", "bmp", png]).stdout.prefix(2), Data("BM".utf8))
    }

    func testDamagedImagesAndBombsAreRefusedAndTheClipboardStays() throws {
        try pbctl.run("copy", stdin: "before")
        let png = try Data(contentsOf: URL(fileURLWithPath: try picture()))
        // A small PNG declaring 100000×100000.
        var bomb = Data(png.prefix(16))
        bomb.append(contentsOf: [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0, 8, 6, 0, 0, 0])
        bomb.append(contentsOf: [0xDE, 0xAD, 0xBE, 0xEF])
        bomb.append(png.suffix(from: 33))
        let cases: [(String, Data)] = [
            ("truncated.png", png.prefix(png.count / 2)), ("random.png", Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) })),
            ("bomb.png", bomb),
        ]
        for (name, bytes) in cases {
            let path = try { () throws -> String in
                let path = scratch + "/" + name
                try bytes.write(to: URL(fileURLWithPath: path))
                return path
            }()
            let started = Date()
            let result = try pbctl.run("copy", path)
            XCTAssertEqual(result.status, 65, name + ": " + result.stderr)
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "one line: " + result.stderr)
            XCTAssertLessThan(Date().timeIntervalSince(started), 5, name)
            XCTAssertEqual(try pbctl.run("paste").text, "before", "\(name) replaced the clipboard")
        }
        XCTAssertEqual(try pbctl.run(["copy", "--type", "application/octet-stream"], stdin: bomb).status, 0, "any bytes as they are")
        var capped = pbctl!
        capped.environment["PBCTL_MAX_PIXELS"] = "1000"
        XCTAssertEqual(try capped.run("copy", try picture("cap.png")).status, 65, "64×48 is over a cap of 1000 pixels")
    }

    /// PBCTL_MAX_IMAGE_MEMORY: a 35-byte GIF declaring 10000×10000 (within the pixel cap) copies (its
    /// codes checked, no pixel made), pastes as WebP refused with exit 65 and a line saying what it
    /// needs; under a cap of 64M even a copy is refused, the clipboard unchanged.
    func testTheImageMemoryCapRefusesBeforeAllocating() throws {
        var gif = Data("GIF89a".utf8)
        gif.append(contentsOf: [0x10, 0x27, 0x10, 0x27, 0x80, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF])
        gif.append(contentsOf: [0x2C, 0, 0, 0, 0, 0x10, 0x27, 0x10, 0x27, 0, 2, 2, 0x44, 0x01, 0, 0x3B])
        XCTAssertEqual(gif.count, 35)
        let path = scratch + "/bomb.gif"
        try gif.write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(try pbctl.run("copy", path).status, 0)
        let webp = try pbctl.run("paste", "--as", "webp")
        XCTAssertEqual(webp.status, 65, webp.stderr)
        XCTAssertTrue(webp.stdout.isEmpty)
        XCTAssertTrue(webp.stderr.contains("GIF of 10000x10000: converting it to lossless WebP needs about"), webp.stderr)
        XCTAssertTrue(webp.stderr.contains("over the image memory cap of 1024 MiB (PBCTL_MAX_IMAGE_MEMORY)"), webp.stderr)
        XCTAssertEqual(webp.stderr.split(separator: "\n").count, 1, webp.stderr)
        try pbctl.run("copy", stdin: "before")
        var capped = pbctl!
        capped.environment["PBCTL_MAX_IMAGE_MEMORY"] = "64M"
        let copy = try capped.run("copy", path)
        XCTAssertEqual(copy.status, 65, copy.stderr)
        XCTAssertTrue(copy.stderr.contains("over the image memory cap of 64 MiB"), copy.stderr)
        XCTAssertEqual(try pbctl.run("paste").text, "before")
    }

    /// --quality makes WebP lossy at it, from a PNG too (README's `paste --as webp --quality 80`);
    /// without it a PNG gives lossless WebP.
    func testQualityMakesWebPLossy() throws {
        let png = try picture()
        XCTAssertEqual(try pbctl.run("copy", png).status, 0)
        let lossless = try pbctl.run("paste", "--as", "webp").stdout
        XCTAssertNotNil(lossless.range(of: Data("VP8L".utf8)))
        let q80 = try pbctl.run("paste", "--as", "webp", "--quality", "80").stdout
        let q10 = try pbctl.run("paste", "--as", "webp", "--quality", "10").stdout
        XCTAssertNil(q80.range(of: Data("VP8L".utf8)))
        XCTAssertNotNil(q80.range(of: Data("VP8 ".utf8)))
        XCTAssertNotEqual(q80, q10)
        XCTAssertLessThan(q10.count, q80.count)
        let out = scratch + "/q80.webp"
        try q80.write(to: URL(fileURLWithPath: out))
        XCTAssertNotNil(magickPixels(out), "ImageMagick reads the lossy WebP")
    }
}
