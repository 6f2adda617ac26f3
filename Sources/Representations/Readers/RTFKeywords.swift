/// The control words the RTF reader handles, by family: ``RTFParser`` dispatches a control word on its
/// family, and each family has a method of its own (in `RTFParser+….swift`). Control words with the same
/// effect share a case (`\sect` and `\page` end a paragraph as `\par` does).
extension RTFParser {
    enum Keyword {
        /// `\rtf`, the document's character set and default font (RTFParser+Fonts).
        case document(Document)
        /// `\ucN`, `\uN` (RTFParser+Text).
        case unicode(UnicodeControl)
        /// The font table and `\fN` (RTFParser+Fonts).
        case font(Font)
        /// The style sheet, paragraph and character styles (RTFParser+Formatting).
        case style(Style)
        /// Bold, italic, underline, strike, size, super/subscript, hidden (RTFParser+Formatting).
        case character(CharacterFormat)
        /// Paragraph ends and paragraph properties (RTFParser+Paragraphs).
        case paragraph(ParagraphFormat)
        /// Table rows and cells, nested tables (RTFParser+Tables).
        case table(Table)
        /// List tables, list paragraphs, Word 95 numbering (RTFParser+Lists).
        case list(List)
        /// Fields: HYPERLINK (RTFParser+Fields).
        case field(Field)
        /// Pictures (RTFParser+Pictures).
        case picture(Picture)
        /// Footnotes (RTFParser+Footnotes).
        case footnote(Footnote)
        /// A control word that stands for one character (`\emdash`, `\ldblquote`…) (RTFParser+Text).
        case symbol(Unicode.Scalar)
        /// Destinations skipped whole, and `\ud` (RTFParser).
        case destination(DestinationControl)

        enum Document { case rtf, ansi, mac, pc, pca, ansicpg, deff }
        enum UnicodeControl { case uc, u }
        enum Font { case fonttbl, f, fcharset, cpg, fmodern, fnil }
        enum Style { case stylesheet, s, cs, outlinelevel }
        enum CharacterFormat { case b, i, ul, ulnone, strike, plain, fs, superscript, `subscript`, nosupersub, up, dn, v, caps }
        enum ParagraphFormat { case pard, par, line, tab, li, fi, brdrb, ql, qr, qc, qj }
        enum Table { case intbl, itap, cell, nestcell, nestrow, row, trowd, trhdr, nesttableprops }
        enum List {
            case ls, ilvl, listtable, listoverridetable, list, listlevel, listid, levelnfc, levelstartat, listoverride
            /// `\leveltext`: the label a list level shows, its numbers as placeholders.
            case leveltext
            /// `\listtext` and `\pntext`: the marker text of a list paragraph.
            case listtext
            case pn, pnlvl, pnlvlblt, pnlvlbody, pnlvlcont, pnstart
            /// `\pndec`, `\pnucrm`, `\pnlcrm`, `\pnucltr`, `\pnlcltr`: a numbered Word 95 list.
            case pnNumbered, pnucrm, pnlcrm, pnucltr, pnlcltr
        }
        enum Field { case field, fldinst, fldrslt }
        enum Picture { case pict, pngblip, jpegblip, otherBlip, shppict, nonshppict }
        enum Footnote { case footnote, chftn }
        enum DestinationControl { case skip, ud }
    }

    /// Control-word hash → keyword, as an open-addressing table indexed by the FNV hash itself: a look-up per
    /// control word costs a few loads instead of hashing the key again through `Hasher`.
    struct KeywordTable: Sendable {
        private var keys: [UInt64]
        private var values: [Keyword]
        private let mask: Int

        init(_ names: [String: Keyword]) {
            var size = 16
            while size < names.count * 4 { size <<= 1 }
            mask = size - 1
            keys = Array(repeating: 0, count: size)
            values = Array(repeating: .document(.rtf), count: size)
            for (name, keyword) in names {
                let key = RTFParser.hash(name.utf8)
                var k = Self.slot(key, mask)
                while keys[k] != 0 && keys[k] != key { k = (k + 1) & mask }
                keys[k] = key
                values[k] = keyword
            }
        }

        @inline(__always) private static func slot(_ key: UInt64, _ mask: Int) -> Int {
            Int(truncatingIfNeeded: key ^ (key >> 32)) & mask
        }

        @inline(__always) subscript(_ key: UInt64) -> Keyword? {
            guard key != 0 else { return nil }
            var k = Self.slot(key, mask)
            while true {
                let stored = keys[k]
                if stored == key { return values[k] }
                if stored == 0 { return nil }
                k = (k + 1) & mask
            }
        }
    }


    static let keywords = KeywordTable(keywordNames)
}

