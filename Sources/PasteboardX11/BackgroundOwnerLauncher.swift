#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc
import Pasteboard

/// Starts the detached process that owns a selection after `pbctl copy` returns (xclip's and
/// wl-copy's fork, done with posix_spawn so no Swift runtime state is duplicated).
///
/// The child runs in its own session with stdin on a pipe carrying the ``ItemArchive``, stdout and
/// stderr on /dev/null, every other descriptor closed except fd 3, on which it reports "K" once it
/// owns the selection (or "E" and a message). So `out=$(pbctl copy < f)` returns at once.
public enum BackgroundOwnerLauncher {
    /// The status descriptor the child writes to.
    public static let statusDescriptor: Int32 = 3

    /// Spawns `executable arguments…`, hands it `archive`, and waits up to `timeout` seconds for it to
    /// report ownership.
    /// - Throws: ``PasteboardError`` `.unavailable` when the child fails or does not report in time.
    public static func launch(executable: String, arguments: [String], archive: Data, timeout: Double = 10) throws {
        try launch(executable: executable, arguments: arguments, archiveParts: [archive], timeout: timeout)
    }

    /// As ``launch(executable:arguments:archive:timeout:)`` with the archive in consecutive parts
    /// (``ItemArchive/encodedParts(_:keepDerivedLazy:)``). The child's stdin is an in-memory file
    /// holding them, which it maps instead of reading (no copy through a pipe); a pipe when the
    /// kernel has no memfd.
    public static func launch(executable: String, arguments: [String], archiveParts: [Data], timeout: Double = 10) throws {
        let memoryFile = MemoryFile.create(archiveParts)
        defer { if let memoryFile { close(memoryFile) } }
        var dataPipe: [Int32] = [-1, -1]
        var statusPipe: [Int32] = [-1, -1]
        if memoryFile == nil {
            guard pipe(&dataPipe) == 0 else { throw posixError("pipe") }
        }
        guard pipe(&statusPipe) == 0 else {
            if memoryFile == nil { close(dataPipe[0]); close(dataPipe[1]) }
            throw posixError("pipe")
        }
        for fd in dataPipe + statusPipe where fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, memoryFile ?? dataPipe[0], 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, statusPipe[1], statusDescriptor)
        // Descriptors the caller inherited from its parent (a shell's command substitution, a test
        // harness) must not stay open in a daemon, or whoever waits for their EOF hangs.
        for fd in openDescriptors()
        where fd > statusDescriptor && !dataPipe.contains(fd) && !statusPipe.contains(fd) && fd != memoryFile {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        sigaddset(&defaults, SIGHUP)
        sigaddset(&defaults, SIGINT)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(
            &attributes, Int16(spawnSetSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        if memoryFile == nil { close(dataPipe[0]) }
        close(statusPipe[1])
        defer { close(statusPipe[0]) }
        guard status == 0 else {
            if memoryFile == nil { close(dataPipe[1]) }
            throw PasteboardError(.unavailable, "cannot start the selection owner: \(String(cString: strerror(status)))")
        }
        var written = true
        if memoryFile == nil {
            for part in archiveParts where written {
                written = part.withUnsafeBytes { raw -> Bool in
                    var offset = 0
                    while offset < raw.count {
                        let n = write(dataPipe[1], raw.baseAddress! + offset, raw.count - offset)
                        if n < 0 {
                            if errno == EINTR { continue }
                            return false
                        }
                        offset += n
                    }
                    return true
                }
            }
            close(dataPipe[1])
        }
        guard written else {
            throw PasteboardError(.unavailable, "the selection owner exited before taking the data")
        }
        let reply = readStatus(statusPipe[0], deadline: monotonicNanoseconds() &+ UInt64(timeout * 1e9))
        if reply.first == UInt8(ascii: "K") { return }
        var child: Int32 = 0
        _ = waitpid(pid, &child, WNOHANG)
        if reply.first == UInt8(ascii: "E") {
            let message = String(decoding: reply.dropFirst(), as: UTF8.self)
            let unavailable = message.hasPrefix("!")
            throw PasteboardError(unavailable ? .unavailable : .io, String(message.drop(while: { $0 == "!" })))
        }
        kill(pid, SIGTERM)
        throw PasteboardError(.unavailable, reply.isEmpty ? "the selection owner exited without taking the selection"
                              : "the selection owner did not report in time")
    }

    /// Reports ownership (or a failure) to the launching `pbctl copy`, then closes the descriptor.
    public static func report(_ error: (any Error)?) {
        var message: [UInt8]
        if let error {
            let unavailable = (error as? PasteboardError)?.code == .unavailable
            message = Array(("E" + (unavailable ? "!" : "") + "\(error)").utf8)
        } else {
            message = [UInt8(ascii: "K")]
        }
        _ = message.withUnsafeMutableBytes { write(statusDescriptor, $0.baseAddress, $0.count) }
        close(statusDescriptor)
    }

    private static func readStatus(_ fd: Int32, deadline: UInt64) -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while result.count < 65536 {
            let now = monotonicNanoseconds()
            guard now < deadline else { break }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(min(UInt64(Int32.max), (deadline - now) / 1_000_000 + 1)))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { break }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            result += buffer[0..<n]
            if result.first == UInt8(ascii: "K") { break }
        }
        return result
    }

    /// glibc's `POSIX_SPAWN_SETSID` (spawn.h, a GNU extension Swift's Glibc module does not export).
    private static let spawnSetSID: Int32 = 0x80

    /// The descriptors open in this process (from /proc/self/fd), the listing's own excluded.
    private static func openDescriptors() -> [Int32] {
        guard let directory = opendir("/proc/self/fd") else { return [] }
        let own = dirfd(directory)
        var result: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if let fd = Int32(name), fd != own { result.append(fd) }
        }
        closedir(directory)
        return result
    }

    private static func posixError(_ what: String) -> PasteboardError {
        PasteboardError(.io, "\(what) failed: \(String(cString: strerror(errno)))")
    }
}
