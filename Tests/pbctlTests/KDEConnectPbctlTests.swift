import Foundation
import XCTest

/// Two pbctl devices (every representation travels through pbctl's extension), and a scripted
/// protocol-7 peer (Python's ssl) that is not paired, then paired, then forges the paired device's id
/// with another certificate.
final class KDEConnectPbctlTests: KDEConnectTestCase {
    /// Outside any namespace: loopback only, discovery off, linked with `devices add`.
    func testTwoDaemonsOnLoopbackPairAndSyncWithoutDiscovery() throws {
        let a = Side(namespace: nil, home: scratch + "/a", display: nil, address: "127.0.0.1")
        let b = Side(namespace: nil, home: scratch + "/b", display: nil, address: "127.0.0.1")
        _ = try startDaemon(a, ["--kdeconnect", "--name", "loop-a", "--no-discovery", "--listen", "127.0.0.1"])
        _ = try startDaemon(b, ["--kdeconnect", "--name", "loop-b", "--no-discovery", "--listen", "127.0.0.1"])
        let idA = try deviceID(a), idB = try deviceID(b)
        let port = try XCTUnwrap(daemonLog(a).range(of: #"TCP port [0-9]+"#, options: .regularExpression).map { daemonLog(a)[$0].split(separator: " ").last! })
        XCTAssertEqual(try pbctl(b, ["devices", "add", "127.0.0.1:\(port)"]).status, 0)
        XCTAssertTrue(waitUntil(5) { self.deviceLine(a, idB).contains("reachable") && self.deviceLine(b, idA).contains("reachable") }, daemonLog(b))
        XCTAssertEqual(try pbctl(a, ["devices", "pair", idB]).status, 0)
        XCTAssertTrue(waitUntil(3) { self.deviceLine(b, idA).contains("requested-by-peer") })
        XCTAssertEqual(try pbctl(b, ["devices", "accept", idA]).status, 0)
        XCTAssertTrue(waitUntil(3) { self.deviceLine(a, idB).contains("paired, reachable") && !self.deviceLine(a, idB).contains("unpaired") })
        XCTAssertEqual(try pbctl(a, ["copy"], stdin: Data("loopback 😀".utf8)).status, 0)
        XCTAssertTrue(waitUntil(3) { (try? self.pbctl(b, ["paste"]))?.text == "loopback 😀" }, daemonLog(b))
        XCTAssertEqual(try pbctl(b, ["copy"], stdin: Data("and back".utf8)).status, 0)
        XCTAssertTrue(waitUntil(3) { (try? self.pbctl(a, ["paste"]))?.text == "and back" })
        // The state folder is private.
        for name in ["key.pem", "certificate.pem", "devices.json"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: a.home + "/state/pbctl/kdeconnect/" + name)
            XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600, name)
        }
    }

    /// In network namespaces, found by broadcast: Markdown with its HTML, RTF and text, a PNG, a file
    /// list, byte for byte; a large representation arrives whole.
    func testEveryRepresentationTravelsBetweenTwoPbctlDevices() throws {
        let (a, b) = try makeNamespaces()
        _ = try startDaemon(a, ["--kdeconnect", "--name", "rich-a"])
        _ = try startDaemon(b, ["--kdeconnect", "--name", "rich-b"])
        let idA = try deviceID(a), idB = try deviceID(b)
        XCTAssertTrue(waitUntil(10) { self.deviceLine(a, idB).contains("reachable") }, daemonLog(a) + daemonLog(b))
        XCTAssertEqual(try pbctl(b, ["devices", "pair", idA]).status, 0)
        XCTAssertTrue(waitUntil(3) { self.deviceLine(a, idB).contains("requested-by-peer") })
        XCTAssertEqual(try pbctl(a, ["devices", "accept", idB]).status, 0)
        XCTAssertTrue(waitUntil(3) { self.deviceLine(b, idA).contains("paired, reachable") && !self.deviceLine(b, idA).contains("unpaired") })
        // Markdown: every representation, the same bytes on both sides.
        let markdown = "# Notes 😀\n\n- **bold** and [a link](https://example.org)\n"
        XCTAssertEqual(try pbctl(a, ["copy", "--from", "markdown"], stdin: Data(markdown.utf8)).status, 0)
        XCTAssertTrue(waitUntil(3) { (try? self.pbctl(b, ["types"]))?.text.contains("public.rtf") == true }, daemonLog(b))
        for type in ["net.daringfireball.markdown", "public.html", "public.rtf", "public.utf8-plain-text"] {
            XCTAssertEqual(try pbctl(b, ["paste", "--type", type]).text, try pbctl(a, ["paste", "--type", type]).text, type)
        }
        XCTAssertEqual(try pbctl(b, ["paste", "--type", "net.daringfireball.markdown"]).text, markdown)
        XCTAssertTrue(try pbctl(b, ["history", "--json", "--limit", "1"]).text.contains("KDE Connect: rich-a"))
        // An image (a PNG of noise, about 3 MB: several chunks), byte for byte.
        XCTAssertEqual(try sh("/usr/bin/convert -size 1024x1024 xc:gray +noise Random -depth 8 '\(scratch)/image.png'").status, 0)
        XCTAssertEqual(try pbctl(b, ["copy", "--type", "public.png", scratch + "/image.png"]).status, 0)
        XCTAssertTrue(waitUntil(5) { (try? self.pbctl(a, ["types"]))?.text.contains("public.png") == true }, daemonLog(a))
        XCTAssertEqual(try sh("env -i PBCTL_STORE=\(a.home)/store /usr/sbin/ip netns exec \(a.namespace!) \(PbctlRunner.binary) paste --type public.png | cmp - '\(scratch)/image.png'").status, 0)
        // A file list arrives as the other device's: its URIs name that device, so no local consumer takes
        // them for files of this machine (paste --files --into refuses them).
        FileManager.default.createFile(atPath: scratch + "/report.pdf", contents: Data("pdf".utf8))
        XCTAssertEqual(try pbctl(a, ["copy", "--files", scratch + "/report.pdf"]).status, 0)
        XCTAssertTrue(
            waitUntil(3) { (try? self.pbctl(b, ["paste", "--type", "public.file-url"]))?.text == "file://rich-a\(scratch)/report.pdf\r\n" },
            daemonLog(b))
        let into = try pbctl(b, ["paste", "--files", "--into", scratch + "/into-b"])
        XCTAssertEqual(into.status, 65, into.stderr)
        XCTAssertTrue(into.stderr.contains("not a local file"), into.stderr)
    }

