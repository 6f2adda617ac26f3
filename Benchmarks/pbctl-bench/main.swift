// pbctl-bench: in-process benchmarks for the Markdown engine (used by scripts/bench.sh).
//
//   pbctl-bench throughput FILE [--commonmark] [--iterations N]
//       parse + render FILE N times (MarkdownParser.renderHTML with the HTML taken in chunks, what
//       `pbctl convert` does); parse only
//       (MarkdownParser.parse, the document with its nodes); parse + render through the nodes; prints:
//       "throughput <bytes> <median seconds> <MB/s> <parse-only median s> <nodes> <parse + render through the nodes, median s>"
//   pbctl-bench small FILE... [--commonmark] [--tree] [--iterations N]
//       each FILE (1–10 KB documents) parsed + rendered N times (with --tree through the nodes); prints one line:
//       "small <docs> <total bytes> <median µs per document> <MB/s> <p90 µs>"
//   pbctl-bench allocations FILE... [--commonmark] [--tree]
//       each FILE parsed and rendered once (with --tree through the nodes) after a warm-up pass (which pays one-time set-up such as the
//       entity table); prints one line with the heap allocations that pass made (malloc, calloc, realloc,
//       aligned allocations, counted by CBenchAlloc):
//       "allocations <docs> <total bytes> <allocations> <allocations per KB>"
//   pbctl-bench convert FILE [--commonmark] [--tree]
//       writes the HTML to stdout (a stand-in for `pbctl convert` when comparing outputs): straight from
//       Markdown to HTML as `pbctl convert` does, or with --tree through the document's nodes
//       (MarkdownParser.parse, then HTMLWriter.render).
//   pbctl-bench richtext INPUT.md RTF_OUT HTML_OUT
//       the rich-text conversions of scripts/bench-richtext.sh: writes the RTF and HTML it converts from (so
//       external tools read the same bytes), then prints one tab-separated line per measurement: name,
//       input bytes, best seconds of 5 runs, a checksum bit.
//   pbctl-bench image-convert IN OUT [--quality Q]
//       reads the image IN, converts it (ImageCodec.convert) to the format OUT's extension names
//       (png, jpg, gif, bmp, tif, webp) and writes OUT: a whole process, as `convert IN OUT` is.
//   pbctl-bench image-stages IN [--iterations N]
//       decodes IN and encodes the result as JPEG and as BMP N times; prints one line:
//       "image-stages <decode median s> <JPEG encode median s> <BMP encode median s>"
//
// Times are wall-clock (ContinuousClock) medians; MB = 10^6 bytes.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import CBenchAlloc
import Images
import Markdown
import Representations

func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    bytes.withUnsafeBufferPointer { p in
        var off = 0
        while off < p.count {
            let n = write(fd, p.baseAddress! + off, p.count - off)
            if n <= 0 { return }
            off += n
        }
    }
}

func warn(_ s: String) { writeAll(2, Array(s.utf8)) }

func readFile(_ path: String) -> [UInt8] {
    guard let f = fopen(path, "rb") else {
        warn("pbctl-bench: cannot open \(path)\n")
        exit(2)
    }
    defer { fclose(f) }
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = fread(&buf, 1, buf.count, f)
        if n <= 0 { break }
        out.append(contentsOf: buf[0..<n])
    }
    return out
}

func seconds(_ d: Duration) -> Double {
    let c = d.components
    return Double(c.seconds) + Double(c.attoseconds) / 1e18
}

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    guard !s.isEmpty else { return 0 }
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

func percentile(_ xs: [Double], _ p: Double) -> Double {
    let s = xs.sorted()
    guard !s.isEmpty else { return 0 }
    return s[min(s.count - 1, Int(Double(s.count - 1) * p + 0.5))]
}

/// A whole file into Data, read once into its final buffer.
func readData(_ path: String) -> Data {
    guard let f = fopen(path, "rb") else {
        warn("pbctl-bench: cannot open \(path)\n")
        exit(2)
    }
    defer { fclose(f) }
    fseek(f, 0, SEEK_END)
    let size = ftell(f)
    fseek(f, 0, SEEK_SET)
    var data = Data(count: max(0, size))
    let read = data.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
    guard read == data.count else {
        warn("pbctl-bench: short read of \(path)\n")
        exit(2)
    }
    return data
}

