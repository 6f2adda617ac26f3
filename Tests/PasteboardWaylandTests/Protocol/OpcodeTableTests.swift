import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest
@testable import PasteboardWayland

/// Every named opcode (name, number, arguments on the wire) against the protocol XML, kept beside this
/// file (`XML/`: `wayland.xml` and `wlr-data-control-unstable-v1.xml` as Debian 12 ships them, with
/// their licences).
final class OpcodeTableTests: XCTestCase {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("XML").path
    static let waylandXML = folder + "/wayland.xml"
    static let wlrXML = folder + "/wlr-data-control-unstable-v1.xml"

    /// One interface as its XML declares it.
    struct Declared: Equatable {
        var version = 0
        var requests: [WaylandInterfaceTable.Message] = []
        var events: [WaylandInterfaceTable.Message] = []
        /// The `since` of each message that has one, by name.
        var since: [String: Int] = [:]
    }

    /// Reads a protocol file's interfaces: each request and event numbered in the order listed, with its
    /// arguments as they travel (a `new_id` without an interface is a string, a uint and the id).
    final class ProtocolReader: NSObject, XMLParserDelegate {
        var interfaces: [String: Declared] = [:]
        private var interface: String?
        private var message: (isRequest: Bool, name: String)?
        private var signature: [WaylandArgumentType] = []

