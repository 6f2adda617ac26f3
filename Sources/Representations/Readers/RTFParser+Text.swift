import ReaderSupport

// RTF text: bytes decoded through the current code page into the parser's one UTF-8 buffer, runs, `\uN`
// Unicode escapes with their surrogate pairs, control symbols and the control words that stand for a character.

extension RTFParser {
    @inline(__always)
    mutating func appendByte(_ b: UInt8) {
        if state.destination.readsText { pendingBytes.append(b) }  // other text is never decoded at all
    }

    mutating func flushBytes() {
        guard !pendingBytes.isEmpty else { return }
        pendingHighSurrogate = nil
        if state.destination == .normal {
            if !state.hidden {
                let i = textRun()
                let leftover = currentCodePage().decode(pendingBytes[...], into: &text)
                if leftover > 0 { text.append(contentsOf: [0xEF, 0xBF, 0xBD]) }
                grewText(i)
            }
            pendingBytes.removeAll(keepingCapacity: true)
            return
        }
        if !pendingBytes.contains(where: { $0 >= 0x80 }) {
            let ascii = String(decoding: pendingBytes, as: UTF8.self)
            pendingBytes.removeAll(keepingCapacity: true)
            emitText(ascii)
            return
        }
        var utf8: [UInt8] = []
        let leftover = currentCodePage().decode(pendingBytes[...], into: &utf8)
        if leftover > 0 { UTF8.append("\u{FFFD}", to: &utf8) }
        pendingBytes.removeAll(keepingCapacity: true)
        emitText(String(decoding: utf8, as: UTF8.self))
    }

    mutating func emitText(_ text: String) {
        switch state.destination {
        case .normal:
            if state.hidden { return }
            appendText(text.utf8)
        case .fontTable:
            for ch in text {
                if ch == ";" {
                    if fontEntry >= 0, let f = fonts[fontEntry], Self.isMonospaceName(f.name) { fonts[fontEntry]?.monospace = true }
                    fontEntry = -1
                } else if fontEntry >= 0 {
                    fonts[fontEntry, default: Font()].name.append(ch)
                }
            }
        case .styleSheet:
            for ch in text where ch != ";" { styleEntry.name.append(ch) }
        case .listText:
            markerText += text
        case .levelText:
            // A label is its length and at most that many characters: a longer one is not read further.
            for scalar in text.unicodeScalars where levelText.count < RTFListLevel.maxLevelText { levelText.append(scalar) }
        case .fieldInstruction:
            if !fields.isEmpty { fields[fields.count - 1].instruction += text }
        case .skip, .picture, .listTable, .listOverrideTable, .legacyNumbering, .skipText:
            break
        }
    }

    /// The index of a text run at the end of the paragraph that has the current style and ends where ``text``
    /// does (so bytes appended to ``text`` extend it), made if needed.
    @inline(__always)
    private mutating func textRun() -> Int {
        var style = state.style
        if state.fontMonospace { style.monospace = true }
        let link = Int32(state.fieldIndex.map { fieldURLs[$0] == nil ? -1 : $0 } ?? -1)
        let size = Int32(truncatingIfNeeded: state.fontSize)
        let last = paragraph.runs.count - 1
        if last >= 0, paragraph.runs[last].kind == .text, paragraph.runs[last].end == text.count,
            paragraph.runs[last].style == style, paragraph.runs[last].size == size, paragraph.runs[last].link == link
        {
            return last
        }
        if paragraph.runs.isEmpty { paragraph.runs.reserveCapacity(4) }  // one allocation for most paragraphs
        paragraph.runs.append(RTFRun(kind: .text, style: style, size: size, link: link, start: text.count, count: 0))
        return last + 1
    }

