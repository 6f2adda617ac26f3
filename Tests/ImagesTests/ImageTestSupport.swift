import Foundation
import XCTest

@testable import Images

/// Fixtures (made by scripts/make-image-fixtures.py with ImageMagick) and pixel comparisons.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func data(_ name: String) throws -> Data { try Data(contentsOf: root.appendingPathComponent(name)) }

    /// Every image fixture at the top level (not the expected PNGs, the bombs or the profile).
    static func names() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root.path).filter { name in
            !name.hasPrefix(".") && ["png", "jpg", "gif", "bmp", "tif", "webp"].contains((name as NSString).pathExtension)
        }.sorted()
    }

    /// What ImageMagick decodes `name` to, when the script recorded it.
    static func expected(_ name: String) throws -> RasterImage? {
        let url = root.appendingPathComponent("expected").appendingPathComponent(name + ".png")
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try ImageCodec.decode(Data(contentsOf: url))
    }
}

/// Deterministic pseudo-random numbers (SplitMix64) for generated images.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

enum Pixels {
    /// 8-bit samples of an image (16-bit ones rounded), for comparisons across depths.
    static func samples8(_ image: RasterImage) -> [UInt8] { [UInt8](image.eightBit().pixels) }

    static func samples16(_ image: RasterImage) -> [UInt16] {
        precondition(image.depth == .sixteen)
        return image.pixels.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
    }

    /// Fully transparent pixels have no colour that matters: both made (0, 0, 0, 0) before comparing.
    static func clearingTransparent(_ samples: [UInt8]) -> [UInt8] {
        var out = samples
        var i = 0
        while i < out.count {
            if out[i + 3] == 0 { out[i] = 0; out[i + 1] = 0; out[i + 2] = 0 }
            i += 4
        }
        return out
    }

    /// The first differing pixel, described, or nil when equal.
    static func firstDifference(_ a: [UInt8], _ b: [UInt8], width: Int) -> String? {
        guard a.count == b.count else { return "sizes differ: \(a.count) and \(b.count) bytes" }
        var i = 0
        while i < a.count {
            if a[i..<(i + 4)] != b[i..<(i + 4)] {
                let p = i / 4
                return "pixel (\(p % width), \(p / width)): \(Array(a[i..<(i + 4)])) vs \(Array(b[i..<(i + 4)]))"
            }
            i += 4
        }
        return nil
    }

    /// Peak signal-to-noise ratio over R, G, B and A in dB (infinity when equal).
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count)
        var sum = 0.0
        for i in 0..<a.count {
            let d = Double(a[i]) - Double(b[i])
            sum += d * d
        }
        if sum == 0 { return .infinity }
        let mse = sum / Double(a.count)
        return 10 * log10(255 * 255 / mse)
    }

    static func image(width: Int, height: Int, depth: RasterImage.Depth = .eight, iccProfile: Data? = nil,
                      _ pixel: (Int, Int) -> (Int, Int, Int, Int)) -> RasterImage {
        var data = Data(count: width * height * (depth == .eight ? 4 : 8))
        data.withUnsafeMutableBytes { raw in
            for y in 0..<height {
                for x in 0..<width {
                    let (r, g, b, a) = pixel(x, y)
                    let i = (y * width + x) * 4
                    if depth == .eight {
                        raw[i] = UInt8(r); raw[i + 1] = UInt8(g); raw[i + 2] = UInt8(b); raw[i + 3] = UInt8(a)
                    } else {
                        let s = raw.bindMemory(to: UInt16.self)
                        s[i] = UInt16(r); s[i + 1] = UInt16(g); s[i + 2] = UInt16(b); s[i + 3] = UInt16(a)
                    }
                }
            }
        }
        return RasterImage(width: width, height: height, depth: depth, pixels: data, iccProfile: iccProfile)
    }

    /// A screenshot-like picture: smooth gradients, flat blocks, hard edges, and a translucent band.
    static func photo(width: Int, height: Int, alpha: Bool) -> RasterImage {
        image(width: width, height: height) { x, y in
            let r = x * 255 / max(1, width - 1), g = y * 255 / max(1, height - 1)
            let b = (x / 16 + y / 12) % 2 == 0 ? 200 : 40
            let a = alpha ? (y < height / 3 ? 255 : (x * 7 + y * 3) % 256) : 255
            return (r, g, b, a)
        }
    }
}
