import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest
@testable import PasteboardWayland

/// The other end of a socket pair, played by a test: the compositor to a connection under test. It sends
/// and receives raw bytes with their descriptors (SCM_RIGHTS), as a compositor's libwayland does.
final class Peer: @unchecked Sendable {
    let fd: Int32
    /// The end handed to the code under test.
    let clientFD: Int32

    init() {
        var pair: [Int32] = [-1, -1]
        precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        clientFD = pair[0]
        fd = pair[1]
    }

    deinit { close(fd) }

    /// Sends `bytes` with `fds` in one sendmsg.
    func send(_ bytes: [UInt8], fds: [Int32] = []) {
        var control = [UInt8](repeating: 0, count: max(1, fds.isEmpty ? 0 : WaylandSocket.controlSpace(fds.count)))
        let sent = bytes.withUnsafeBytes { raw in
            control.withUnsafeMutableBytes { controlRaw -> Int in
                var iov = iovec(iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress), iov_len: raw.count)
                return withUnsafeMutablePointer(to: &iov) { iovPointer -> Int in
                    var message = msghdr()
                    message.msg_iov = iovPointer
                    message.msg_iovlen = 1
                    if !fds.isEmpty {
                        message.msg_control = controlRaw.baseAddress
                        message.msg_controllen = controlRaw.count
                        let header = controlRaw.baseAddress!.assumingMemoryBound(to: cmsghdr.self)
                        header.pointee.cmsg_level = SOL_SOCKET
                        header.pointee.cmsg_type = Int32(SCM_RIGHTS)
                        header.pointee.cmsg_len = WaylandSocket.controlLength(fds.count)
                        for (i, descriptor) in fds.enumerated() {
                            (controlRaw.baseAddress! + MemoryLayout<cmsghdr>.size).storeBytes(of: descriptor, toByteOffset: i * 4, as: Int32.self)
                        }
                    }
                    return sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
                }
            }
        }
        precondition(sent == bytes.count, "sendmsg: \(String(cString: strerror(errno)))")
    }

    /// Sends messages, encoded as pbctl encodes them, with their descriptors.
    func send(_ messages: [WaylandMessage]) {
        for message in messages {
            let (bytes, fds) = WaylandWire.encode(message)
            send(bytes, fds: fds)
        }
    }

    /// What the client sent, waiting at most `timeout` seconds for the first bytes: the bytes and the
    /// descriptors that came with them (the test closes those).
    func receive(timeout: Double = 2) -> (bytes: [UInt8], fds: [Int32]) {
        var bytes: [UInt8] = []
        var fds: [Int32] = []
        var wait = Int32(timeout * 1000)
        while true {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, wait) > 0 else { break }
            var buffer = [UInt8](repeating: 0, count: 65536)
            var control = [UInt8](repeating: 0, count: WaylandSocket.controlSpace(28))
            let n = buffer.withUnsafeMutableBytes { raw in
                control.withUnsafeMutableBytes { controlRaw -> Int in
                    var iov = iovec(iov_base: raw.baseAddress, iov_len: raw.count)
                    return withUnsafeMutablePointer(to: &iov) { iovPointer -> Int in
                        var message = msghdr()
                        message.msg_iov = iovPointer
                        message.msg_iovlen = 1
                        message.msg_control = controlRaw.baseAddress
                        message.msg_controllen = controlRaw.count
                        let n = recvmsg(fd, &message, Int32(MSG_CMSG_CLOEXEC))
                        if n > 0, message.msg_controllen >= MemoryLayout<cmsghdr>.size {
                            let header = controlRaw.baseAddress!.assumingMemoryBound(to: cmsghdr.self).pointee
                            let count = (Int(header.cmsg_len) - MemoryLayout<cmsghdr>.size) / 4
                            for i in 0..<count {
                                fds.append((controlRaw.baseAddress! + MemoryLayout<cmsghdr>.size).load(fromByteOffset: i * 4, as: Int32.self))
                            }
                        }
                        return n
                    }
                }
            }
            guard n > 0 else { break }
            bytes += buffer[0..<n]
            wait = 20  // what follows at once belongs to the same batch
        }
        return (bytes, fds)
    }

    /// The messages the client sent, decoded by `signature` (request signatures).
    func receiveMessages(timeout: Double = 2, signature: (UInt32, UInt16) -> [WaylandArgumentType]?) throws -> [WaylandMessage] {
        var (bytes, fds) = receive(timeout: timeout)
        var messages: [WaylandMessage] = []
        var slice = bytes[...]
        while let header = try WaylandWire.header(slice), slice.count >= header.size {
            let body = slice[(slice.startIndex + 8)..<(slice.startIndex + header.size)]
            let types = try XCTUnwrap(signature(header.object, header.opcode), "request \(header.opcode) of \(header.object)")
            messages.append(WaylandMessage(object: header.object, opcode: header.opcode, arguments: try WaylandWire.arguments(body, types: types, fds: &fds)))
            slice = slice.dropFirst(header.size)
        }
        XCTAssertTrue(slice.isEmpty, "a message cut short")
        return messages
    }
}

/// A pipe for tests; both ends closed with it unless taken.
final class TestPipe {
    var readEnd: Int32
    var writeEnd: Int32
    init() {
        var fds: [Int32] = [-1, -1]
        precondition(pipe(&fds) == 0)
        readEnd = fds[0]
        writeEnd = fds[1]
    }
    deinit {
        if readEnd >= 0 { close(readEnd) }
        if writeEnd >= 0 { close(writeEnd) }
    }
    func closeRead() {
        close(readEnd)
        readEnd = -1
    }
    func closeWrite() {
        close(writeEnd)
        writeEnd = -1
    }
    func write(_ text: String) { _ = text.withCString { Glibc.write(writeEnd, $0, strlen($0)) } }
    func readAll() -> [UInt8] {
        var all: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(readEnd, &buffer, buffer.count)
            guard n > 0 else { break }
            all += buffer[0..<n]
        }
        return all
    }
}

/// Whether `fd` is an open descriptor of this process.
func isOpen(_ fd: Int32) -> Bool { fcntl(fd, F_GETFD) >= 0 }
