/// The clients of the daemon's control socket while they are served: at most
/// ``ControlServer/maximumClients`` at once, each read without waiting until its request line is in
/// (``ControlServer/Client``), answered with one line, then closed.
final class ControlClients {
    private var clients: [(fd: Int32, client: ControlServer.Client)] = []

    deinit { closeAll() }

    /// The descriptors to poll, in order.
    var descriptors: [Int32] { clients.map(\.fd) }

    /// Takes the clients waiting on `listener` (more than the most are turned away).
    func accept(_ listener: Int32, now: Double) {
        while let fd = ControlSocket.accept(listener) {
            guard clients.count < ControlServer.maximumClients else {
                Sockets.close(fd)
                continue
            }
            clients.append((fd, ControlServer.Client(now: now)))
        }
    }

    /// Reads from the clients `ready` says have bytes (one flag per descriptor, in order), answers each
    /// whole request with `answer`'s line, and drops those too slow or too long.
    func serve(ready: [Bool], now: Double, answer: ([UInt8]) -> [UInt8]) {
        var kept: [(fd: Int32, client: ControlServer.Client)] = []
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
            switch entry.client.take(bytes, closed: closed, now: now) {
            case .request(let line):
                var reply = answer(line)
                reply.append(0x0A)
                _ = reply.withUnsafeBytes { Sockets.write(entry.fd, $0) }
                Sockets.close(entry.fd)
            case .drop:
                Sockets.close(entry.fd)
            case .waiting:
                kept.append(entry)
            }
        }
        clients = kept
    }

    func closeAll() {
        for client in clients { Sockets.close(client.fd) }
        clients.removeAll()
    }
}
