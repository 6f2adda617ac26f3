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
import SystemIO

/// A received representation spooled to an unnamed file in memory (memfd) as its chunks arrive, then
/// mapped: the bytes live in the page cache, not in the daemon's heap.
public final class Spool: TransferStorage {
    let fd: Int32
    public private(set) var count = 0

    public init() throws {
        fd = csystem_memfd_create("pbctl-kdeconnect")
        guard fd >= 0 else { throw POSIX.ioError("memfd_create", "the KDE Connect spool") }
    }

    deinit { close(fd) }

    public func append(_ data: Data) throws {
        try POSIX.writeAll(fd, data, path: "the KDE Connect spool")
        count += data.count
    }

    /// The bytes, mapped read-only (empty for none).
    public func mapped() throws -> Data {
        guard count > 0 else { return Data() }
        guard let pointer = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0), pointer != MAP_FAILED else {
            throw POSIX.ioError("mmap", "the KDE Connect spool")
        }
        let size = count
        return Data(bytesNoCopy: pointer, count: size, deallocator: .custom { pointer, size in munmap(pointer, size) })
    }
}
