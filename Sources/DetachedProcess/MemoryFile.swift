#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc
import Pasteboard
import SystemIO
internal import CSystem

/// An anonymous in-memory file (memfd) for handing megabytes to a child process: written once by the
/// parent, mapped by the child, never on disk.
public enum MemoryFile {
    /// A memfd holding `parts` one after another, its offset back at 0; nil when the kernel has no
    /// memfd (the caller then falls back to a pipe).
    public static func create(_ parts: [Data]) -> Int32? {
        let fd = csystem_memfd_create("pbctl-archive")
        guard fd >= 0 else { return nil }
        let total = parts.reduce(0) { $0 + $1.count }
        // Size it first: one allocation per page instead of growing with each write.
        guard ftruncate(fd, off_t(total)) == 0 else {
            close(fd)
            return nil
        }
        var offset = 0
        for part in parts {
            let ok = part.withUnsafeBytes { raw -> Bool in
                var done = 0
                while done < raw.count {
                    let n = pwrite(fd, raw.baseAddress! + done, raw.count - done, off_t(offset + done))
                    if n < 0 {
                        if errno == EINTR { continue }
                        return false
                    }
                    done += n
                }
                return true
            }
            guard ok else {
                close(fd)
                return nil
            }
            offset += part.count
        }
        return fd
    }

    /// Closes a descriptor from ``create(_:)``.
    public static func close(_ fd: Int32) { _ = Glibc.close(fd) }

    /// The whole content of `fd` mapped read-only when it is a regular file (a memfd), nil otherwise
    /// (a pipe: read it instead). The mapping is released with the returned Data.
    public static func map(_ fd: Int32) -> Data? {
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size > 0 else { return nil }
        let size = Int(st.st_size)
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), address != MAP_FAILED else { return nil }
        return Data(bytesNoCopy: address, count: size, deallocator: .custom { pointer, count in
            _ = munmap(pointer, count)
        })
    }
}

extension DetachedProcess {
    /// Spawns a selection owner (`pbctl __serve-x11`, `__serve-wayland`) that serves `item`: the item
    /// goes over as an ``ItemArchive`` in an in-memory file the owner maps (no copy through a pipe), or
    /// through a pipe when the kernel has no memfd. The owner reads it with ``handedOverItem(producer:)``.
    /// What both backends do when this process cannot fork (several threads) or is asked not to.
    /// - Throws: `.unavailable` when `launch` has no command line for a spawned owner.
    public static func spawnOwner(_ launch: OwnerLaunch, _ request: ServeRequest, serving item: Item, timeout: Double = 10) throws {
        guard let arguments = launch.arguments else {
            throw PasteboardError(.unavailable, "this process cannot fork (several threads) and has no owner command to start")
        }
        try spawnOwner(executable: launch.executable, arguments: arguments(request), serving: item, timeout: timeout)
    }

    /// Spawns `executable` with `arguments` as the owner of `item` (``spawnOwner(_:_:serving:timeout:)``).
    public static func spawnOwner(executable: String, arguments: [String], serving item: Item, timeout: Double = 10) throws {
        let parts = try ItemArchive.encodedParts([item])
        let memoryFile = MemoryFile.create(parts)
        defer { if let memoryFile { MemoryFile.close(memoryFile) } }
        try spawn(executable: executable, arguments: arguments, input: memoryFile.map { .descriptor($0) } ?? .bytes(parts),
                  timeout: timeout)
    }

    /// In a spawned owner: the item ``spawnOwner(executable:arguments:serving:timeout:)`` handed over
    /// on standard input.
    public static func handedOverItem(producer: RepresentationProducer?) throws -> Item {
        let archive = try MemoryFile.map(STDIN_FILENO) ?? POSIX.readAll(STDIN_FILENO, path: "standard input")
        guard let item = try ItemArchive.decode(archive, producer: producer).first else {
            throw PasteboardError(.invalidData, "no item to serve")
        }
        return item
    }
}