        func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            switch element {
            case "interface":
                interface = attributes["name"]
                interfaces[interface!] = Declared(version: Int(attributes["version"] ?? "1") ?? 1)
            case "request", "event":
                message = (element == "request", attributes["name"] ?? "?")
                signature = []
                if let since = attributes["since"].flatMap(Int.init), let interface, let name = attributes["name"] {
                    interfaces[interface]?.since[name] = since
                }
            case "arg":
                switch attributes["type"] {
                case "int": signature.append(.int)
                case "uint": signature.append(.uint)
                case "fixed": signature.append(.fixed)
                case "string": signature.append(.string)
                case "object": signature.append(.object)
                case "new_id": signature += attributes["interface"] == nil ? [.string, .uint, .newID] : [.newID]
                case "array": signature.append(.array)
                case "fd": signature.append(.fd)
                default: XCTFail("unknown argument type \(attributes["type"] ?? "nil")")
                }
            default:
                break
            }
        }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            guard element == "request" || element == "event", let interface, let (isRequest, name) = message else { return }
            var declared = interfaces[interface]!
            if isRequest {
                declared.requests.append(.init(name: name, opcode: UInt16(declared.requests.count), signature: signature))
            } else {
                declared.events.append(.init(name: name, opcode: UInt16(declared.events.count), signature: signature))
            }
            interfaces[interface] = declared
            message = nil
        }
    }

    func declared(_ path: String, package: String) throws -> [String: Declared] {
        XCTAssertTrue(FileManager.default.fileExists(atPath: path), "\(path) is missing (\(package)'s file, kept in the repository)")
        let parser = try XCTUnwrap(XMLParser(contentsOf: URL(fileURLWithPath: path)))
        let reader = ProtocolReader()
        parser.delegate = reader
        XCTAssertTrue(parser.parse(), "\(path): \(parser.parserError.map { "\($0)" } ?? "")")
        return reader.interfaces
    }

    /// pbctl's table for `interface` against the XML's: every message pbctl names is there, at the same
    /// opcode, with the same arguments (pbctl may name fewer: it sends `wl_seat` nothing).
    func check(_ table: WaylandInterfaceTable, against xml: [String: Declared], file: StaticString = #filePath, line: UInt = #line) {
        guard let declared = xml[table.interface] else { return XCTFail("\(table.interface) is not in the XML", file: file, line: line) }
        for (ours, theirs, kind) in [(table.requests, declared.requests, "request"), (table.events, declared.events, "event")] {
            for message in ours {
                let match = theirs.first { $0.opcode == message.opcode }
                XCTAssertEqual(match, message, "\(table.interface) \(kind) \(message.opcode)", file: file, line: line)
            }
        }
    }

    func testCoreOpcodesMatchWaylandXML() throws {
        let xml = try declared(Self.waylandXML, package: "libwayland-dev")
        let core = WaylandInterfaceTable.all(.wlr).filter { $0.interface.hasPrefix("wl_") }
        XCTAssertEqual(core.map(\.interface), ["wl_display", "wl_registry", "wl_callback", "wl_seat"])
        for table in core { check(table, against: xml) }
        // Every event of the interfaces pbctl receives events of is known, so none is skipped by mistake.
        for table in core {
            XCTAssertEqual(table.events.count, xml[table.interface]?.events.count, "\(table.interface)'s events")
        }
        // wl_seat is bound at version 1: `name` (since 2) never comes, but is decoded all the same.
        XCTAssertEqual(xml["wl_seat"]?.since["name"], 2)
    }

    func testDataControlOpcodesMatchWlrXML() throws {
        let xml = try declared(Self.wlrXML, package: "librust-wayland-protocols-dev")
        let tables = WaylandInterfaceTable.all(.wlr).filter { $0.interface.hasPrefix("zwlr_") }
        XCTAssertEqual(tables.count, 4)
        for table in tables {
            check(table, against: xml)
            // The data-control interfaces are named whole: every request and event.
            XCTAssertEqual(table.requests.count, xml[table.interface]?.requests.count, "\(table.interface)'s requests")
            XCTAssertEqual(table.events.count, xml[table.interface]?.events.count, "\(table.interface)'s events")
        }
        // The version pbctl asks for is declared, and the primary selection comes with the version pbctl
        // takes it from.
        let manager = try XCTUnwrap(xml[DataControlFamily.wlr.managerInterface])
        XCTAssertGreaterThanOrEqual(UInt32(manager.version), DataControlFamily.wlr.supportedVersion)
        let device = try XCTUnwrap(xml[DataControlFamily.wlr.interface(.device)])
        XCTAssertEqual(device.since["set_primary_selection"].map(UInt32.init), DataControlFamily.wlr.primarySelectionSince)
        XCTAssertEqual(device.since["primary_selection"].map(UInt32.init), DataControlFamily.wlr.primarySelectionSince)
    }

    /// `ext_data_control_v1` (wayland-protocols 1.39, staging/ext-data-control/ext-data-control-v1.xml) is
    /// not packaged in Debian 12. It was made from wlr-data-control version 2, and its XML declares the
    /// same messages in the same order with the same arguments; the table below is transcribed from that
    /// file (each interface's requests and events, in its order). pbctl's ext table must equal it, and
    /// equal its wlr table message for message, only the interface names differing.
    func testExtTableEqualsWlrTableMessageForMessage() {
        let extXML: [(String, requests: [(String, [WaylandArgumentType])], events: [(String, [WaylandArgumentType])])] = [
            ("ext_data_control_manager_v1", [("create_data_source", [.newID]), ("get_data_device", [.newID, .object]), ("destroy", [])], []),
            ("ext_data_control_device_v1",
             [("set_selection", [.object]), ("destroy", []), ("set_primary_selection", [.object])],
             [("data_offer", [.newID]), ("selection", [.object]), ("finished", []), ("primary_selection", [.object])]),
            ("ext_data_control_source_v1", [("offer", [.string]), ("destroy", [])], [("send", [.string, .fd]), ("cancelled", [])]),
            ("ext_data_control_offer_v1", [("receive", [.string, .fd]), ("destroy", [])], [("offer", [.string])]),
        ]
        func messages(_ list: [(String, [WaylandArgumentType])]) -> [WaylandInterfaceTable.Message] {
            list.enumerated().map { .init(name: $1.0, opcode: UInt16($0), signature: $1.1) }
        }
        let transcribed = extXML.map { WaylandInterfaceTable(interface: $0.0, requests: messages($0.requests), events: messages($0.events)) }
        let ext = WaylandInterfaceTable.all(.ext).filter { $0.interface.hasPrefix("ext_") }
        XCTAssertEqual(ext, transcribed)
        let wlr = WaylandInterfaceTable.all(.wlr).filter { $0.interface.hasPrefix("zwlr_") }
        XCTAssertEqual(ext.map(\.requests), wlr.map(\.requests))
        XCTAssertEqual(ext.map(\.events), wlr.map(\.events))
        XCTAssertEqual(ext.map { $0.interface.replacingOccurrences(of: "ext_", with: "zwlr_") }, wlr.map(\.interface))
    }

    /// The client decodes each event by the table: the signature it gives is the named event's.
    func testTheClientDecodesByTheTable() {
        var client = DataControlClient()
        _ = client.getRegistry()
        for (name, interface) in [(UInt32(1), "wl_seat"), (2, "zwlr_data_control_manager_v1")] {
            _ = client.handle(WaylandMessage(object: client.registry, WlRegistry.Event.global, arguments: [.uint(name), .string(interface), .uint(2)]))
        }
        _ = client.bindDataControl()
        let (source, _) = client.createSource(offering: ["text/plain"])
        let (_, callback) = client.sync()
        let cases: [(UInt32, [WaylandInterfaceTable.Message])] = [
            (1, WlDisplay.Event.allCases.map(WaylandInterfaceTable.Message.init)),
            (client.registry, WlRegistry.Event.allCases.map(WaylandInterfaceTable.Message.init)),
            (callback, WlCallback.Event.allCases.map(WaylandInterfaceTable.Message.init)),
            (client.seat, WlSeat.Event.allCases.map(WaylandInterfaceTable.Message.init)),
            (client.device, DataControlDevice.Event.allCases.map(WaylandInterfaceTable.Message.init)),
            (source, DataControlSource.Event.allCases.map(WaylandInterfaceTable.Message.init)),
        ]
        for (object, events) in cases {
            for event in events { XCTAssertEqual(client.eventSignature(object: object, opcode: event.opcode), event.signature, event.name) }
            XCTAssertNil(client.eventSignature(object: object, opcode: UInt16(events.count)), "an opcode past the last event")
        }
        XCTAssertNil(client.eventSignature(object: client.manager, opcode: 0), "the manager has no events")
    }
}
