import Foundation

/// One example of a CommonMark / GFM spec file (the format of cmark's spec_tests.py).
struct SpecExample {
    var number: Int
    var section: String
    var markdown: String
    var html: String
    var tag: String
}

enum SpecFile {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Specs")

    /// Parses a spec file: an example opens at a line of 32 backticks + " example" (+ tag),
    /// "." separates Markdown from HTML, 32 backticks close it; "→" stands for a tab; the last
    /// "#" heading names the section.
    static func load(_ name: String) throws -> [SpecExample] {
        let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        var out: [SpecExample] = []
        var section = ""
        var state = 0
        var md = ""
        var html = ""
        var tag = ""
        let fence = String(repeating: "`", count: 32)
        for sub in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(sub)
            switch state {
            case 0:
                if line.hasPrefix(fence + " example") {
                    state = 1
                    md = ""
                    html = ""
                    tag = String(line.dropFirst(fence.count + 8)).trimmingCharacters(in: .whitespaces)
                } else if line.hasPrefix("#") {
                    section = String(line.drop(while: { $0 == "#" })).trimmingCharacters(in: .whitespaces)
                }
            case 1:
                if line == "." { state = 2 } else { md += line + "\n" }
            default:
                if line == fence {
                    state = 0
                    out.append(
                        SpecExample(
                            number: out.count + 1, section: section,
                            markdown: md.replacingOccurrences(of: "→", with: "\t"),
                            html: html.replacingOccurrences(of: "→", with: "\t"), tag: tag))
                } else {
                    html += line + "\n"
                }
            }
        }
        return out
    }
}
