import Foundation
import Pasteboard
import XCTest

@testable import KDEConnect

final class KDEConnectRichClipboardTests: XCTestCase {
    func testEveryRepresentationTravelsInChunksAndReadsBack() throws {
        let big = Data((0..<(RichClipboard.chunkSize * 2 + 17)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var sender = RichClipboardSender(
            transfer: 9, changed: 1234, onConnect: false,
            representations: [("net.daringfireball.markdown", nil, Data("# Hi".utf8)), ("public.html", "net.daringfireball.markdown", Data("<h1>Hi</h1>".utf8)), ("public.png", nil, big), ("public.rtf", nil, Data())])
        var receiver = RichClipboardReceiver(maximumTotal: 1 << 24)
        var parts: [Int: Data] = [:]
        var finished: RichClipboard.Header?
        var packets = 0
        while let packet = sender.next(now: 0) {
            packets += 1
            let line = packet.encoded()
            XCTAssertLessThan(line.count, NetworkPacket.maximumSize)
            for output in receiver.handle(try NetworkPacket.decode(line.dropLast())) {
                switch output {
                case .bytes(let part, let data): parts[part, default: Data()].append(data)
                case .finished(let header): finished = header
                case .abandoned(let why): XCTFail(why)
                case .started: break
                }
            }
        }
        XCTAssertEqual(packets, 1 + 1 + 1 + 3 + 1)
        XCTAssertEqual(finished?.parts.map(\.type), ["net.daringfireball.markdown", "public.html", "public.png", "public.rtf"])
        XCTAssertEqual(finished?.parts[1].derivedFrom, "net.daringfireball.markdown")
        XCTAssertEqual(parts[2], big)
        XCTAssertEqual(parts[0], Data("# Hi".utf8))
    }

    func testTheReceiverRefusesWhatWasNotDeclared() throws {
        func header(_ size: Int) -> NetworkPacket {
            RichClipboard.Header(transfer: 1, changed: 0, onConnect: false, parts: [.init(type: "public.utf8-plain-text", derivedFrom: nil, size: size)]).packet(now: 0)
        }
        var receiver = RichClipboardReceiver(maximumTotal: 100)
        XCTAssertEqual(receiver.handle(header(101)).count, 1)
        XCTAssertNil(receiver.open)
        _ = receiver.handle(header(2))
        let tooMuch = RichClipboard.chunk(transfer: 1, part: 0, bytes: Data("abc".utf8), now: 0)
        XCTAssertEqual(receiver.handle(tooMuch), [.abandoned("more bytes than declared")])
        _ = receiver.handle(header(3))
        _ = receiver.handle(RichClipboard.chunk(transfer: 1, part: 0, bytes: Data("ab".utf8), now: 0))
        XCTAssertEqual(receiver.handle(RichClipboard.end(transfer: 1, now: 0)), [.abandoned("a transfer ended short")])
        _ = receiver.handle(header(1))
        XCTAssertEqual(receiver.handle(RichClipboard.chunk(transfer: 2, part: 0, bytes: Data("a".utf8), now: 0)).first, .abandoned("a chunk of another transfer, or without data"))
    }
}