    /// An image travels as its original only: a PNG copied on one device is offered on the other as
    /// public.png with its size, and the types derived from it (public.jpeg…) with none (produced on
    /// paste); the receiver's store holds little more than the PNG.
    func testAnImageArrivesAsItsOriginalOnly() throws {
        let (a, b) = try makeNamespaces()
        _ = try startDaemon(a, ["--kdeconnect", "--name", "image-a"])
        _ = try startDaemon(b, ["--kdeconnect", "--name", "image-b"])
        let idA = try deviceID(a), idB = try deviceID(b)
        XCTAssertTrue(waitUntil(10) { self.deviceLine(a, idB).contains("reachable") }, daemonLog(a) + daemonLog(b))
        XCTAssertEqual(try pbctl(b, ["devices", "pair", idA]).status, 0)
        XCTAssertTrue(waitUntil(3) { self.deviceLine(a, idB).contains("requested-by-peer") })
        XCTAssertEqual(try pbctl(a, ["devices", "accept", idB]).status, 0)
        XCTAssertTrue(waitUntil(3) { self.deviceLine(b, idA).contains("paired, reachable") && !self.deviceLine(b, idA).contains("unpaired") })
        // 256×256 of noise: a PNG of about 200 KB whose JPEG, WebP, BMP or TIFF would each add tens of KB.
        let image = scratch + "/image.png"
        XCTAssertEqual(try sh("/usr/bin/convert -size 256x256 xc:gray +noise Random -depth 8 '\(image)'").status, 0)
        let size = try XCTUnwrap((try FileManager.default.attributesOfItem(atPath: image)[.size] as? NSNumber)?.intValue)
        XCTAssertEqual(try pbctl(a, ["copy", image]).status, 0)
        XCTAssertTrue(waitUntil(5) { (try? self.pbctl(b, ["types"]))?.text.contains("public.png") == true }, daemonLog(b))
        let types = try pbctl(b, ["types"])
        XCTAssertEqual(types.status, 0, types.stderr)
        let rows = Dictionary(types.text.split(separator: "\n").map { line -> (String, [String]) in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            return (fields.first ?? "", fields)
        }, uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(rows["public.png"], ["public.png", "image/png", "\(size)"], types.text)
        for derived in ["public.jpeg", "org.webmproject.webp", "com.microsoft.bmp", "public.tiff"] {
            XCTAssertEqual(rows[derived]?.last, "-", "\(derived) is not produced on demand: \(types.text)")
        }
        XCTAssertEqual(try sh("env -i PBCTL_STORE=\(b.home)/store /usr/sbin/ip netns exec \(b.namespace!) \(PbctlRunner.binary) paste --type public.png | cmp - '\(image)'").status, 0)
        let jpeg = try sh("env -i PBCTL_STORE=\(b.home)/store /usr/sbin/ip netns exec \(b.namespace!) \(PbctlRunner.binary) paste --type public.jpeg | head -c 3 | od -An -tx1")
        XCTAssertEqual(jpeg.text.trimmingCharacters(in: .whitespacesAndNewlines), "ff d8 ff", "the JPEG is produced on paste")
        var stored = 0
        for path in FileManager.default.subpaths(atPath: b.home + "/store") ?? [] {
            var info = stat()
            if lstat(b.home + "/store/" + path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { stored += Int(info.st_size) }
        }
        XCTAssertLessThan(stored, 2 * size, "the receiver's store holds \(stored) bytes for a PNG of \(size)")
        XCTAssertGreaterThanOrEqual(stored, size)
    }

    /// A scripted protocol-7 peer: nothing it sends counts while it is not paired; paired, its text
    /// arrives; the same device id with another certificate is refused and reported.
    func testUnpairedPeersAndForgedCertificatesAreRefused() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") && FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "python3 and openssl")
        let (a, b) = try makeNamespaces()
        _ = try startDaemon(a, ["--kdeconnect", "--name", "guarded"])
        XCTAssertEqual(try pbctl(a, ["copy"], stdin: Data("untouched".utf8)).status, 0)
        let peerID = "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "_").lowercased() + "_"
        try Self.peerScript.write(toFile: scratch + "/peer.py", atomically: true, encoding: .utf8)
        func certificate(_ name: String) throws {
            let made = try sh("openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj '/O=KDE/OU=Kde connect/CN=\(peerID)' -keyout '\(scratch)/\(name).key' -out '\(scratch)/\(name).crt' 2>&1")
            XCTAssertEqual(made.status, 0, made.text)
        }
        try certificate("real")
        try certificate("forged")
        func runPeer(_ cert: String, _ steps: String) throws -> (status: Int32, text: String, stderr: String) {
            try sh("/usr/sbin/ip netns exec \(b.namespace!) python3 '\(scratch)/peer.py' \(a.address) 1716 \(peerID) '\(scratch)/\(cert).crt' '\(scratch)/\(cert).key' \(steps)", timeout: 60)
        }
        // Unpaired: its clipboard is ignored.
        var run = try runPeer("real", "clip:unpaired-text sleep:1")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try pbctl(a, ["paste"]).text, "untouched")
        // It asks to pair; pbctl accepts; its clipboard now arrives.
        let paired = try ChildProcess(
            ["/usr/sbin/ip", "netns", "exec", b.namespace!, "python3", scratch + "/peer.py", a.address, "1716", peerID, scratch + "/real.crt", scratch + "/real.key", "pair", "wait-pair", "clip:paired ✓", "sleep:2"],
            environment: ["PATH": "/usr/bin:/bin"])
        children.append(paired)
        XCTAssertTrue(waitUntil(5) { self.deviceLine(a, peerID).contains("requested-by-peer") }, daemonLog(a))
        XCTAssertEqual(try pbctl(a, ["devices", "accept", peerID]).status, 0)
        XCTAssertTrue(waitUntil(5) { (try? self.pbctl(a, ["paste"]))?.text == "paired ✓" }, daemonLog(a))
        XCTAssertTrue(paired.wait(timeout: 10))
        XCTAssertEqual(paired.status, 0)
        // The same id with another certificate: refused, reported, its clipboard not taken.
        run = try runPeer("forged", "clip:forged sleep:1")
        XCTAssertTrue(waitUntil(3) { self.deviceLine(a, peerID).contains("refused") }, daemonLog(a))
        XCTAssertEqual(try pbctl(a, ["paste"]).text, "paired ✓")
        XCTAssertTrue(daemonLog(a).contains("certificate"))
        _ = run
    }

