// The converter's CSS: inline `style` attributes (weight, style, decoration, vertical alignment, monospace
// families, `white-space`, `display:none`, `text-align`) read as the formatting they mean.

extension HTMLConverter {
    /// CSS `white-space` of an element: true for pre/pre-wrap/break-spaces, false for normal/nowrap.
    static func preservesWhiteSpace(_ node: HTMLNode) -> Bool? {
        guard let style = node.attribute("style") else { return nil }
        if ASCIICSS.contains(style, lowercased: "white-space", ignoringCase: false) == false { return nil }
        if let declarations = ASCIICSS.declarations(style) {
            // The same rules as below, on UTF-8: a declaration needs a name and a value.
            var result: Bool? = nil
            for (property, value) in declarations where !property.isEmpty && !value.isEmpty {
                guard property.trimmingWhitespace() == "white-space" else { continue }
                let v = value.trimmingWhitespace()
                if v.hasPrefix("pre") || v == "break-spaces" { result = true } else if v == "normal" || v == "nowrap" { result = false }
            }
            return result
        }
        guard style.contains("white-space") else { return nil }
        var result: Bool? = nil
        for declaration in style.lowercased().split(separator: ";") {
            let parts = declaration.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingWhitespace() == "white-space" else { continue }
            let v = parts[1].trimmingWhitespace()
            if v.hasPrefix("pre") || v == "break-spaces" { result = true } else if v == "normal" || v == "nowrap" { result = false }
        }
        return result
    }

    func isHidden(_ node: HTMLNode) -> Bool {
        if node.attribute("hidden") != nil { return true }
        guard let raw = node.attribute("style") else { return false }
        if let a = ASCIICSS.contains(raw, lowercased: "display:none"), let b = ASCIICSS.contains(raw, lowercased: "display: none") {
            return a || b
        }
        let style = raw.lowercased()
        if style.contains("display:none") || style.contains("display: none") {
            return true
        }
        return false
    }

    /// Inline elements deeper than this add no formatting: every text run carries its open elements,
    /// so unbounded nesting (`<b><i>` a hundred thousand times) made the reader quadratic.
    static let maximumInlineNesting = 32

    mutating func push(_ kind: InlineWrapper.Kind, _ wrappers: inout [InlineWrapper]) {
        guard wrappers.count < Self.maximumInlineNesting else { return }
        nextWrapperID += 1
        wrappers.append(InlineWrapper(kind: kind, id: nextWrapperID))
    }

    /// Applies an element's tag and inline CSS to the open inline elements: tags open their element;
    /// CSS opens one only when none of that kind is open, and `font-weight:normal` (Google Docs' `<b>`
    /// wrapper) or `font-style:normal` closes it. In a heading, CSS bold opens nothing (``inHeading``).
    mutating func applyStyle(_ node: HTMLNode, _ wrappers: inout [InlineWrapper]) {
        func open(_ kind: InlineWrapper.Kind) -> Bool { wrappers.contains { $0.kind == kind } }
        var tagKind: InlineWrapper.Kind? = nil
        switch node.tag {
        case .b, .strong: tagKind = .strong
        case .i, .em, .cite, .dfn: tagKind = .emphasis
        case .s, .strike, .del: tagKind = .strikethrough
        case .u: tagKind = .underline
        case .ins, .mark: tagKind = .html(node.tag.name)
        case .kbd: tagKind = open(.code) ? nil : .html("kbd")
        case .sup: tagKind = .superscript
        case .sub: tagKind = .subscript
        case .code, .samp, .tt: tagKind = open(.code) ? nil : .code
        case .font:
            if let face = node.attribute("face"), Self.isMonospaceFamily(face), !open(.code) { tagKind = .code }
        default: break
        }
        if !node.hasAttributes {
            if let kind = tagKind { push(kind, &wrappers) }
            return
        }
        var css: [(String, String)] = []
        if let style = node.attribute("style"), !style.isEmpty, let declarations = ASCIICSS.declarations(style) {
            for (property, value) in declarations {
                var v = value.trimmingWhitespace()
                if ASCIICSS.contains(v, lowercased: "!important") == true { v = v.replacingOccurrencesOfImportant() }
                css.append((property.trimmingWhitespace(), v))
            }
        } else if let style = node.attribute("style"), !style.isEmpty {
            for declaration in style.split(separator: ";") {
                guard let colon = declaration.firstIndex(of: ":") else { continue }
                css.append((declaration[..<colon].trimmingWhitespace().lowercased(),
                    declaration[declaration.index(after: colon)...].trimmingWhitespace().lowercased().replacingOccurrencesOfImportant()))
            }
        }
        var weight: Bool? = nil
        var italic: Bool? = nil
        for (property, value) in css where property == "font-weight" {
            if value == "bold" || value == "bolder" { weight = true } else if value == "normal" || value == "lighter" { weight = false } else if let n = Int(value) { weight = n >= 600 }
        }
        for (property, value) in css where property == "font-style" {
            italic = value.hasPrefix("italic") || value.hasPrefix("oblique")
        }
        // The tag, unless its own CSS cancels it (<b style="font-weight:normal">).
        if let kind = tagKind, !(kind == .strong && weight == false), !(kind == .emphasis && italic == false) {
            push(kind, &wrappers)
            if node.tag == .font { wrappers[wrappers.count - 1].fromFont = true }
        }
        if weight == false { wrappers.removeAll { $0.kind == .strong } } else if weight == true, !open(.strong), !inHeading { push(.strong, &wrappers) }
        if italic == false { wrappers.removeAll { $0.kind == .emphasis } } else if italic == true, !open(.emphasis) { push(.emphasis, &wrappers) }
        for (property, value) in css {
            switch property {
            case "text-decoration", "text-decoration-line":
                if ASCIICSS.contains(value, lowercased: "line-through") ?? value.contains("line-through"), !open(.strikethrough) {
                    push(.strikethrough, &wrappers)
                }
                if ASCIICSS.contains(value, lowercased: "underline") ?? value.contains("underline"), !open(.underline) { push(.underline, &wrappers) }
            case "vertical-align":
                if value == "super", !open(.superscript) { push(.superscript, &wrappers) }
                if value == "sub", !open(.subscript) { push(.subscript, &wrappers) }
            case "font-family", "font":
                if Self.isMonospaceFamily(value), !open(.code) {
                    push(.code, &wrappers)
                    wrappers[wrappers.count - 1].fromFont = true
                }
            default:
                break
            }
        }
    }

    static func isMonospaceFamily(_ value: String) -> Bool {
        let v = value.lowercased()
        // The first family decides (a fallback list may end in monospace after a proportional font).
        let first = v.split(separator: ",").first.map { $0.trimmingWhitespace().trimmingCharacters("'\"") } ?? v
        func has(_ s: String) -> Bool { ASCIICSS.contains(first, lowercased: s) ?? first.contains(s) }
        return has("mono") || has("courier") || first.hasPrefix("consolas") || first.hasPrefix("menlo")
            || first.hasPrefix("monaco") || first == "monospace" || first.hasPrefix("lucida console") || (has("code") && FontName.namesCode(first))
            || first.hasPrefix("inconsolata") || first.hasPrefix("sfmono") || first.hasPrefix("ui-monospace")
    }

    /// The `text-align` value of a `style` attribute.
    static func textAlign(_ css: String) -> String? {
        for declaration in css.split(separator: ";") {
            let parts = declaration.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingWhitespace().lowercased() == "text-align" { return parts[1].trimmingWhitespace() }
        }
        return nil
    }
}
