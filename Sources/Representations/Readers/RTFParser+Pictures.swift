// RTF pictures: `{\pict \pngblip …hex…}` (PNG and JPEG kept, other formats dropped).

extension RTFParser {
    @inline(__always)
    mutating func pictureWord(_ word: Keyword.Picture) {
        switch word {
        case .pict:
            state.destination = .picture
            pictureHex = []
            pictureNibble = nil
            pictureType = nil
            pictureDepth = stack.count
        case .pngblip: if state.destination == .picture { pictureType = "image/png" }
        case .jpegblip: if state.destination == .picture { pictureType = "image/jpeg" }
        case .otherBlip: if state.destination == .picture { pictureType = nil }
        case .shppict: break
        case .nonshppict: state.destination = .skip
        }
    }

    mutating func pictureHexDigits<C: Collection>(_ digits: C) where C.Element == UInt8 {
        for d in digits {
            guard let v = RTFTokenizer.hexValue(d) else { continue }
            if let high = pictureNibble {
                pictureHex.append(high << 4 | v)
                pictureNibble = nil
            } else {
                pictureNibble = v
            }
        }
    }

    mutating func finishPicture(outerStyle: GroupState) {
        pictureDepth = -1
        guard outerStyle.destination == .normal || outerStyle.destination == .skipText else { return }
        var data = pictureHex
        var type = pictureType
        if type == nil {  // sniff: Word sometimes omits the blip type
            if data.starts(with: [0x89, 0x50, 0x4E, 0x47]) { type = "image/png" } else if data.starts(with: [0xFF, 0xD8, 0xFF]) { type = "image/jpeg" }
        }
        if type == nil { data = [] }
        pictureHex = []
        let saved = state
        state = outerStyle
        if let type, !data.isEmpty {
            images.append((data, type))
            paragraph.runs.append(RTFRun(kind: .image, style: state.style, size: Int32(truncatingIfNeeded: state.fontSize), link: -1, start: images.count - 1, count: 0))
        }
        state = saved
    }
}
