import PasteboardWayland

/// The Wayland data-control client fed what a compositor could send: the input is a stream of wire
/// messages (header, then arguments decoded by each event's signature). Each message's object id is
/// taken modulo the objects the client knows at that point (display, registry, seat, manager, device,
/// offers, sources), so random bytes reach every event handler instead of unknown ids. Between
/// messages the client also makes the requests a paste, a copy and a daemon make (sources, receive,
/// destroy), on whatever state the events left. Descriptors in `send` events are fake (-1).
enum WaylandProtocolFuzzer {
    static func run(_ input: [UInt8]) {
        var client = DataControlClient()
        _ = client.getRegistry()
        let registry = client.registry
        for (name, interface, version) in [(UInt32(1), "wl_seat", UInt32(7)), (2, "zwlr_data_control_manager_v1", 2),
                                           (3, "ext_data_control_manager_v1", 1)] {
            _ = client.handle(WaylandMessage(object: registry, opcode: 0, arguments: [.uint(name), .string(interface), .uint(version)]))
        }
        _ = client.bindDataControl()
        var sources: [UInt32] = []
        var bytes = input[...]
        var steps = 0
        while steps < 4096, bytes.count >= 8 {
            steps += 1
            guard let header = try? WaylandWire.header(bytes), header.size >= 8, header.size <= bytes.count else { return }
            var known: [UInt32] = [1, registry, client.seat, client.manager, client.device] + sources
            known += client.offers.keys.sorted()
            let object = known[Int(header.object % UInt32(known.count))]
            let body = bytes[(bytes.startIndex + 8)..<(bytes.startIndex + header.size)]
            bytes = bytes.dropFirst(header.size)
            var fds = [Int32](repeating: -1, count: 4)
            if let types = client.eventSignature(object: object, opcode: header.opcode),
               let arguments = try? WaylandWire.arguments(body, types: types, fds: &fds) {
                let event = client.handle(WaylandMessage(object: object, opcode: header.opcode, arguments: arguments))
                if case .cancelled(let source)? = event { _ = client.destroy(source) }
            }
            // The requests clients make on the state the events left.
            switch header.opcode & 3 {
            case 0:
                let (source, messages) = client.createSource(offering: ["text/plain;charset=utf-8", "text/html"])
                sources.append(source)
                for message in messages { _ = WaylandWire.encode(message) }
                _ = WaylandWire.encode(client.setSelection(source, primary: header.opcode & 4 != 0))
            case 1:
                if let offer = client.selection ?? client.primarySelection {
                    _ = WaylandWire.encode(client.receive(offer, mime: client.offers[offer]?.first ?? "text/plain", fd: -1))
                }
            case 2:
                if let offer = client.offers.keys.first, let message = client.destroy(offer) { _ = WaylandWire.encode(message) }
            default:
                _ = client.sync()
            }
            if sources.count > 64 { sources.removeFirst(32) }
        }
    }
}