    /// A paired peer that stops reading while a large clipboard is sent to it, and another that sends
    /// a line without end: the daemon's X11 duties (a copy handed to it, served to a paste) and its
    /// control socket go on as before, and the flooding peer is dropped.
    func testAStalledOrFloodingPeerHoldsUpNothing() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") && FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "python3 and openssl")
        var (a, b) = try makeNamespaces()
        try startXvfb(&a)
        _ = try startDaemon(a, ["--kdeconnect", "--name", "busy"])
        let peerID = String(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())
        try Self.peerScript.write(toFile: scratch + "/peer.py", atomically: true, encoding: .utf8)
        XCTAssertEqual(try sh("openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj '/CN=\(peerID)' -keyout '\(scratch)/p.key' -out '\(scratch)/p.crt' 2>&1").status, 0)
        let stalled = try ChildProcess(
            ["/usr/sbin/ip", "netns", "exec", b.namespace!, "python3", scratch + "/peer.py", a.address, "1716", peerID, scratch + "/p.crt", scratch + "/p.key", "pair", "wait-pair", "stall:20"],
            environment: ["PATH": "/usr/bin:/bin"])
        children.append(stalled)
        XCTAssertTrue(waitUntil(5) { self.deviceLine(a, peerID).contains("requested-by-peer") }, daemonLog(a))
        XCTAssertEqual(try pbctl(a, ["devices", "accept", peerID]).status, 0)
        XCTAssertTrue(waitUntil(5) { self.deviceLine(a, peerID).contains("paired, reachable") })
        // 5 × 3 MB of text for a peer that reads nothing.
        for round in 0..<5 {
            XCTAssertEqual(try pbctl(a, ["copy"], stdin: Data(repeating: UInt8(ascii: "a") + UInt8(round), count: 3 << 20)).status, 0)
            usleep(300_000)
        }
        XCTAssertTrue(waitUntil(5) { self.daemonLog(a).components(separatedBy: "sent to 1 device").count > 3 }, daemonLog(a))
        // A flooding peer: 5 MB without a newline after its identity.
        let flooder = String(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())
        XCTAssertEqual(try sh("openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj '/CN=\(flooder)' -keyout '\(scratch)/f.key' -out '\(scratch)/f.crt' 2>&1").status, 0)
        let flood = try ChildProcess(
            ["/usr/sbin/ip", "netns", "exec", b.namespace!, "python3", scratch + "/peer.py", a.address, "1716", flooder, scratch + "/f.crt", scratch + "/f.key", "junk:5000000", "sleep:3"],
            environment: ["PATH": "/usr/bin:/bin"])
        children.append(flood)
        // Meanwhile: a copy handed to the daemon is served, at once; the control socket answers.
        for round in 0..<3 {
            let start = Date()
            XCTAssertEqual(try pbctl(a, ["copy"], stdin: Data("round \(round) ✓".utf8)).status, 0)
            XCTAssertEqual(try pbctl(a, ["paste"]).text, "round \(round) ✓")
            XCTAssertTrue(deviceLine(a, peerID).contains("paired"))
            XCTAssertLessThan(Date().timeIntervalSince(start), 3)
        }
        XCTAssertTrue(waitUntil(5) { self.daemonLog(a).contains("a line over") }, daemonLog(a))
        XCTAssertTrue(stalled.isRunning, "the stalled peer is still connected, and nothing waited on it")
    }

    /// A protocol-7 device in Python: it connects (so it is TLS's server), identifies in clear, then
    /// runs its steps: `pair`, `wait-pair` (until pbctl answers yes), `clip:TEXT`, `sleep:S` (reading),
    /// `stall:S` (reading nothing), `junk:N` (N bytes without a newline).
    static let peerScript = #"""
    import json, socket, ssl, sys, time
    host, port, device, cert, key = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
    def packet(kind, body):
        return (json.dumps({"id": int(time.time() * 1000), "type": kind, "body": body}) + "\n").encode()
    caps = ["kdeconnect.clipboard", "kdeconnect.clipboard.connect"]
    raw = socket.create_connection((host, port), timeout=10)
    raw.sendall(packet("kdeconnect.identity", {"deviceId": device, "deviceName": "scripted", "deviceType": "phone",
        "protocolVersion": 7, "incomingCapabilities": caps, "outgoingCapabilities": caps, "tcpPort": 1716}))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.verify_mode = ssl.CERT_OPTIONAL
    context.check_hostname = False
    context.load_verify_locations(cafile=cert)
    context.verify_mode = ssl.CERT_NONE
    tls = context.wrap_socket(raw, server_side=True)
    buffer = b""
    def lines(timeout):
        global buffer
        tls.settimeout(timeout)
        try:
            data = tls.recv(65536)
        except (socket.timeout, ssl.SSLError):
            return []
        if not data:
            raise SystemExit(3)
        buffer += data
        out = []
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            out.append(json.loads(line))
        return out
    for step in sys.argv[6:]:
        if step == "pair":
            tls.sendall(packet("kdeconnect.pair", {"pair": True}))
        elif step == "wait-pair":
            deadline = time.time() + 20
            while time.time() < deadline:
                if any(p["type"] == "kdeconnect.pair" and p["body"].get("pair") for p in lines(0.5)):
                    break
            else:
                raise SystemExit(2)
        elif step.startswith("clip:"):
            tls.sendall(packet("kdeconnect.clipboard", {"content": step[5:]}))
        elif step.startswith("stall:"):
            time.sleep(float(step[6:]))
        elif step.startswith("junk:"):
            try:
                tls.sendall(b"x" * int(step[5:]))
            except OSError:
                pass
        elif step.startswith("sleep:"):
            end = time.time() + float(step[6:])
            while time.time() < end:
                try:
                    lines(0.2)
                except SystemExit:
                    break
    """#
}
