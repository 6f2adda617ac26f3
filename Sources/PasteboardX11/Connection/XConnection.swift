#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc
import Pasteboard
import SystemIO
internal import CSystem
internal import CX11

/// One connection to an X server: the only code that calls libxcb (style guide §5.4).
///
/// Each request has one wrapper, which frees the reply and turns `xcb_generic_error_t` into
/// ``XProtocolError``. Errors of unchecked requests arrive as ``X11Event/error(code:majorOpcode:resource:)``
/// events and are never fatal. Every wait has a deadline: events are read with `poll()` on the
/// connection's file descriptor. Not thread-safe: one connection, one thread.
public final class XConnection {
    private let connection: OpaquePointer
    public let root: XWindow
    public let atoms: KnownAtoms
    /// An unmapped input-only window selecting PropertyChange and StructureNotify, used for timestamps
    /// and as the requestor window.
    public let utilityWindow: XWindow
    /// XFixes' first event code: nil until asked for (``xfixesFirstEvent``), then the answer (nil inside:
    /// the server has no XFixes). A paste does not ask: it costs a round trip nobody needs there.
    private var xfixes: UInt8?? = nil

    /// The first event code of XFixes, when the server has it; the first use asks the server (one round
    /// trip: the extension's number, its version).
    public var xfixesFirstEvent: UInt8? {
        if let known = xfixes { return known }
        let cookie = xcb_xfixes_query_version(connection, 5, 0)
        let reply = xcb_xfixes_query_version_reply(connection, cookie, nil)
        let extensionData = cx11_xfixes_extension(connection)
        let first: UInt8? = reply != nil && extensionData != nil && extensionData!.pointee.present != 0 ? extensionData!.pointee.first_event : nil
        free(reply)
        xfixes = .some(first)
        return first
    }
    private var queued: [X11Event] = []
    private var queueHead = 0
    /// Atoms beyond ``KnownAtom`` met so far (registry targets, owners' targets). Known atoms are
    /// looked up in `atoms` first, so a short-lived pbctl never builds these tables.
    private var nameCache: [XAtom: String] = [:]
    private var atomCache: [String: XAtom] = [:]
    /// A zero-length append was sent and its PropertyNotify has not been seen yet.
    private var probeOutstanding = true
    /// Set when serverTime() sees its probe's PropertyNotify.
    private var probeTime: XTimestamp?

