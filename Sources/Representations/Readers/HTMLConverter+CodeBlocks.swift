// The converter's code blocks: `<pre>`, its language from `lang`/`class`, GitHub's highlighted `<div>`s.

extension HTMLConverter {
    func codeBlock(_ node: HTMLNode) -> RichBlock {
        var bytes: [UInt8] = []
        var stack = [node]
        while let n = stack.popLast() {
            let r = n.record
            switch r.kind {
            case .text: bytes += n.tree.bytes[Int(r.textStart)..<Int(r.textStart + r.textCount)]
            case .comment: break
            case .element:
                if r.tag == .br {
                    bytes.append(0x0A)
                } else if !r.flags.contains(.dropped) {
                    if r.firstChild >= 0 && r.firstChild == r.lastChild {
                        stack.append(HTMLNode(tree: n.tree, id: r.firstChild))
                    } else {
                        stack.append(contentsOf: n.children.reversed())
                    }
                }
            }
        }
        var code = String(decoding: bytes, as: UTF8.self).replacingNewlines()
        // HTML drops the newline right after <pre>, and only that one.
        if let first = node.children.first, first.kind == .text, first.text.hasPrefix("\n") || first.text.hasPrefix("\r"), code.hasPrefix("\n") {
            code.removeFirst()
        }
        var info = node.attribute("lang") ?? ""
        if info.isEmpty {
            func scan(_ n: HTMLNode) {
                guard n.kind == .element, let cls = n.attribute("class") else { return }
                if let ascii = Self.asciiLanguageClass(cls) {
                    if let value = ascii { info = value }
                    return
                }
                for c in cls.split(separator: " ") {
                    if c.hasPrefix("language-") { info = String(c.dropFirst(9)) } else if c.hasPrefix("lang-") { info = String(c.dropFirst(5)) }
                }
            }
            scan(node)
            if info.isEmpty {
                for n in node.children {
                    scan(n)
                    if !info.isEmpty { break }
                }
            }
        }
        return .codeBlock(info: info, code: code)
    }

    /// The last `language-X` / `lang-X` class of an all-ASCII class list, found on UTF-8: `.some(nil)` when
    /// there is none, `nil` when the list is not ASCII (then the caller splits it by characters).
    static func asciiLanguageClass(_ cls: String) -> String?? {
        var cls = cls
        return cls.withUTF8 { buf -> String?? in
            var found: String? = nil
            var k = 0
            while k < buf.count {
                if buf[k] >= 0x80 { return nil }
                k += 1
            }
            k = 0
            while k <= buf.count {
                let start = k
                while k < buf.count, buf[k] != 0x20 { k += 1 }
                let word = UnsafeBufferPointer(rebasing: buf[start..<k])
                if word.starts(with: "language-".utf8) {
                    found = String(decoding: UnsafeBufferPointer(rebasing: word[9...]), as: UTF8.self)
                } else if word.starts(with: "lang-".utf8) {
                    found = String(decoding: UnsafeBufferPointer(rebasing: word[5...]), as: UTF8.self)
                }
                k += 1
            }
            return .some(found)
        }
    }

    /// GitHub wraps highlighted code as `<div class="highlight highlight-source-swift"><pre>…`.
    func githubCodeBlock(_ node: HTMLNode) -> RichBlock? {
        guard let cls = node.attribute("class"), cls.contains("highlight") else { return nil }
        guard let pre = node.children.first(where: { $0.kind == .element && $0.name == "pre" }) else { return nil }
        guard case .codeBlock(let info, let code) = codeBlock(pre) else { return nil }
        var language = info
        if language.isEmpty {
            for c in cls.split(separator: " ") where c.hasPrefix("highlight-source-") || c.hasPrefix("highlight-text-") {
                language = String(c.split(separator: "-").last ?? "")
            }
        }
        return .codeBlock(info: language, code: code)
    }
}
