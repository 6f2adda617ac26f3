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
import CSystem
import Pasteboard

/// A ``RepresentationSink`` writing to a file descriptor (standard output, a file): chunks with
/// `write`, and bytes of a stored file moved in the kernel with `sendfile`, so a large paste from the
/// store never passes through pbctl's memory.
///
/// With `dropTrailingNewline` the last two bytes seen are held back until ``finish()``, which drops
/// one trailing newline (LF or CRLF) before writing them.
public final class DescriptorSink: RepresentationSink {
    public let fd: Int32
    public let path: String
    let brokenPipe: (() -> Never)?
    let dropTrailingNewline: Bool
    /// At most two bytes held back for `dropTrailingNewline`.
    private var held: [UInt8] = []
    /// Bytes delivered so far (held ones included).
    public private(set) var count = 0
    /// False once `sendfile` refused this descriptor: chunks from then on.
    private var kernelCopy = true

    public init(fd: Int32, path: String, dropTrailingNewline: Bool = false, brokenPipe: (() -> Never)? = nil) {
        self.fd = fd
        self.path = path
        self.dropTrailingNewline = dropTrailingNewline
        self.brokenPipe = brokenPipe
    }

    public func write(_ chunk: Data) throws {
        guard !chunk.isEmpty else { return }
        count += chunk.count
        guard dropTrailingNewline else { return try POSIX.writeAll(fd, chunk, path: path, brokenPipe: brokenPipe) }
        var bytes = held
        if chunk.count >= 2 {
            // Everything but the chunk's last two bytes goes out now, with what was held.
            if !bytes.isEmpty { try POSIX.writeAll(fd, Data(bytes), path: path, brokenPipe: brokenPipe) }
            try POSIX.writeAll(fd, chunk.prefix(chunk.count - 2), path: path, brokenPipe: brokenPipe)
            held = Array(chunk.suffix(2))
        } else {
            bytes += chunk
            if bytes.count > 2 {
                try POSIX.writeAll(fd, Data(bytes.prefix(bytes.count - 2)), path: path, brokenPipe: brokenPipe)
                bytes = Array(bytes.suffix(2))
            }
            held = bytes
        }
    }

    /// Writes bytes lent by the caller (a converter's output buffer) without copying them first.
    public func write(bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        guard !dropTrailingNewline else { return try write(Data(bytes)) }
        count += bytes.count
        try POSIX.writeAll(fd, bytes, path: path, brokenPipe: brokenPipe)
    }

    public func transfer(fromFile source: Int32, offset: Int, count: Int) throws -> Bool {
        guard kernelCopy, count > 0 else { return count == 0 }
        if !held.isEmpty {
            // More bytes follow: what was held back is not the end.
            try POSIX.writeAll(fd, Data(held), path: path, brokenPipe: brokenPipe)
            held = []
        }
        let direct = dropTrailingNewline ? max(0, count - 2) : count
        var position = off_t(offset)
        var remaining = direct
        while remaining > 0 {
            let n = sendfile(fd, source, &position, min(remaining, 1 << 30))
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&poller, 1, -1)
                    continue
                }
                if errno == EPIPE, let brokenPipe { brokenPipe() }
                if remaining == direct, errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP {
                    kernelCopy = false  // this descriptor takes no sendfile (an O_APPEND file…): chunks
                    return false
                }
                throw POSIX.ioError("write", path)
            }
            if n == 0 { throw PasteboardError(.corrupt, "\(path): the stored file ended early") }
            remaining -= n
        }
        self.count += direct
        if direct < count {
            var tail = [UInt8](repeating: 0, count: count - direct)
            var got = 0
            while got < tail.count {
                let n = tail.withUnsafeMutableBytes { pread(source, $0.baseAddress! + got, $0.count - got, off_t(offset + direct + got)) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { throw POSIX.ioError("read", path) }
                got += n
            }
            try write(Data(tail))
        }
        return true
    }

    public func transfer(fromPipe source: Int32, limit: Int) throws -> Int? {
        guard kernelCopy, !dropTrailingNewline else { return nil }
        while true {
            let n = csystem_splice(source, fd, limit)
            if n >= 0 {
                count += n
                return n
            }
            if errno == EINTR { continue }
            if errno == EAGAIN {
                var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&poller, 1, -1)
                continue
            }
            if errno == EPIPE, let brokenPipe { brokenPipe() }
            if errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP || errno == EBADF {
                kernelCopy = false  // a terminal, an O_APPEND file…: chunks
                return nil
            }
            throw POSIX.ioError("write", path)
        }
    }

    /// Writes what is held back, without one trailing newline when asked.
    public func finish() throws {
        guard dropTrailingNewline else { return }
        if held.last == 0x0A {
            held.removeLast()
            if held.last == 0x0D { held.removeLast() }
        }
        if !held.isEmpty { try POSIX.writeAll(fd, Data(held), path: path, brokenPipe: brokenPipe) }
        held = []
    }
}