var args = Array(CommandLine.arguments.dropFirst())
guard let mode = args.first else {
    print("usage: pbctl-bench throughput FILE | small FILE... | convert FILE  [--commonmark] [--iterations N]")
    exit(0)
}
args.removeFirst()
var options = MarkdownOptions.gfm
var tree = false
var iterations = 0
var quality = 90
var files: [String] = []
var i = 0
while i < args.count {
    switch args[i] {
    case "--commonmark": options = .commonmark
    case "--tree": tree = true
    case "--iterations":
        i += 1
        iterations = i < args.count ? Int(args[i]) ?? 0 : 0
    case "--quality":
        i += 1
        quality = i < args.count ? Int(args[i]) ?? 90 : 90
    default: files.append(args[i])
    }
    i += 1
}
let clock = ContinuousClock()
var sink = 0

/// Markdown to HTML the way the mode asks: straight (what `pbctl convert` does) or through the nodes.
func html(_ input: [UInt8], _ options: MarkdownOptions, tree: Bool) -> [UInt8] {
    tree
        ? HTMLWriter.render(MarkdownParser.parse(input, options: options), options: options)
        : MarkdownParser.renderHTML(input, options: options)
}

switch mode {
case "image-convert":
    guard files.count == 2 else {
        warn("usage: pbctl-bench image-convert IN OUT [--quality Q]\n")
        exit(2)
    }
    let suffix = files[1].split(separator: ".").last.map { String($0).lowercased() } ?? ""
    let names = ["jpg": "jpeg", "tif": "tiff"]
    guard let format = ImageFormat(rawValue: names[suffix] ?? suffix) else {
        warn("pbctl-bench: no image format for .\(suffix)\n")
        exit(2)
    }
    do {
        let output = try ImageCodec.convert(readData(files[0]), to: format, quality: quality)
        guard let f = fopen(files[1], "wb") else {
            warn("pbctl-bench: cannot write \(files[1])\n")
            exit(1)
        }
        let written = output.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
        guard fclose(f) == 0, written == output.count else {
            warn("pbctl-bench: cannot write \(files[1])\n")
            exit(1)
        }
    } catch {
        warn("pbctl-bench: \(files[0]): \(error)\n")
        exit(1)
    }
case "richtext":
    guard files.count == 3 else {
        warn("usage: pbctl-bench richtext INPUT.md RTF_OUT HTML_OUT\n")
        exit(2)
    }
    let md = readFile(files[0])
    let document = MarkdownParser.parse(md, options: .gfm)
    let rtf = RTFWriter.render(document)
    let htmlBytes = HTMLWriter.render(document, options: .gfm)
    for (path, bytes) in [(files[1], rtf), (files[2], htmlBytes)] {
        guard let f = fopen(path, "wb") else {
            warn("pbctl-bench: cannot write \(path)\n")
            exit(1)
        }
        let written = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, f) }
        guard fclose(f) == 0, written == bytes.count else { exit(1) }
    }
    func measure(_ name: String, _ size: Int, _ body: () throws -> Int) rethrows {
        var best = Double.infinity
        var check = 0
        for _ in 0..<5 {
            let t0 = clock.now
            check &+= try body()
            best = min(best, seconds(clock.now - t0))
        }
        print("\(name)\t\(size)\t\(best)\t\(check & 1)")
    }
    do {
        try measure("md-rtf", md.count) { try Conversion.convert(md, from: .gfm, to: .rtf).count }
        try measure("rtf-md", rtf.count) { try Conversion.convert(rtf, from: .rtf, to: .gfm).count }
        try measure("html-md", htmlBytes.count) { try Conversion.convert(htmlBytes, from: .html, to: .gfm).count }
        try measure("md-html", md.count) { try Conversion.convert(md, from: .gfm, to: .html).count }
        try measure("md-md", md.count) { try Conversion.convert(md, from: .gfm, to: .gfm).count }
        try measure("md-text", md.count) { try Conversion.convert(md, from: .gfm, to: .text).count }
        measure("rtf-write", md.count) { RTFWriter.render(document).count }
        try measure("rtf-read", rtf.count) { try Conversion.read(rtf, from: .rtf).nodeCount }
        try measure("html-read", htmlBytes.count) { try Conversion.read(htmlBytes, from: .html).nodeCount }
        try measure("html-read-keep", htmlBytes.count) { try Conversion.read(htmlBytes, from: .html, keepRawHTML: true).nodeCount }
    } catch {
        warn("pbctl-bench: \(error)\n")
        exit(1)
    }
