/// The clients of the daemon's control socket while they are served: at most
/// ``ControlServer/maximumClients`` at once, each read without waiting until its request line is in
/// (``ControlServer/Client``), answered with one line, then closed. A request whose answer waits (`pbctl
/// devices add` until its link is up) keeps its client, under a token, until ``reply(_:_:)``; a client
/// that goes away meanwhile is closed, and its answer dropped.
final class ControlClients {
    private struct Entry {
        let fd: Int32
        var client: ControlServer.Client
        /// Set once the request is in and its answer waits.
        var token: Int?
    }

    private var clients: [Entry] = []
    private var nextToken = 1

    deinit { closeAll() }

    /// The descriptors to poll, in order.
    var descriptors: [Int32] { clients.map(\.fd) }

    /// When a client still sending its request runs out of time (nil: none does).
    var nextDeadline: Double? { clients.filter { $0.token == nil }.map(\.client.deadline).min() }

    /// Takes the clients waiting on `listener` (more than the most are turned away).
    func accept(_ listener: Int32, now: Double) {
        while let fd = ControlSocket.accept(listener) {
            guard clients.count < ControlServer.maximumClients else {
                Sockets.close(fd)
                continue
            }
            clients.append(Entry(fd: fd, client: ControlServer.Client(now: now)))
        }
    }

    /// Reads from the clients `ready` says have bytes (one flag per descriptor, in order), answers each
    /// whole request with `answer`'s line (given the request and the client's token; nil: the answer
    /// waits for ``reply(_:_:)`` with that token), and drops those too slow or too long.
    func serve(ready: [Bool], now: Double, answer: ([UInt8], Int) -> [UInt8]?) {
        var kept: [Entry] = []
        for (index, var entry) in clients.enumerated() {
            var bytes: [UInt8] = []
            var closed = false
            if index < ready.count, ready[index] {
                var buffer = [UInt8](repeating: 0, count: ControlServer.maximumRequest)
                switch buffer.withUnsafeMutableBytes({ Sockets.read(entry.fd, into: $0) }) {
                case .bytes(let count): bytes = Array(buffer[0..<count])
                case .closed: closed = true
                case .wouldBlock: break
                }
            }
            if entry.token != nil {
                // Its answer waits: anything more it sends is ignored; gone, it is closed.
                if closed { Sockets.close(entry.fd) } else { kept.append(entry) }
                continue
            }
            switch entry.client.take(bytes, closed: closed, now: now) {
            case .request(let line):
                let token = nextToken
                nextToken += 1
                guard let reply = answer(line, token) else {
                    entry.token = token
                    kept.append(entry)
                    continue
                }
                write(reply, to: entry.fd)
            case .drop:
                Sockets.close(entry.fd)
            case .waiting:
                kept.append(entry)
            }
        }
        clients = kept
    }

    /// The answer that waited under `token` (nothing when its client went away).
    func reply(_ token: Int, _ line: [UInt8]) {
        guard let index = clients.firstIndex(where: { $0.token == token }) else { return }
        write(line, to: clients[index].fd)
        clients.remove(at: index)
    }

    private func write(_ line: [UInt8], to fd: Int32) {
        var line = line
        line.append(0x0A)
        _ = line.withUnsafeBytes { Sockets.write(fd, $0) }
        Sockets.close(fd)
    }

    func closeAll() {
        for client in clients { Sockets.close(client.fd) }
        clients.removeAll()
    }
}
