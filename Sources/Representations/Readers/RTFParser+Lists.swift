// RTF lists: the list and list-override tables, `\lsN`/`\ilvlN` list paragraphs, their `\listtext` markers,
// and Word 95 numbering (`\pn…`).

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
            if state.destination == .listTable { currentListLevels.append((nfc: 0, start: 1)) }
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
