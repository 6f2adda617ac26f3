import CImage
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Buffers the size of an image. From 8 MiB they are mappings of their own in transparent huge pages
/// (`cimage_alloc`): a 4K screenshot is 33 MB of RGBA, 8,000 page faults in 4 KiB pages, which cost
/// more than decoding it.
enum PixelBuffer {
    /// `count` zero bytes.
    static func zeroed(_ count: Int) -> Data {
        guard count > 0, let pointer = cimage_alloc(count) else { return Data(count: count) }
        return Data(bytesNoCopy: pointer, count: count, deallocator: .custom { pointer, count in cimage_release(pointer, count) })
    }

    /// Takes ownership of pixels a C decoder allocated with `cimage_alloc`.
    static func adopt(_ pointer: UnsafeMutablePointer<UInt8>?, _ count: Int) -> Data? {
        guard let pointer, count > 0 else {
            cimage_release(pointer, count)
            return nil
        }
        return Data(bytesNoCopy: pointer, count: count, deallocator: .custom { pointer, count in cimage_release(pointer, count) })
    }
}
