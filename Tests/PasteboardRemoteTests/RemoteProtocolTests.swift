import Foundation
import Pasteboard
import XCTest

@testable import RemoteProtocol

/// The wire format: every message round-trips, frames arrive in any slicing, and malformed frames are
/// refused before anything is allocated for them.
final class RemoteProtocolTests: XCTestCase {
    let samples: [RemoteMessage] = [
        .hello(version: 1), .listItems(pasteboard: "general"), .read(pasteboard: "primary", item: 3, type: "public.html"),
        .beginWrite(pasteboard: "general", metadata: Data("{}".utf8), options: Data(#"{"pasteOnce":true}"#.utf8)),
        .beginRepresentation(type: "net.daringfireball.markdown", derivedFrom: nil),
        .beginRepresentation(type: "public.html", derivedFrom: "net.daringfireball.markdown"), .endWrite, .clear(pasteboard: "find"),
        .changeCount(pasteboard: "general"), .info, .watch(pasteboard: "general"), .chunk(Data([0, 1, 2, 255])), .chunk(Data()), .end,
        .welcome(version: 1, canRead: true, canWrite: false, place: "x11 (:0) ✓"), .items(Data("[]".utf8)), .done(value: -7),
        .done(value: Int64.max), .failure(code: 2, message: "public.png is not offered"), .change(Data("{}".utf8)),
        .infoReply(Data(#"{"name":"x11"}"#.utf8)),
    ]

    func testEveryMessageRoundTrips() throws {
        for message in samples {
            var reader = RemoteFrameReader()
            reader.feed(message.encoded())
            XCTAssertEqual(try reader.next(), message)
            XCTAssertNil(try reader.next())
            XCTAssertEqual(reader.pending, 0)
        }
    }

    func testFramesArriveInAnySlicing() throws {
        let stream = samples.flatMap { $0.encoded() }
        for step in [1, 2, 3, 7, 64, stream.count] {
            var reader = RemoteFrameReader()
            var decoded: [RemoteMessage] = []
            var offset = 0
            while offset < stream.count {
                reader.feed(stream[offset..<min(stream.count, offset + step)])
                offset += step
                while let message = try reader.next() { decoded.append(message) }
            }
            XCTAssertEqual(decoded, samples, "step \(step)")
        }
    }

    func testAChunkHeaderFramesBytesSentApart() throws {
        var reader = RemoteFrameReader()
        reader.feed(RemoteMessage.chunkHeader(count: 3) + [9, 8, 7])
        XCTAssertEqual(try reader.next(), .chunk(Data([9, 8, 7])))
    }

    func testMalformedFramesAreRefused() {
        let bad: [[UInt8]] = [
            [0, 0, 0, 0],  // an empty frame
            [0xFF, 0xFF, 0xFF, 0x7F, 1],  // a 2 GiB frame: refused before it is waited for
            [1, 0, 0, 0, 200],  // an unknown tag
            [3, 0, 0, 0, 2, 0xFF, 0xFF],  // a string length past the frame
            [9, 0, 0, 0, 2, 4, 0, 0, 0, 0xC3, 0x28, 0x41, 0x42],  // a string that is not UTF-8
            [4, 0, 0, 0, 1, 1, 0, 9],  // bytes after a message
            [6, 0, 0, 0, 5, 1, 0, 0, 0, 2],  // a bad presence byte
        ]
        for bytes in bad {
            var reader = RemoteFrameReader()
            reader.feed(bytes)
            XCTAssertThrowsError(try reader.next(), "\(bytes)")
        }
    }

    func testErrorCodesTravel() {
        let codes: [PasteboardError.Code] = [.empty, .typeNotOffered, .invalidData, .unavailable, .io, .corrupt, .refused, .timedOut, .noInput]
        for code in codes { XCTAssertEqual(PasteboardError.Code(wireValue: code.wireValue), code) }
        XCTAssertEqual(PasteboardError.Code(wireValue: 250), .io)
    }
}
