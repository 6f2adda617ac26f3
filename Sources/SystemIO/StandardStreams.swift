#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

// What the xclip, xsel and wl-clipboard personalities ask of the standard streams beyond reading and
// writing them: the file a stream is (wl-clipboard names types after it), and input read as it comes
// (`xsel --follow`).
extension POSIX {
    /// The path of the file `fd` is open on, as `realpath("/dev/fd/N")` gives it; nil for a pipe, a
    /// socket or a terminal (no path names them) or when it cannot be told.
    public static func pathOfDescriptor(_ fd: Int32) -> String? {
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        guard let resolved = realpath("/dev/fd/\(fd)", nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// At most `limit` bytes from `fd` as they arrive: empty at the end of the input.
    /// - Throws: ``PasteboardError`` `.io` when the read fails.
    public static func readSome(_ fd: Int32, limit: Int, path: String) throws -> Data {
        var buffer = [UInt8](repeating: 0, count: max(1, limit))
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count >= 0 { return Data(buffer[0..<count]) }
            if errno == EINTR { continue }
            throw ioError("cannot read", path)
        }
    }
}
