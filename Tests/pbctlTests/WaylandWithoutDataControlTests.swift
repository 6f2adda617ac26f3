import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif
import PasteboardWayland

/// A compositor without data-control (as GNOME's mutter is): a stand-in on a Unix socket that answers
/// the registry with wl_seat and wl_data_device_manager only. `auto` must fall through to X11 and say
/// why; `--backend wayland` must fail clearly (exit 69).
final class WaylandWithoutDataControlTests: X11TestCase {
    /// Serves each connection: globals for `get_registry`, `done` for every `sync`. Ends with the socket.
    final class FakeCompositor: @unchecked Sendable {
        let path: String
        let listener: Int32
        /// The globals the registry announces: interface and version.
        let globals: [(String, UInt32)]

        init(path: String, globals: [(String, UInt32)] = [("wl_seat", 7), ("wl_data_device_manager", 3)]) throws {
            self.path = path
            self.globals = globals
            listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (i, b) in path.utf8.enumerated() { raw[i] = b }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard bound == 0, listen(listener, 8) == 0 else { throw NSError(domain: "FakeCompositor", code: Int(errno)) }
            let thread = Thread { [self] in self.acceptLoop() }
            thread.start()
        }

        func stop() {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
            unlink(path)
        }

        private func acceptLoop() {
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 { return }
                serve(client)
                close(client)
            }
        }

        private func send(_ fd: Int32, _ message: WaylandMessage) {
            let bytes = WaylandWire.encode(message).bytes
            _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        }

        private func serve(_ fd: Int32) {
            var buffer: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            var registry: UInt32 = 0
            while true {
                let n = read(fd, &chunk, chunk.count)
                if n <= 0 { return }
                buffer += chunk[0..<n]
                while let header = try? WaylandWire.header(buffer[...]), buffer.count >= header.size {
                    let body = buffer[8..<header.size]
                    let first = body.count >= 4 ? UInt32(body[8]) | UInt32(body[9]) << 8 | UInt32(body[10]) << 16 | UInt32(body[11]) << 24 : 0
                    if header.object == 1, header.opcode == 1 {
                        registry = first  // get_registry(new_id)
                    } else if header.object == 1, header.opcode == 0 {
                        if registry != 0 {
                            for (name, (interface, version)) in globals.enumerated() {
                                send(fd, WaylandMessage(object: registry, opcode: 0, arguments: [.uint(UInt32(name + 1)), .string(interface), .uint(version)]))
                            }
                        }
                        send(fd, WaylandMessage(object: first, opcode: 0, arguments: [.uint(1)]))  // wl_callback.done
                    }
                    buffer.removeFirst(header.size)
                }
            }
        }
    }

    func testAutoFallsThroughToX11AndSaysWhy() throws {
        let socketPath = scratch + "/wayland-fake"
        let compositor = try FakeCompositor(path: socketPath)
        defer { compositor.stop() }
        var env = environment
        env["WAYLAND_DISPLAY"] = socketPath
        env["PBCTL_BACKEND"] = "auto"
        let info = try run([pbctl, "info", "--json"], environment: env, timeout: 10)
        XCTAssertEqual(info.status, 0, info.stderr)
        let json = try JSONSerialization.jsonObject(with: info.stdout) as? [String: Any]
        XCTAssertEqual(json?["backend"] as? String, "x11")
        let reason = json?["reason"] as? String ?? ""
        XCTAssertTrue(reason.contains("data-control"), reason)
        // Copy and paste still work, through X11.
        XCTAssertEqual(try run([pbctl, "copy"], input: Data("through x11".utf8), environment: env, timeout: 20).status, 0)
        XCTAssertEqual(try run([pbctl, "paste"], environment: env).text, "through x11")
        // Asked for Wayland by name: a clear error, exit 69, no hang.
        env["PBCTL_BACKEND"] = "wayland"
        let wayland = try run([pbctl, "paste"], environment: env, timeout: 10)
        XCTAssertEqual(wayland.status, 69, wayland.stderr)
        XCTAssertTrue(wayland.stderr.contains("data-control"), wayland.stderr)
    }

    /// A headless compositor without a seat offers data-control but no clipboard to control: it must be
    /// reported as such (wl-paste says "Missing a seat"), not as a compositor without data-control.
    func testACompositorWithoutASeatIsReportedAsSuch() throws {
        let socketPath = scratch + "/wayland-seatless"
        let compositor = try FakeCompositor(path: socketPath, globals: [("zwlr_data_control_manager_v1", 2), ("wl_output", 4)])
        defer { compositor.stop() }
        var env = environment
        env["WAYLAND_DISPLAY"] = socketPath
        env["PBCTL_BACKEND"] = "auto"
        let info = try run([pbctl, "info", "--json"], environment: env, timeout: 10)
        XCTAssertEqual(info.status, 0, info.stderr)
        let reason = (try JSONSerialization.jsonObject(with: info.stdout) as? [String: Any])?["reason"] as? String ?? ""
        XCTAssertTrue(reason.contains("no seat") && reason.contains("zwlr_data_control_manager_v1"), reason)
        env["PBCTL_BACKEND"] = "wayland"
        let wayland = try run([pbctl, "paste"], environment: env, timeout: 10)
        XCTAssertEqual(wayland.status, 69, wayland.stderr)
        XCTAssertTrue(wayland.stderr.contains("no seat"), wayland.stderr)
        XCTAssertFalse(wayland.stderr.contains("offers no data-control"), wayland.stderr)
    }
}
