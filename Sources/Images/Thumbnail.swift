#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RasterImage {
    /// The image scaled down to fit `maxSide` pixels a side (each output pixel the average of the source
    /// pixels it covers), at 8 bits a channel; itself when it already fits.
    public func scaledToFit(maxSide: Int) -> RasterImage {
        let source = eightBit()
        guard maxSide > 0, width > maxSide || height > maxSide else { return source }
        let scale = Double(maxSide) / Double(max(width, height))
        let outWidth = max(1, Int((Double(width) * scale).rounded())), outHeight = max(1, Int((Double(height) * scale).rounded()))
        var out = PixelBuffer.zeroed(outWidth * outHeight * 4)
        source.pixels.withUnsafeBytes { raw in
            let input = raw.bindMemory(to: UInt8.self)
            out.withUnsafeMutableBytes { target in
                let output = target.bindMemory(to: UInt8.self)
                for y in 0..<outHeight {
                    let y0 = y * height / outHeight, y1 = max(y0 + 1, (y + 1) * height / outHeight)
                    for x in 0..<outWidth {
                        let x0 = x * width / outWidth, x1 = max(x0 + 1, (x + 1) * width / outWidth)
                        var sums = (0, 0, 0, 0)
                        for sy in y0..<y1 {
                            var at = (sy * width + x0) * 4
                            for _ in x0..<x1 {
                                // Colours weighted by alpha, so a transparent pixel lends no colour.
                                let alpha = Int(input[at + 3])
                                sums.0 += Int(input[at]) * alpha
                                sums.1 += Int(input[at + 1]) * alpha
                                sums.2 += Int(input[at + 2]) * alpha
                                sums.3 += alpha
                                at += 4
                            }
                        }
                        let count = (y1 - y0) * (x1 - x0)
                        let at = (y * outWidth + x) * 4
                        if sums.3 > 0 {
                            output[at] = UInt8(sums.0 / sums.3)
                            output[at + 1] = UInt8(sums.1 / sums.3)
                            output[at + 2] = UInt8(sums.2 / sums.3)
                        }
                        output[at + 3] = UInt8(sums.3 / count)
                    }
                }
            }
        }
        return RasterImage(width: outWidth, height: outHeight, pixels: out, iccProfile: iccProfile)
    }
}