case "image-stages":
    guard let f = files.first else { exit(2) }
    let input = readData(f)
    let n = iterations > 0 ? iterations : 7
    var decode: [Double] = [], jpeg: [Double] = [], bmp: [Double] = []
    for _ in 0..<n {
        let t0 = clock.now
        guard let image = try? ImageCodec.decode(input) else { exit(1) }
        let t1 = clock.now
        sink &+= (try? ImageCodec.encode(image, as: .jpeg, quality: quality))?.count ?? 0
        let t2 = clock.now
        sink &+= (try? ImageCodec.encode(image, as: .bmp))?.count ?? 0
        let t3 = clock.now
        decode.append(seconds(t1 - t0))
        jpeg.append(seconds(t2 - t1))
        bmp.append(seconds(t3 - t2))
    }
    print("image-stages \(median(decode)) \(median(jpeg)) \(median(bmp))")
case "convert":
    guard let f = files.first else { exit(2) }
    let input = readFile(f)
    if tree {
        writeAll(1, HTMLWriter.render(MarkdownParser.parse(input, options: options), options: options))
    } else {
        input.withUnsafeBufferPointer { MarkdownParser.renderHTML($0, options: options) { writeAll(1, Array($0)) } }
    }
case "allocations":
    let docs = files.map(readFile)
    guard !docs.isEmpty else { exit(2) }
    let bytes = docs.reduce(0) { $0 + $1.count }
    for d in docs { sink &+= html(d, options, tree: tree).count }
    let before = cbench_allocation_count()
    for d in docs { sink &+= html(d, options, tree: tree).count }
    let count = cbench_allocation_count() - before
    print("allocations \(docs.count) \(bytes) \(count) \(Double(count) / (Double(bytes) / 1000))")
case "throughput":
    guard let f = files.first else { exit(2) }
    let input = readFile(f)
    let n = iterations > 0 ? iterations : 7
    // warm-up
    sink &+= MarkdownParser.renderHTML(input, options: options).count
    var total: [Double] = []
    var parseOnly: [Double] = []
    var throughNodes: [Double] = []
    var nodes = 0
    for _ in 0..<n {
        // As `pbctl convert` does: the HTML handed over in chunks as it is made (here only counted).
        var written = 0
        let t0 = clock.now
        input.withUnsafeBufferPointer { MarkdownParser.renderHTML($0, options: options) { written &+= $0.count } }
        let t1 = clock.now
        sink &+= written
        total.append(seconds(t1 - t0))
    }
    for _ in 0..<n {
        var doc = MarkdownDocument()
        let t0 = clock.now
        doc = MarkdownParser.parse(input, options: options)
        let t1 = clock.now
        let html = HTMLWriter.render(doc, options: options)
        let t2 = clock.now
        sink &+= html.count
        nodes = doc.nodeCount
        parseOnly.append(seconds(t1 - t0))
        throughNodes.append(seconds(t2 - t0))
    }
    let med = median(total)
    print(
        "throughput \(input.count) \(med) \(Double(input.count) / med / 1e6) \(median(parseOnly)) \(nodes) \(median(throughNodes))")
case "small":
    let docs = files.map(readFile)
    guard !docs.isEmpty else { exit(2) }
    let n = iterations > 0 ? iterations : 200
    let bytes = docs.reduce(0) { $0 + $1.count }
    for d in docs { sink &+= html(d, options, tree: tree).count }
    var perDoc: [Double] = []
    perDoc.reserveCapacity(n * docs.count)
    let start = clock.now
    for _ in 0..<n {
        for d in docs {
            let t0 = clock.now
            let output = html(d, options, tree: tree)
            let t1 = clock.now
            sink &+= output.count
            perDoc.append(seconds(t1 - t0))
        }
    }
    let elapsed = seconds(clock.now - start)
    let mbps = Double(bytes * n) / elapsed / 1e6
    print("small \(docs.count) \(bytes) \(median(perDoc) * 1e6) \(mbps) \(percentile(perDoc, 0.9) * 1e6)")
default:
    warn("pbctl-bench: unknown mode \(mode)\n")
    exit(2)
}
if sink == 42 { warn("") }
