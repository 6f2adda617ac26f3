#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The SHA-256 of a spool computed beside the copy that fills it: a second thread reads the spool file
/// (a window at a time, ``OpenSSLSHA256/update(_:file:from:to:buffer:mapped:)``) behind the copy, as far as the
/// copy says it has written, so the history gets the name of the file it adopts without a second pass
/// over the bytes once the copy is done, and the bytes are never held in memory. Only for a copy the
/// history will record (``FileStore/hashSpooledInput(upTo:)``).
/// The size from which the history keeps a representation as a file named by its hash (smaller ones
/// are inline in its database, and the store need not hash them): shared by the history and the store.
public enum ContentFiles {
    public static let smallest = 128 << 10
}

final class SpoolDigest: @unchecked Sendable {
    private let fd: Int32
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var thread: pthread_t? = nil
    /// Guarded by `mutex`: how many bytes the spool holds, whether no more come, whether to stop.
    private var available = 0
    private var ended = false
    private var stopped = false
    /// Set by the thread before it returns.
    private var result: String? = nil

    /// Whether the spool may be mapped a window at a time: an unnamed file, which nobody else can cut short.
    private let mapped: Bool

    /// Starts hashing the spool `fd` (duplicated: the caller's descriptor stays its own); nil when no
    /// thread can be started (the history then hashes the file itself).
    /// Past this many bytes nothing is hashed (the history keeps no larger representation).
    private let limit: Int

    init?(spool fd: Int32, unnamed: Bool, limit: Int) {
        mapped = unnamed
        self.limit = limit
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { return nil }
        self.fd = copy
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        var started = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&started, nil, { context in
            let digest = Unmanaged<SpoolDigest>.fromOpaque(context!).takeRetainedValue()
            digest.run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<SpoolDigest>.fromOpaque(context).release()
            return nil
        }
        thread = started
    }

    deinit {
        close(fd)
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// The spool now holds `count` bytes (past the limit: the thread stops).
    func advance(to count: Int) {
        pthread_mutex_lock(mutex)
        available = count
        if count > limit { stopped = true }
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// The spool is complete at `count` bytes: waits for the thread and returns the digest (nil past the
    /// limit, or when hashing failed: the history then hashes the file itself if it keeps it).
    func finish(count: Int) -> String? {
        pthread_mutex_lock(mutex)
        available = count
        if count > limit { stopped = true }
        ended = true
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
        return join()
    }

    /// The copy failed: the thread stops where it is.
    func abandon() {
        pthread_mutex_lock(mutex)
        stopped = true
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
        _ = join()
    }

    private func join() -> String? {
        if let thread {
            pthread_join(thread, nil)
            self.thread = nil
        }
        return stopped ? nil : result
    }

    private func run() {
        guard let context = try? OpenSSLSHA256.Context(), let buffer = malloc(OpenSSLSHA256.chunkSize) else { return }
        defer { free(buffer) }
        var offset = 0
        while true {
            pthread_mutex_lock(mutex)
            // A whole window's worth at a time, unless the copy is done.
            while !stopped, !ended, available - offset < OpenSSLSHA256.windowSize { pthread_cond_wait(condition, mutex) }
            let stop = stopped, end = ended, limit = available
            pthread_mutex_unlock(mutex)
            if stop { return }
            guard (try? OpenSSLSHA256.update(context, file: fd, from: offset, to: limit, buffer: buffer, mapped: mapped)) == true else { return }
            offset = limit
            if end {
                result = try? context.finish()
                return
            }
        }
    }
}