private let keywordNames: [String: RTFParser.Keyword] = {
    var k: [String: RTFParser.Keyword] = [
        // document
        "rtf": .document(.rtf), "ansi": .document(.ansi), "mac": .document(.mac), "pc": .document(.pc),
        "pca": .document(.pca), "ansicpg": .document(.ansicpg), "deff": .document(.deff),
        "uc": .unicode(.uc), "u": .unicode(.u),
        // fonts
        "fonttbl": .font(.fonttbl), "f": .font(.f), "fcharset": .font(.fcharset), "cpg": .font(.cpg),
        "fmodern": .font(.fmodern), "fnil": .font(.fnil), "froman": .font(.fnil), "fswiss": .font(.fnil),
        "fscript": .font(.fnil), "fdecor": .font(.fnil), "ftech": .font(.fnil), "fbidi": .font(.fnil),
        // styles
        "stylesheet": .style(.stylesheet), "s": .style(.s), "cs": .style(.cs), "outlinelevel": .style(.outlinelevel),
        // character formatting
        "b": .character(.b), "i": .character(.i), "ul": .character(.ul), "ulnone": .character(.ulnone),
        "strike": .character(.strike), "striked": .character(.strike), "plain": .character(.plain),
        "fs": .character(.fs), "super": .character(.superscript), "sub": .character(.subscript),
        "nosupersub": .character(.nosupersub), "up": .character(.up), "dn": .character(.dn), "v": .character(.v),
        "caps": .character(.caps),
        // paragraphs
        "pard": .paragraph(.pard), "par": .paragraph(.par), "sect": .paragraph(.par), "page": .paragraph(.par),
        "line": .paragraph(.line), "tab": .paragraph(.tab), "li": .paragraph(.li), "fi": .paragraph(.fi),
        "brdrb": .paragraph(.brdrb), "ql": .paragraph(.ql), "qr": .paragraph(.qr), "qc": .paragraph(.qc),
        "qj": .paragraph(.qj),
        // tables
        "intbl": .table(.intbl), "itap": .table(.itap), "cell": .table(.cell), "nestcell": .table(.nestcell),
        "nestrow": .table(.nestrow), "row": .table(.row), "trowd": .table(.trowd), "trhdr": .table(.trhdr),
        "nesttableprops": .table(.nesttableprops),
        // lists
        "ls": .list(.ls), "ilvl": .list(.ilvl), "listtable": .list(.listtable),
        "listoverridetable": .list(.listoverridetable), "list": .list(.list), "listlevel": .list(.listlevel),
        "listid": .list(.listid), "levelnfc": .list(.levelnfc), "levelstartat": .list(.levelstartat),
        "listoverride": .list(.listoverride), "leveltext": .list(.leveltext), "listtext": .list(.listtext), "pntext": .list(.listtext),
        "pn": .list(.pn), "pnlvl": .list(.pnlvl), "pnlvlblt": .list(.pnlvlblt), "pnlvlbody": .list(.pnlvlbody),
        "pnlvlcont": .list(.pnlvlcont), "pnstart": .list(.pnstart), "pndec": .list(.pnNumbered),
        "pnucrm": .list(.pnucrm), "pnlcrm": .list(.pnlcrm), "pnucltr": .list(.pnucltr),
        "pnlcltr": .list(.pnlcltr),
        // fields
        "field": .field(.field), "fldinst": .field(.fldinst), "fldrslt": .field(.fldrslt),
        // pictures
        "pict": .picture(.pict), "pngblip": .picture(.pngblip), "jpegblip": .picture(.jpegblip),
        "emfblip": .picture(.otherBlip), "wmetafile": .picture(.otherBlip), "macpict": .picture(.otherBlip),
        "dibitmap": .picture(.otherBlip), "wbitmap": .picture(.otherBlip), "pmmetafile": .picture(.otherBlip),
        "shppict": .picture(.shppict), "nonshppict": .picture(.nonshppict),
        // footnotes
        "footnote": .footnote(.footnote), "chftn": .footnote(.chftn),
        // symbols
        "emdash": .symbol("\u{2014}"), "endash": .symbol("\u{2013}"), "lquote": .symbol("\u{2018}"),
        "rquote": .symbol("\u{2019}"), "ldblquote": .symbol("\u{201C}"), "rdblquote": .symbol("\u{201D}"),
        "bullet": .symbol("\u{2022}"), "emspace": .symbol("\u{2003}"), "enspace": .symbol("\u{2002}"),
        "qmspace": .symbol("\u{2005}"), "zwj": .symbol("\u{200D}"), "zwnj": .symbol("\u{200C}"),
        // destinations skipped whole
        "colortbl": .destination(.skip), "upr": .destination(.skip), "htmltag": .destination(.skip),
        "mhtmltag": .destination(.skip), "ud": .destination(.ud),
    ]
    for u in ["uld", "uldb", "ulw", "ulwave", "ulth", "uldash", "uldashd", "uldashdd", "ulhwave", "ulldash",
        "ulthd", "ulthdash", "ulthdashd", "ulthdashdd", "ulthldash", "ululdbwave", "uldbwave"]
    {
        k[u] = .character(.ul)
    }
    // Destinations whose content is never document text.
    for d in ["info", "header", "headerl", "headerr", "headerf", "footer", "footerl", "footerr", "footerf", "ftnsep",
        "ftnsepc", "aftnsep", "aftnsepc", "object", "objdata", "xe", "tc", "txe", "private", "generator",
        "themedata", "colorschememapping", "datastore", "latentstyles", "pgdsctbl", "rsidtbl", "listpicture",
        "filetbl", "revtbl", "userprops", "docvar", "nonesttables", "bkmkstart", "bkmkend", "fldtype", "comment",
        "annotation", "atnid", "atnauthor", "xmlnstbl", "mmathPr", "wgrffmtfilter", "pnseclvl", "expandedcolortbl",
        "listname", "author", "operator", "title", "subject", "keywords", "doccomm", "company", "category",
        "hlinkbase", "template", "printim", "creatim", "revtim", "buptim", "password", "falt", "panose",
        "fontemb", "fontfile", "levelnumbers", "background", "shpinst", "sp", "sn", "sv",
        "passwordhash", "protusertbl", "ftncn", "aftncn", "aftnsepc", "blipuid"]
    {
        k[d] = .destination(.skip)
    }
    return k
}()
