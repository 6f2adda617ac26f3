// RTF lists: the list and list-override tables, `\lsN`/`\ilvlN` list paragraphs, their `\listtext` markers,
// and Word 95 numbering (`\pn…`).

/// A level of a list in the list table: its number format, first number and label.
struct RTFListLevel {
    /// Longest `\leveltext` kept: a length character and up to 255 more (the format's own bound).
    static let maxLevelText = 256

    /// `\levelnfcN`: 0 decimal, 1/2 upper/lower roman, 3/4 upper/lower letter, 23 bullet, 255 no number.
    var nfc = 0
    var start = 1
    /// `\leveltext` as read: a length character, then the label, each number a placeholder character whose
    /// value is the level it numbers (U+0000 … U+0008). Nil when the level has none.
    var levelText: [Unicode.Scalar]? = nil

    /// Whether the level shows a label at all. LibreOffice puts every heading in its outline list, whose
    /// levels show nothing (`\levelnfc255`, a label that is only the level's own number, or none): such a
    /// level is no list item. A number shows unless its level's format is a bullet or none (Word and
    /// LibreOffice write a bullet level's character as text, not as a number).
    func showsLabel(_ levels: [RTFListLevel]) -> Bool {
        guard let label = levelText else { return nfc != 23 && nfc != 255 }
        guard let length = label.first?.value else { return false }
        for scalar in label.dropFirst().prefix(Int(length)) {
            if scalar.value < 9 {
                let numbered = Int(scalar.value) < levels.count ? levels[Int(scalar.value)].nfc : nfc
                if numbered != 23 && numbered != 255 { return true }
            } else if !scalar.properties.isWhitespace {
                return true
            }
        }
        return false
    }
}

extension RTFParser {
    @inline(__always)
    mutating func listWord(_ word: Keyword.List, _ p: Int?) {
        switch word {
        case .ls:
            if state.destination == .listOverrideTable { listOverrides[p ?? 0] = currentOverrideList } else { state.list = p ?? 0 }
        case .ilvl: state.level = max(0, min(p ?? 0, 8))
        case .listtable: state.destination = .listTable
        case .listoverridetable: state.destination = .listOverrideTable
        case .list:
            if state.destination == .listTable {
                currentListID = 0
                currentListLevels = []
            }
        case .listlevel:
            if state.destination == .listTable { currentListLevels.append(RTFListLevel()) }
        case .levelnfc:
            if state.destination == .listTable, !currentListLevels.isEmpty {
                currentListLevels[currentListLevels.count - 1].nfc = p ?? 0
            }
        case .levelstartat:
            if state.destination == .listTable, !currentListLevels.isEmpty {
                currentListLevels[currentListLevels.count - 1].start = p ?? 1
            }
        case .listid:
            if state.destination == .listTable {
                currentListID = p ?? 0
                listLevels[currentListID] = currentListLevels
            } else if state.destination == .listOverrideTable {
                currentOverrideList = p ?? 0
            }
        case .listoverride: break
        case .leveltext:
            // Read only in the list table (a `\lfolevel` of the override table restates levels: not read).
            if state.destination == .listTable {
                state.destination = .levelText
                levelText = []
            } else {
                state.destination = .skip
            }
        case .listtext:
            state.destination = .listText
            markerText = ""
        case .pn: state.destination = .legacyNumbering
        case .pnlvl: state.legacyLevel = p
        case .pnlvlblt: state.legacyLevel = 10
        case .pnlvlbody: state.legacyLevel = 11
        case .pnlvlcont: break
        case .pnstart: state.legacyStart = p
        case .pnNumbered, .pnucrm, .pnlcrm, .pnucltr, .pnlcltr:
            if state.legacyLevel == nil || state.legacyLevel == 10 { state.legacyLevel = 11 }
            switch word {
            case .pnucrm: state.legacyStyle = .upperRoman
            case .pnlcrm: state.legacyStyle = .lowerRoman
            case .pnucltr: state.legacyStyle = .upperAlpha
            case .pnlcltr: state.legacyStyle = .lowerAlpha
            default: state.legacyStyle = .decimal
            }
        }
    }
}