    /// Why a display with a host name may have failed: a name this fully static binary cannot resolve
    /// (glibc resolves names through NSS modules it loads at run time, which a static program may not
    /// find, and a container may have no /etc/hosts), said with what to set instead.
    static func hostHint(_ display: String) -> String {
        guard let colon = display.lastIndex(of: ":") else { return "" }
        var host = String(display[..<colon])
        if host.hasPrefix("tcp/") { host.removeFirst(4) }
        if host.isEmpty || host == "unix" || host.hasPrefix("/") || host.hasSuffix(":") { return "" }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &result)
        if let result { freeaddrinfo(result) }
        guard status != 0 else { return ": \(host) resolves, but no X server there accepted the connection (is it listening on TCP, and does xauth grant access?)" }
        return ": DISPLAY names host '\(host)', which cannot be resolved here (pbctl is a static binary: it resolves names only "
            + "through /etc/hosts and the system's NSS modules of its glibc); give the host's address instead, e.g. DISPLAY=127.0.0.1"
            + String(display[colon...])
    }

    /// Event masks (core protocol values).
    public static let propertyChangeMask: UInt32 = 0x0040_0000
    public static let structureNotifyMask: UInt32 = 0x0002_0000

    /// Connects to `display` (the caller reads `$DISPLAY`: the CLI is the only code that reads the
    /// environment).
    /// - Parameter interning: the known atoms to intern; the others read as 0 in ``atoms`` (names still
    ///   resolve, by a round trip). Every one is a request and a reply the server handles before
    ///   anything else can go on, so the quick paste asks for the four it uses
    ///   (``X11SelectionReader/atomsForReading(_:)``).
    /// - Throws: ``PasteboardError`` `.unavailable` when the server cannot be reached.
    public init(display: String, interning: KnownAtomSet = .all) throws {
        var screenNumber: Int32 = 0
        let name = display
        guard let c = Self.connect(name, screen: &screenNumber) else {
            throw PasteboardError(.unavailable, "cannot open display \(name.isEmpty ? "(DISPLAY is not set)" : name)" + Self.hostHint(name))
        }
        connection = c
        var iterator = xcb_setup_roots_iterator(xcb_get_setup(c))
        var index: Int32 = 0
        while index < screenNumber && iterator.rem > 0 {
            xcb_screen_next(&iterator)
            index += 1
        }
        guard iterator.rem > 0, let screen = iterator.data else {
            xcb_disconnect(c)
            throw PasteboardError(.unavailable, "the X server reports no screen \(screenNumber)")
        }
        root = screen.pointee.root

        // Pipeline everything start-up needs into one round trip: the atoms, our window, the
        // zero-length append whose PropertyNotify carries a server timestamp (ICCCM §2.1). XFixes is
        // asked for when first needed (a watch, the daemon), not here.
        // (No array of names or cookies: each new array type costs a static binary a run-time lookup.)
        let cookies = UnsafeMutableBufferPointer<xcb_intern_atom_cookie_t>.allocate(capacity: KnownAtom.count)
        defer { cookies.deallocate() }
        for index in 0..<KnownAtom.count where interning.contains(index) {
            cookies[index] = KnownAtom.at(index).rawValue.withCString { xcb_intern_atom(c, 0, UInt16(strlen($0)), $0) }
        }
        let window = xcb_generate_id(c)
        var eventMask = Self.propertyChangeMask | Self.structureNotifyMask
        xcb_create_window(
            c, 0, window, root, -10, -10, 1, 1, 0, UInt16(XCB_WINDOW_CLASS_INPUT_ONLY.rawValue), 0,
            XCB_CW_EVENT_MASK.rawValue, &eventMask)
        xcb_change_property(c, UInt8(XCB_PROP_MODE_APPEND.rawValue), window, PredefinedAtom.wmName,
                            PredefinedAtom.string, 8, 0, nil)
        xcb_flush(c)
        var missing = false
        let interned = KnownAtoms { index in
            guard interning.contains(index) else { return 0 }
            let reply = xcb_intern_atom_reply(c, cookies[index], nil)
            defer { free(reply) }
            let atom = reply?.pointee.atom ?? 0
            if atom == 0 { missing = true }
            return atom
        }
        guard xcb_connection_has_error(c) == 0, !missing else {
            xcb_disconnect(c)
            throw PasteboardError(.unavailable, "the X server connection failed during start-up")
        }
        atoms = interned
        utilityWindow = window
    }

    /// Set by ``leaveOpenUntilExit()``.
    private var closedByExit = false

    /// For a process that exits next (the quick paste): the connection is left to the kernel, which
    /// closes its socket at exit, so deinit spares the shutdown and the frees of `xcb_disconnect`. The
    /// server sees the same end of the connection.
    public func leaveOpenUntilExit() { closedByExit = true }

    deinit { if !closedByExit { xcb_disconnect(connection) } }

    /// `xcb_connect`, retried for up to a second while a local server accepts connections but drops
    /// them during set-up. That is an X server resetting: a server started without `-noreset` (Xvfb,
    /// xvfb-run, a bare Xorg) resets when its last client disconnects, and a client connecting in that
    /// window is refused although the server is alive (xclip and xsel then fail with "Can't open
    /// display"). A server that is gone refuses at the socket and fails at once, with no retry.
    private static func connect(_ name: String, screen: inout Int32) -> OpaquePointer? {
        let deadline = MonotonicClock.nanoseconds() &+ 1_000_000_000
        var pause: UInt32 = 2_000
        while true {
            if let c = xcb_connect(name.isEmpty ? nil : name, &screen) {
                if xcb_connection_has_error(c) == 0 { return c }
                xcb_disconnect(c)
            }
            guard MonotonicClock.nanoseconds() < deadline, LocalDisplaySocket(display: name)?.acceptsConnections == true else {
                return nil
            }
            usleep(pause)
            pause = min(pause * 2, 100_000)
        }
    }

    /// Gives this connection to a forked child (``DetachedProcess/fork(keeping:timeout:_:)``):
    /// in this process its socket is swapped for a dead one, so nothing sent here afterwards (nor the
    /// shutdown of `xcb_disconnect` at exit) can reach the server on the child's connection. Requests
    /// made here afterwards fail as on a lost connection.
    public func handOverToChild() {
        var pair: [Int32] = [-1, -1]
        let fd = fileDescriptor
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            // No socket to spare: a closed descriptor number is the next best thing.
            close(fd)
            return
        }
        close(pair[1])
        _ = dup2(pair[0], fd)
        close(pair[0])
    }

    /// Keeps freed memory of up to 32 MiB in the heap instead of returning it to the system at once.
    /// A reader receives INCR chunks of about 2 MiB, one reply buffer after another: with glibc's
    /// defaults each is a fresh `brk`/`mmap` whose pages fault in again, which costs more than the
    /// copy itself. Process-wide, so only requestors call it.
    public static func keepFreedMemoryForReuse() {
        csystem_keep_freed_memory(32 << 20)
    }

    /// The connection's file descriptor (for `poll`).
    public var fileDescriptor: Int32 { xcb_get_file_descriptor(connection) }

    public var isBroken: Bool { xcb_connection_has_error(connection) != 0 }

    private func checkAlive() throws {
        if xcb_connection_has_error(connection) != 0 {
            throw PasteboardError(.unavailable, "the connection to the X server was lost")
        }
    }

    /// The largest request the server accepts, in bytes (BIG-REQUESTS aware).
    ///
    /// The corresponding XCB call is `xcb_get_maximum_request_length`.
    public private(set) lazy var maximumRequestBytes: Int = Int(xcb_get_maximum_request_length(connection)) * 4

    /// One round trip: returns once the server has processed every request sent before it.
    /// The corresponding XCB request is `xcb_get_input_focus`.
    public func sync() throws {
        let cookie = xcb_get_input_focus(connection)
        free(xcb_get_input_focus_reply(connection, cookie, nil))
        try checkAlive()
    }

    /// Sends buffered requests. The corresponding XCB call is `xcb_flush`.
    public func flush() throws {
        if xcb_flush(connection) <= 0 { try checkAlive() }
    }

    // MARK: Atoms

    /// Interns `names`, pipelined. The corresponding XCB request is `xcb_intern_atom`.
    public func intern(_ names: [String]) throws -> [XAtom] {
        var result = [XAtom](repeating: 0, count: names.count)
        var pending: [(Int, xcb_intern_atom_cookie_t)] = []
        for (index, name) in names.enumerated() {
            if let atom = atoms.atom(named: name) ?? atomCache[name] {
                result[index] = atom
            } else {
                let bytes = Array(name.utf8.prefix(0xFFFF))
                let cookie = bytes.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) {
                        xcb_intern_atom(connection, 0, UInt16($0.count), $0.baseAddress)
                    }
                }
                pending.append((index, cookie))
            }
        }
        for (index, cookie) in pending {
            var error: UnsafeMutablePointer<xcb_generic_error_t>?
            let reply = xcb_intern_atom_reply(connection, cookie, &error)
            defer { free(reply); free(error) }
            if let error { throw XProtocolError(code: error.pointee.error_code, majorOpcode: error.pointee.major_code) }
            guard let reply else { try checkAlive(); throw PasteboardError(.unavailable, "no reply to InternAtom") }
            result[index] = reply.pointee.atom
            atomCache[names[index]] = reply.pointee.atom
            nameCache[reply.pointee.atom] = names[index]
        }
        return result
    }

    /// One name: ``intern(_:)-([String])`` without its arrays (the quick paste's one atom).
    public func intern(_ name: String) throws -> XAtom {
        if let atom = atoms.atom(named: name) ?? atomCache[name] { return atom }
        let cookie = name.withCString { xcb_intern_atom(connection, 0, UInt16(min(strlen($0), 0xFFFF)), $0) }
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        let reply = xcb_intern_atom_reply(connection, cookie, &error)
        defer { free(reply); free(error) }
        if let error { throw XProtocolError(code: error.pointee.error_code, majorOpcode: error.pointee.major_code) }
        guard let reply else { try checkAlive(); throw PasteboardError(.unavailable, "no reply to InternAtom") }
        atomCache[name] = reply.pointee.atom
        nameCache[reply.pointee.atom] = name
        return reply.pointee.atom
    }

    /// One atom: ``names(of:)`` without its arrays.
    public func name(of atom: XAtom) throws -> String? {
        if let name = atoms.name(of: atom)?.rawValue ?? nameCache[atom] { return name }
        guard atom != 0 else { return nil }
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        let reply = xcb_get_atom_name_reply(connection, xcb_get_atom_name(connection, atom), &error)
        defer { free(reply); free(error) }
        guard let reply else { try checkAlive(); return nil }
        let length = Int(xcb_get_atom_name_name_length(reply))
        guard length >= 0, let pointer = xcb_get_atom_name_name(reply) else { return nil }
        let name = String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
        nameCache[atom] = name
        atomCache[name] = atom
        return name
    }

    /// The names of `atoms` (nil for an atom the server does not know), pipelined.
    /// The corresponding XCB request is `xcb_get_atom_name`.
    public func names(of atoms: [XAtom]) throws -> [String?] {
        var result = [String?](repeating: nil, count: atoms.count)
        var pending: [(Int, xcb_get_atom_name_cookie_t)] = []
        for (index, atom) in atoms.enumerated() {
            if let name = self.atoms.name(of: atom)?.rawValue ?? nameCache[atom] {
                result[index] = name
            } else if atom != 0 {
                pending.append((index, xcb_get_atom_name(connection, atom)))
            }
        }
        for (index, cookie) in pending {
            var error: UnsafeMutablePointer<xcb_generic_error_t>?
            let reply = xcb_get_atom_name_reply(connection, cookie, &error)
            defer { free(reply); free(error) }
            guard let reply else { try checkAlive(); continue }
            let length = Int(xcb_get_atom_name_name_length(reply))
            guard length >= 0, let pointer = xcb_get_atom_name_name(reply) else { continue }
            let name = String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
            result[index] = name
            nameCache[atoms[index]] = name
            atomCache[name] = atoms[index]
        }
        return result
    }

    // MARK: Windows

    /// Creates an unmapped input-only window with `eventMask`. The corresponding XCB request is
    /// `xcb_create_window`.
    public func createWindow(eventMask: UInt32 = propertyChangeMask | structureNotifyMask) -> XWindow {
        let window = xcb_generate_id(connection)
        var value = eventMask
        xcb_create_window(
            connection, 0, window, root, -10, -10, 1, 1, 0, UInt16(XCB_WINDOW_CLASS_INPUT_ONLY.rawValue), 0,
            XCB_CW_EVENT_MASK.rawValue, &value)
        return window
    }

    /// The corresponding XCB request is `xcb_destroy_window`.
    public func destroyWindow(_ window: XWindow) { xcb_destroy_window(connection, window) }

    /// Sets our event mask on a window (ours or a requestor's; each client has its own mask).
    /// The corresponding XCB request is `xcb_change_window_attributes`.
    public func selectEvents(on window: XWindow, mask: UInt32) {
        var value = mask
        xcb_change_window_attributes(connection, window, XCB_CW_EVENT_MASK.rawValue, &value)
    }

    // MARK: Properties

    /// Writes a property without waiting (errors arrive as events).
    /// The corresponding XCB request is `xcb_change_property`.
    public func changeProperty(_ write: PropertyWrite, append: Bool = false) {
        let units = UInt32(write.bytes.count / Int(max(write.format, 8) / 8))
        write.bytes.withUnsafeBytes { raw in
            _ = xcb_change_property(
                connection, UInt8(append ? XCB_PROP_MODE_APPEND.rawValue : XCB_PROP_MODE_REPLACE.rawValue),
                write.window, write.property, write.type, write.format, units, raw.baseAddress)
        }
    }

    /// Writes properties and waits until the server has processed them; returns the first error.
    /// The corresponding XCB request is `xcb_change_property_checked`.
    public func changePropertiesChecked(_ writes: [PropertyWrite]) throws -> XProtocolError? {
        let cookies = writes.map { write in
            let units = UInt32(write.bytes.count / Int(max(write.format, 8) / 8))
            return write.bytes.withUnsafeBytes { raw in
                xcb_change_property_checked(
                    connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), write.window, write.property, write.type,
                    write.format, units, raw.baseAddress)
            }
        }
        var first: XProtocolError?
        for cookie in cookies {
            if let error = xcb_request_check(connection, cookie) {
                if first == nil {
                    first = XProtocolError(code: error.pointee.error_code, majorOpcode: error.pointee.major_code)
                }
                free(error)
            }
        }
        try checkAlive()
        return first
    }

    /// Reads a property. `offset` and the length are in 32-bit units; by default everything is read.
    /// The corresponding XCB request is `xcb_get_property`.
    /// - Throws: ``XProtocolError`` (BadWindow for a vanished window), or `.unavailable` when the
    ///   connection is lost.
    public func getProperty(
        window: XWindow, property: XAtom, offset: UInt32 = 0, length: UInt32 = 0x3FFF_FFFF, delete: Bool = false
    ) throws -> PropertyValue {
        let cookie = xcb_get_property(connection, delete ? 1 : 0, window, property, 0, offset, length)
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        let reply = xcb_get_property_reply(connection, cookie, &error)
        var replyOwned = true
        defer { if replyOwned { free(reply) }; free(error) }
        if let error { throw XProtocolError(code: error.pointee.error_code, majorOpcode: error.pointee.major_code) }
        guard let reply else {
            try checkAlive()
            throw PasteboardError(.unavailable, "no reply to GetProperty")
        }
        let length = Int(xcb_get_property_value_length(reply))
        var bytes = Data()
        if length > 0, let pointer = xcb_get_property_value(reply) {
            if length >= 65536 {
                // A large value (an INCR chunk) is handed on inside xcb's reply buffer, which the
                // Data frees: no copy of megabytes per chunk.
                replyOwned = false
                bytes = Data(bytesNoCopy: pointer, count: length, deallocator: .custom { _, _ in free(reply) })
            } else {
                bytes = Data(bytes: pointer, count: length)
            }
        }
        let format = reply.pointee.format
        guard [0, 8, 16, 32].contains(format) else {
            throw PasteboardError(.invalidData, "property with format \(format)")
        }
        return PropertyValue(type: reply.pointee.type, format: format, bytes: bytes,
                             bytesAfter: reply.pointee.bytes_after)
    }

    /// The corresponding XCB request is `xcb_delete_property`.
    public func deleteProperty(window: XWindow, property: XAtom) {
        xcb_delete_property(connection, window, property)
    }

    // MARK: Selections

    /// The corresponding XCB request is `xcb_set_selection_owner`.
    public func setSelectionOwner(_ selection: XAtom, window: XWindow, time: XTimestamp) {
        xcb_set_selection_owner(connection, window, selection, time)
    }

    /// The current owner of `selection` (0 for none). The corresponding XCB request is
    /// `xcb_get_selection_owner`.
    public func selectionOwner(_ selection: XAtom) throws -> XWindow {
        let cookie = xcb_get_selection_owner(connection, selection)
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        let reply = xcb_get_selection_owner_reply(connection, cookie, &error)
        defer { free(reply); free(error) }
        if let error { throw XProtocolError(code: error.pointee.error_code, majorOpcode: error.pointee.major_code) }
        guard let reply else {
            try checkAlive()
            throw PasteboardError(.unavailable, "no reply to GetSelectionOwner")
        }
        return reply.pointee.owner
    }

    /// The corresponding XCB request is `xcb_convert_selection`.
    public func convertSelection(selection: XAtom, target: XAtom, property: XAtom, requestor: XWindow, time: XTimestamp) {
        xcb_convert_selection(connection, requestor, selection, target, property, time)
    }

    /// Sends a `SelectionNotify` from a zero-filled 32-byte buffer. The corresponding XCB request is
    /// `xcb_send_event`.
    public func sendSelectionNotify(_ notify: SelectionNotify) {
        _ = cx11_send_selection_notify(connection, notify.requestor, notify.selection, notify.target,
                                       notify.property, notify.time)
    }

    /// Broadcasts the ICCCM §2.8 MANAGER client message. The corresponding XCB request is `xcb_send_event`.
    public func announceManager(selection: XAtom, owner: XWindow, time: XTimestamp) {
        _ = cx11_send_manager_message(connection, root, atoms[.manager], time, selection, owner)
    }

    /// Asks XFixes for owner changes of `selection` (all three causes). The corresponding XCB request is
    /// `xcb_xfixes_select_selection_input`.
    /// - Throws: `.unavailable` when the server lacks XFixes.
    public func watchSelection(_ selection: XAtom, window: XWindow) throws {
        guard xfixesFirstEvent != nil else {
            throw PasteboardError(.unavailable, "the X server has no XFixes extension")
        }
        let mask = XCB_XFIXES_SELECTION_EVENT_MASK_SET_SELECTION_OWNER.rawValue
            | XCB_XFIXES_SELECTION_EVENT_MASK_SELECTION_WINDOW_DESTROY.rawValue
            | XCB_XFIXES_SELECTION_EVENT_MASK_SELECTION_CLIENT_CLOSE.rawValue
        xcb_xfixes_select_selection_input(connection, window, selection, mask)
    }

    // MARK: Time

    /// A fresh server timestamp, from the PropertyNotify of a zero-length append on our window
    /// (ICCCM §2.1). Other events that arrive meanwhile stay queued.
    public func serverTime(deadline: UInt64 = MonotonicClock.nanoseconds() + 5_000_000_000) throws -> XTimestamp {
        // A probe whose notification another reader already consumed is stale: send a new one.
        sendTimeProbe()
        try flush()
        probeTime = nil
        var stash: [X11Event] = []
        defer { pushBack(stash) }
        while true {
            guard let event = try readEvent(deadline: deadline) else {
                throw PasteboardError(.timedOut, "the X server did not answer in time")
            }
            if let time = probeTime {
                probeTime = nil
                return time
            }
            stash.append(event)
        }
    }

    /// Sends the zero-length append whose PropertyNotify ``serverTime(deadline:)`` waits for, unless
    /// one is already on its way. Sent before a request with a reply, its notification arrives with
    /// that reply, so the timestamp then costs no round trip of its own.
    public func sendTimeProbe() {
        guard !probeOutstanding else { return }
        xcb_change_property(connection, UInt8(XCB_PROP_MODE_APPEND.rawValue), utilityWindow,
                            PredefinedAtom.wmName, PredefinedAtom.string, 8, 0, nil)
        probeOutstanding = true
    }

    /// Puts events back at the front of the queue (for events a nested wait did not handle).
    public func pushBack(_ events: [X11Event]) {
        guard !events.isEmpty else { return }
        queued.insert(contentsOf: events, at: queueHead)
    }

    // MARK: Events

    /// The next event, waiting until `deadline` (monotonic nanoseconds; nil waits indefinitely).
    /// Returns nil when the deadline passes first.
    /// - Throws: `.unavailable` when the connection is lost.
    /// With `alsoWaitingOn`, a descriptor that ends the wait too when it is readable (nil is then
    /// returned, as at the deadline): the daemon's inbox.
    public func nextEvent(deadline: UInt64?, alsoWaitingOn extra: Int32? = nil) throws -> X11Event? {
        if queueHead < queued.count {
            let event = queued[queueHead]
            queueHead += 1
            if queueHead == queued.count {
                queued.removeAll(keepingCapacity: true)
                queueHead = 0
            }
            return event
        }
        return try readEvent(deadline: deadline, extra: extra)
    }

    private func readEvent(deadline: UInt64?, extra: Int32? = nil) throws -> X11Event? {
        while true {
            if let raw = xcb_poll_for_event(connection) {
                defer { free(raw) }
                let event = decode(raw)
                if probeOutstanding, case .propertyNotify(let window, let atom, let time, _) = event,
                    window == utilityWindow, atom == PredefinedAtom.wmName
                {
                    probeOutstanding = false
                    probeTime = time
                }
                return event
            }
            try checkAlive()
            var timeout: Int32 = -1
            if let deadline {
                let now = MonotonicClock.nanoseconds()
                if now >= deadline { return nil }
                timeout = Int32(min(UInt64(Int32.max), (deadline - now + 999_999) / 1_000_000))
            }
            var pfds = [pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: extra ?? -1, events: Int16(POLLIN), revents: 0)]
            let result = poll(&pfds, extra == nil ? 1 : 2, timeout)
            if result < 0 && errno != EINTR {
                throw PasteboardError(.io, "poll failed: \(String(cString: strerror(errno)))")
            }
            if extra != nil, pfds[1].revents != 0 { return nil }
            if result == 0, let deadline, MonotonicClock.nanoseconds() >= deadline { return nil }
        }
    }

    private func decode(_ raw: UnsafeMutablePointer<xcb_generic_event_t>) -> X11Event {
        let responseType = raw.pointee.response_type
        let kind = responseType & 0x7F
        let sent = responseType & 0x80 != 0
        if kind == 0 {
            let error = cx11_as_error(raw)!.pointee
            return .error(code: error.error_code, majorOpcode: error.major_code, resource: error.resource_id)
        }
        if case let first?? = xfixes, kind == first &+ UInt8(XCB_XFIXES_SELECTION_NOTIFY) {
            let e = cx11_as_xfixes_selection_notify(raw)!.pointee
            return .selectionChanged(
                kind: SelectionChangeKind(rawValue: e.subtype) ?? .setOwner, selection: e.selection, owner: e.owner,
                time: e.timestamp, selectionTime: e.selection_timestamp)
        }
        switch Int32(kind) {
        case XCB_SELECTION_REQUEST:
            let e = cx11_as_selection_request(raw)!.pointee
            return .selectionRequest(SelectionRequest(
                owner: e.owner, requestor: e.requestor, selection: e.selection, target: e.target,
                property: e.property, time: e.time))
        case XCB_SELECTION_NOTIFY:
            let e = cx11_as_selection_notify(raw)!.pointee
            return .selectionNotify(
                SelectionNotify(requestor: e.requestor, selection: e.selection, target: e.target, property: e.property,
                                time: e.time), sentByClient: sent)
        case XCB_SELECTION_CLEAR:
            let e = cx11_as_selection_clear(raw)!.pointee
            return .selectionClear(owner: e.owner, selection: e.selection, time: e.time)
        case XCB_PROPERTY_NOTIFY:
            let e = cx11_as_property_notify(raw)!.pointee
            return .propertyNotify(window: e.window, atom: e.atom, time: e.time,
                                   deleted: e.state == UInt8(XCB_PROPERTY_DELETE.rawValue))
        case XCB_DESTROY_NOTIFY:
            let e = cx11_as_destroy_notify(raw)!.pointee
            return .destroyNotify(window: e.window)
        case XCB_CLIENT_MESSAGE:
            let e = cx11_as_client_message(raw)!.pointee
            let d = e.data.data32
            return .clientMessage(window: e.window, type: e.type, data: [d.0, d.1, d.2, d.3, d.4])
        default:
            return .other(responseType: kind)
        }
    }
}
