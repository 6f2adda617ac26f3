/// Entry points for the rich-text benchmark's stage timings (`scripts/bench-richtext.sh`).
enum RTFBenchHook {
    static func parse(_ bytes: [UInt8]) -> Int {
        var parser = RTFParser(bytes)
        parser.run()
        return parser.items.count
    }
}

enum HTMLBenchHook {
    static func tree(_ bytes: [UInt8]) -> Int {
        HTMLTreeBuilder.parse(HTMLReader.fragment(HTMLReader.decode(bytes))).children.count
    }
}
