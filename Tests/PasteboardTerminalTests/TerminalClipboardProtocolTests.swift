import Foundation
import XCTest

@testable import PasteboardTerminal

/// OSC 52, the multiplexers' wrappings and kitty's OSC 5522, byte for byte, without a terminal.
final class TerminalClipboardProtocolTests: XCTestCase {
    typealias P = TerminalClipboardProtocol
    let esc: UInt8 = 0x1B

    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    func testOSC52CopyQueryAndClear() {
        XCTAssertEqual(P.copy(Data("héllo".utf8)), [esc] + Array("]52;c;aMOpbGxv".utf8) + [0x07])
        XCTAssertEqual(P.copy(Data("x".utf8), selection: .primary), [esc] + Array("]52;p;eA==".utf8) + [0x07])
        XCTAssertEqual(P.query(), [esc] + Array("]52;c;?".utf8) + [0x07])
        XCTAssertEqual(P.clear(), [esc] + Array("]52;c;!".utf8) + [0x07])
    }

    func testTmuxPassthroughDoublesEveryInnerEscape() {
        let wrapped = P.copy(Data("a".utf8), wrapping: .tmux)
        XCTAssertEqual(wrapped, [esc] + Array("Ptmux;".utf8) + [esc, esc] + Array("]52;c;YQ==".utf8) + [0x07, esc, UInt8(ascii: "\\")])
    }

    func testScreenChunksStayUnderItsStringLimit() {
        let sequence = P.copy(Data(repeating: 0x41, count: 5000))
        let wrapped = P.wrap(sequence, .screen)
        var chunks: [[UInt8]] = []
        var i = 0
        while i < wrapped.count {
            XCTAssertEqual(Array(wrapped[i..<(i + 2)]), [esc, UInt8(ascii: "P")])
            var j = i + 2
            while !(wrapped[j] == esc && wrapped[j + 1] == UInt8(ascii: "\\")) { j += 1 }
            chunks.append(Array(wrapped[(i + 2)..<j]))
            i = j + 2
        }
        XCTAssertTrue(chunks.allSatisfy { $0.count <= 768 }, "every DCS string under screen's 768 bytes")
        XCTAssertEqual(chunks.flatMap { $0 }, sequence, "the chunks put back together are the sequence")
    }

    func testRepliesEndedByBELOrSTAmidNoise() {
        var reader = P.OSCReader(limit: 1 << 20)
        let tmuxReply: [UInt8] = [esc] + Array("]52;;aGVsbG8=".utf8) + [0x07]
        let xtermReply: [UInt8] = [esc] + Array("]52;c;d29ybGQ=".utf8) + [esc, UInt8(ascii: "\\")]
        // Typed keys before, a reply split across reads.
        var payloads = reader.feed(Array("ab".utf8) + tmuxReply.prefix(5))
        XCTAssertEqual(payloads, [])
        payloads = reader.feed(tmuxReply.dropFirst(5) + xtermReply)
        XCTAssertEqual(payloads.map { P.parseReply($0) }, [Data("hello".utf8), Data("world".utf8)])
        XCTAssertEqual(P.parseReply(Array("52;c;".utf8)), Data(), "an empty clipboard")
        XCTAssertNil(P.parseReply(Array("11;rgb:0000/0000/0000".utf8)), "another OSC reply")
        XCTAssertNil(P.parseReply(Array("52;c;@@@".utf8)), "not base64")
    }

    func testOverlongRepliesAreDropped() {
        var reader = P.OSCReader(limit: 16)
        XCTAssertEqual(reader.feed([esc] + Array("]52;c;".utf8) + Array(repeating: 0x41, count: 100) + [0x07]), [])
        XCTAssertEqual(reader.feed([esc] + Array("]52;c;QQ==".utf8) + [0x07]).count, 1, "the next reply is read")
    }

    func testKittyWritePacketsFollowTheSpecification() throws {
        let html = Data(repeating: 0x3C, count: 5000)
        let packets = P.kittyWrite([("text/plain", Data("hi".utf8)), ("text/html", html)])
        let texts = packets.map { text($0) }
        XCTAssertEqual(texts.first, "\u{1B}]5522;type=write\u{1B}\\")
        XCTAssertEqual(texts[1], "\u{1B}]5522;type=wdata:mime=\(Data("text/plain".utf8).base64EncodedString());aGk=\u{1B}\\")
        XCTAssertEqual(texts.last, "\u{1B}]5522;type=wdata\u{1B}\\")
        XCTAssertEqual(packets.count, 1 + 1 + 2 + 1, "5000 bytes go in two chunks of at most 4096")
        // Each data chunk decodes to at most 4096 bytes, and together to the whole representation.
        var joined = Data()
        for packet in packets[2...3] {
            let body = text(Array(packet.dropFirst(1).dropLast(2)))
            let chunk = try XCTUnwrap(Data(base64Encoded: String(body.split(separator: ";").last!)))
            XCTAssertLessThanOrEqual(chunk.count, 4096)
            joined.append(chunk)
        }
        XCTAssertEqual(joined, html)
        XCTAssertEqual(text(P.kittyWrite([], selection: .primary)[0]), "\u{1B}]5522;type=write:loc=primary\u{1B}\\")
    }

    func testKittyReadRepliesAssemble() {
        XCTAssertEqual(text(P.kittyRead(["text/plain", "image/png"])),
                       "\u{1B}]5522;type=read;\(Data("text/plain image/png".utf8).base64EncodedString())\u{1B}\\")
        var assembler = P.KittyReadAssembler(limit: 1 << 20)
        let mime = Data("text/plain".utf8).base64EncodedString()
        for payload in ["5522;type=read:status=OK", "5522;type=read:status=DATA:mime=\(mime);aGVs",
                        "5522;type=read:status=DATA:mime=\(mime);bG8=", "5522;type=read:status=DONE"] {
            assembler.feed(Array(payload.utf8))
        }
        XCTAssertEqual(assembler.state, .done)
        XCTAssertEqual(assembler.representations.count, 1)
        XCTAssertEqual(assembler.representations.first?.data, Data("hello".utf8))

        var denied = P.KittyReadAssembler(limit: 1 << 20)
        denied.feed(Array("5522;type=read:status=EPERM".utf8))
        XCTAssertEqual(denied.state, .failed("the terminal answered EPERM"))

        var outOfOrder = P.KittyReadAssembler(limit: 1 << 20)
        outOfOrder.feed(Array("5522;type=read:status=DATA:mime=\(mime);aGk=".utf8))
        XCTAssertEqual(outOfOrder.state, .failed("packets out of order"))

        var tooLarge = P.KittyReadAssembler(limit: 3)
        tooLarge.feed(Array("5522;type=read:status=OK".utf8))
        tooLarge.feed(Array("5522;type=read:status=DATA:mime=\(mime);aGVsbG8=".utf8))
        XCTAssertEqual(tooLarge.state, .failed("more than 3 bytes"))
    }
}