    /// Records the bytes appended to ``text`` since ``textRun()`` returned `i`.
    @inline(__always)
    private mutating func grewText(_ i: Int) {
        if state.caps { capitalizeText(from: paragraph.runs[i].end) }
        let added = text.count - paragraph.runs[i].end
        paragraph.runs[i].count += added
        if state.fontSize == lastHistogramSize {
            lastHistogramCount += added
        } else {
            sizeHistogram[lastHistogramSize, default: 0] += lastHistogramCount
            lastHistogramSize = state.fontSize
            lastHistogramCount = added
        }
    }

    /// Text under `\caps` is written in capitals, as it is shown (plain text and Markdown have no "all caps").
    private mutating func capitalizeText(from start: Int) {
        for k in start..<text.count {
            let b = text[k]
            if b >= 0x80 {
                // Beyond ASCII, case mapping may change the length ("ß" is "SS").
                let upper = String(decoding: text[start...], as: UTF8.self).uppercased()
                text.replaceSubrange(start..., with: upper.utf8)
                return
            }
            if b >= 0x61 && b <= 0x7A { text[k] = b - 0x20 }
        }
    }

    mutating func appendText<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        let i = textRun()
        text.append(contentsOf: bytes)
        grewText(i)
    }

    mutating func appendRun(_ kind: RTFRun.Kind, start: Int = 0, count: Int = 0) {
        var style = state.style
        if state.fontMonospace { style.monospace = true }
        let link = Int32(state.fieldIndex.map { fieldURLs[$0] == nil ? -1 : $0 } ?? -1)
        paragraph.runs.append(RTFRun(kind: kind, style: style, size: Int32(truncatingIfNeeded: state.fontSize), link: link, start: start, count: count))
    }

    mutating func appendScalar(_ value: UInt32) {
        guard let s = Unicode.Scalar(value) else { return }
        if state.destination == .normal {
            if state.hidden { return }
            let i = textRun()
            UTF8.append(s, to: &text)
            grewText(i)
        } else {
            emitText(String(Character(s)))
        }
    }

    private mutating func appendUnicode(_ parameter: Int) {
        var unit = parameter
        if unit < 0 { unit += 65536 }
        unit &= 0xFFFF
        let u16 = UInt16(unit)
        if UTF16.isLeadSurrogate(u16) {
            pendingHighSurrogate = u16
            return
        }
        if UTF16.isTrailSurrogate(u16) {
            if let high = pendingHighSurrogate {
                pendingHighSurrogate = nil
                let value = 0x10000 + ((UInt32(high) - 0xD800) << 10) + (UInt32(u16) - 0xDC00)
                appendScalar(value)
            } else {
                appendScalar(0xFFFD)
            }
            return
        }
        if pendingHighSurrogate != nil {
            pendingHighSurrogate = nil
            appendScalar(0xFFFD)
        }
        appendScalar(UInt32(u16))
    }

    mutating func handleSymbol(_ c: UInt8) {
        switch c {
        case UInt8(ascii: "\\"), UInt8(ascii: "{"), UInt8(ascii: "}"):
            appendByte(c)
            return
        default:
            break
        }
        flushBytes()
        switch c {
        case UInt8(ascii: "*"):
            // An ignorable destination: skip unless the next word is one we handle (checked in handleWord).
            if state.destination == .normal || state.destination == .skipText { state.destination = .skipText }
        case 0x0A, 0x0D:
            if state.destination == .normal { endParagraph() }
        case UInt8(ascii: "~"):
            emitText("\u{00A0}")
        case UInt8(ascii: "_"):
            emitText("\u{2011}")
        case UInt8(ascii: "-"):
            emitText("\u{00AD}")  // optional hyphen: kept as the soft hyphen, as LibreOffice and pandoc keep it
        case 0x09:
            emitText("\t")
        default:
            break
        }
    }

    @inline(__always)
    mutating func unicodeWord(_ word: Keyword.UnicodeControl, _ p: Int?) {
        switch word {
        case .uc: state.uc = max(0, min(p ?? 1, 16))
        case .u:
            if let p {
                appendUnicode(p)
                unicodeSkip = state.uc
            }
        }
    }
}
