import XCTest

@testable import History
@testable import PasteboardStore

/// The linear-time engine of `pbctl history search --regex`: its syntax, grep's per-line view of a text,
/// its errors, and a step count that stays linear on the patterns that stall a backtracking engine.
final class LineRegexTests: XCTestCase {
    func matches(_ pattern: String, _ text: String, caseInsensitive: Bool = false,
                 file: StaticString = #filePath, line: UInt = #line) -> Bool {
        do {
            let regex = try LineRegex(pattern, caseInsensitive: caseInsensitive)
            let answer = regex.matches(text)
            XCTAssertEqual(regex.matches(Array(text.utf8)), answer, "the UTF-8 entry point disagrees on /\(pattern)/", file: file, line: line)
            return answer
        } catch {
            XCTFail("/\(pattern)/ refused: \(error)", file: file, line: line)
            return false
        }
    }

    func check(_ cases: [(String, String, Bool)], caseInsensitive: Bool = false, file: StaticString = #filePath, line: UInt = #line) {
        for (pattern, text, expected) in cases {
            XCTAssertEqual(matches(pattern, text, caseInsensitive: caseInsensitive, file: file, line: line), expected,
                           "/\(pattern)/ on \(text.debugDescription)", file: file, line: line)
        }
    }

    func refusal(_ pattern: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            _ = try LineRegex(pattern)
            XCTFail("/\(pattern.prefix(60))/ was accepted", file: file, line: line)
            return ""
        } catch let error as LineRegex.Error {
            XCTAssertFalse(error.message.contains("\n"), file: file, line: line)
            XCTAssertEqual(error.description, error.message, file: file, line: line)
            return error.message
        } catch {
            XCTFail("not a LineRegex.Error: \(error)", file: file, line: line)
            return ""
        }
    }

    // MARK: Syntax

    func testLiteralsAndDot() {
        check([
            ("abc", "xxabcxx", true), ("abc", "ab c", false), ("", "anything", true), ("", "", true), ("a", "", false),
            ("a.c", "abc", true), ("a.c", "ac", false), ("a.c", "a\u{1F600}c", true), ("é", "café", true),
            ("e", "cafe\u{301}", true),  // scalars, not characters: the e before a combining accent
            ("}", "}", true), ("]", "a]", true), ("a{", "a{", true), ("a{x", "a{x", true), ("{}", "{}", true),
        ])
    }

    func testBracketExpressions() {
        check([
            ("[abc]", "xbx", true), ("[abc]", "xyz", false), ("[^a-z]", "abc", false), ("[^a-z]", "abC", true),
            ("[]a]", "]", true), ("[]a]", "a", true), ("[]a]", "b", false), ("[^]a]", "]a", false), ("[^]a]", "]a!", true),
            ("[a-]", "-", true), ("[-a]", "-", true), ("[a-c-]", "-", true), ("[a\\]", "\\", true),
            ("[\\d]", "d", true), ("[\\d]", "5", false),  // a backslash is itself in brackets, as in POSIX
            ("[.]", "a", false), ("[.]", ".", true), ("[*+?{}()|^$]", "|", true), ("[[]", "[", true),
            ("[à-ï]", "é", true), ("[à-ï]", "ò", false), ("[[=é=]]", "é", true), ("[[.-.]a]", "-", true),
            ("^[[.a.]-[.c.]]+$", "abc", true), ("[[:alpha:]-]", "-", true),
        ])
    }

    func testPOSIXClasses() {
        check([
            ("[[:alpha:]]", "é", true), ("[[:alpha:]]", "1", false), ("[[:digit:]]", "7", true), ("[[:digit:]]", "٣", false),
            ("[[:space:]]", "a b", true), ("[[:space:]]", "a\u{A0}b", false), ("[[:upper:]]", "É", true),
            ("[[:upper:]]", "é", false), ("[[:lower:]]", "é", true), ("[[:lower:]]", "A", false),
            ("[[:alnum:]]", "_", false), ("[[:alnum:]]", "x", true), ("[[:punct:]]", "!", true), ("[[:punct:]]", "a", false),
            ("[[:xdigit:]]", "F", true), ("[[:xdigit:]]", "g", false), ("[[:blank:]]", "a\tb", true), ("[[:blank:]]", "ab", false),
            ("[[:cntrl:]]", "\u{1B}", true), ("[[:cntrl:]]", "a", false), ("[[:print:]]", " ", true), ("[[:print:]]", "\u{7F}", false),
            ("[[:graph:]]", " ", false), ("[[:graph:]]", "~", true), ("[^[:alpha:][:digit:]]", "a1", false),
            ("[^[:alpha:][:digit:]]", "a1!", true), ("[[:digit:]a-c]", "b", true),
        ])
    }

    func testQuantifiers() {
        check([
            ("^ab*c$", "ac", true), ("^ab*c$", "abbbc", true), ("^ab+c$", "ac", false), ("^ab+c$", "abbc", true),
            ("^ab?c$", "abbc", false), ("^ab?c$", "ac", true), ("^a{3}$", "aaa", true), ("^a{3}$", "aaaa", false),
            ("^a{2,}$", "a", false), ("^a{2,}$", "aaaaaaa", true), ("^a{2,4}$", "aaaaa", false), ("^a{2,4}$", "aaa", true),
            ("^a{,2}$", "", true), ("^a{,2}$", "aaa", false), ("^a{0}b$", "b", true), ("^a{0,0}b$", "ab", false),
            ("^a{1}b$", "ab", true), ("^a{0,}$", "aaa", true), ("^a{1,}$", "", false), ("^a{0,1}$", "aa", false),
            ("^(ab){2}$", "abab", true), ("^(ab){2}$", "ab", false), ("^(a|bc){2,3}$", "abca", true),
            ("^(a|bc){2,3}$", "abcabc", false), ("^(a{2}){2}$", "aaaa", true), ("^(a{2}){2}$", "aaa", false),
            ("^[0-9]{3}-[0-9]{4}$", "555-1234", true), ("^((a*)*)*$", "aaa", true), ("^(a*)+b$", "b", true),
            ("^a**$", "aaa", true), ("^a+*$", "", true), ("^a?+$", "", true), ("^a{2}*$", "aaa", false),
            ("^a{2}*$", "aaaa", true), ("^a{2}{3}$", "aaaaaa", true), ("^a{2}{3}$", "aaaa", false), ("^(){5}x$", "x", true),
        ])
    }

    func testLazyQuantifiersMatchAsGreedyOnes() {
        check([
            ("^a*?$", "aaa", true), ("^a+?b$", "aab", true), ("^a+?b$", "b", false), ("^a??b$", "ab", true),
            ("^a{2,3}?$", "aaa", true), ("^a{2}?b$", "b", false), ("x.*?y", "x--y", true),
        ])
    }

    func testAlternationAndGroups() {
        check([
            ("cat|dog", "a dog", true), ("cat|dog", "a cow", false), ("^(cat|dog)$", "dog", true), ("^(cat|dog)$", "dogs", false),
            ("^(?:cat|dog)s$", "cats", true), ("^(a|b|c|d)+$", "abcdcba", true), ("^(a|b|c|d)+$", "abcde", false),
            ("^(|a)b$", "b", true), ("^(a|)b$", "ab", true), ("a||b", "x", true), ("()", "x", true), ("^((a)(b))$", "ab", true),
            ("^(a(b(c(d))))$", "abcd", true), ("^x(a|b)*y$", "xababbay", true),
        ])
    }

    func testEscapes() {
        check([
            ("a\\.b", "a.b", true), ("a\\.b", "axb", false), ("\\\\", "a\\b", true), ("\\(\\)", "()", true), ("\\[x\\]", "[x]", true),
            ("\\*\\+\\?\\{\\}\\|\\^\\$", "*+?{}|^$", true), ("\\d+", "abc123", true), ("\\d", "abc", false), ("\\d", "٣", false),
            ("^\\D+$", "abc", true), ("^\\D+$", "ab1", false), ("\\w", "é", true), ("^\\w+$", "a_1", true), ("\\W", "a_1", false),
            ("\\W", "a b", true), ("\\s", "a\tb", true), ("\\s", "ab", false), ("^\\S+$", "ab", true), ("^\\S+$", "a b", false),
            ("a\\tb", "a\tb", true), ("a\\nb", "a\nb", true), ("a\\rb", "a\rb", true), ("a\\fb\\vc", "a\u{0C}b\u{0B}c", true),
            ("\\bfoo\\b", "a foo.", true), ("\\bfoo\\b", "afoo", false), ("\\Boo\\B", "fool", true), ("\\Bfoo", "foo", false),
            ("\\<foo", "x foo", true), ("\\<oo", "foo", false), ("foo\\>", "foo bar", true), ("fo\\>", "foo", false),
            ("\\bé", "x é", true), ("\\`a", "a\na", true), ("\\`b", "a\nb", false), ("a\\'", "a\nb", false), ("b\\'", "a\nb", true),
            ("\\-\\ \\é", "- é", true),
        ])
    }

    // MARK: Semantics

    func testAnchorsWorkPerLineAsGrepDoes() {
        XCTAssertTrue(matches("^n 1050$", "x\nn 1050\n"))
        check([
            ("^n 1050$", "x\nn 10500\n", false), ("^b", "a\nb", true), ("a$", "a\nb", true), ("^a$", "ba\nab", false),
            ("^$", "a\n\nb", true), ("^$", "a\nb", false), ("^$", "", true), ("^$", "a\n", false),  // as for grep, no line follows the last \n
            ("^$", "a\n\n", true), ("^$", "\n", true), ("^a?$", "\r\n", true), ("^\\s*$", "a\r\n", false),
            ("\\B", "c\n", false), ("\\B", "c\nc", false), ("a\\n^$", "a\n", true),
            ("x$", "x\r\n", true), ("x$", "x\ry", false), ("^y", "x\r\ny", true), ("^a|b$", "xa\nbx", false),
            ("(^|,)b", "a,b", true), ("(^|,)b", "ab", false), ("a(x|$)", "a\nb", true),
        ])
    }

    func testOnlyTheNewlineEscapeMatchesALineFeed() {
        check([
            ("a.b", "a\nb", false), ("a[^x]b", "a\nb", false), ("a\\sb", "a\nb", false), ("a[[:space:]]b", "a\nb", false),
            ("a\\Wb", "a\nb", false), ("a\\Db", "a\nb", false), ("a.*b", "a\nb", false), ("a\\nb", "a\nb", true),
            ("a\nb", "a\nb", true), ("a.b", "a\rb", true),
        ])
    }

    func testCaseInsensitive() {
        check([
            ("hello", "HeLLo", true), ("HELLO", "hello", true), ("[a-z]+", "ABC", true), ("[A-Z]", "q", true),
            ("[^a]", "A", false), ("[^a]", "B", true), ("é", "É", true), ("[é]", "É", true), ("σ", "Σς", true), ("ς", "Σ", true),
            ("k", "\u{212A}", true), ("[[:upper:]]", "q", true), ("[[:lower:]]", "Q", true), ("ǆ", "ǅ", true),
            ("straße", "STRASSE", false), ("\\W", "A", false), ("ı", "i", false),
        ], caseInsensitive: true)
        XCTAssertFalse(matches("hello", "HELLO"))
        XCTAssertFalse(matches("[a-z]", "Q"))
    }

    func testBytesAreReadAsUTF8WithReplacementCharacters() throws {
        let regex = try LineRegex("a\u{FFFD}b")
        XCTAssertTrue(regex.matches([0x61, 0xFF, 0x62] as [UInt8]))
        XCTAssertTrue(try LineRegex("^caf.$").matches(Array("café".utf8)))
        XCTAssertTrue(try LineRegex("é$").matches(Array("café".utf8)[...]))
        XCTAssertFalse(try LineRegex("x").matches([UInt8]()))
        XCTAssertTrue(try LineRegex("^n 1050$").matches(Array("x\nn 1050\n".utf8).lazy.map { $0 }))  // not contiguous
    }

    /// Expected answers from `grep -E` (GNU grep 3.8, C.UTF-8), run by hand on each pair (the third value is
    /// `-i`); the test does not run grep. grep reads the text line by line, this engine the whole text.
    func testAgreesWithGrep() {
        let table: [(String, String, Bool, Bool)] = [
        ("abc", "xabcx", false, true),
        ("abc", "abx", false, false),
        ("a.c", "abc", false, true),
        ("a.c", "a\nc", false, false),
        ("^abc", "x\nabc", false, true),
        ("abc$", "abc\nx", false, true),
        ("^n 1050$", "x\nn 1050\n", false, true),
        ("^$", "a\n\nb", false, true),
        ("^$", "a\nb", false, false),
        ("colou?r", "color", false, true),
        ("colou?r", "colouur", false, false),
        ("ab+c", "ac", false, false),
        ("ab*c", "ac", false, true),
        ("a{3}", "aa", false, false),
        ("a{3}", "baaab", false, true),
        ("^a{2,3}$", "aaaa", false, false),
        ("^a{2,}$", "aaaaa", false, true),
        ("^a{,2}b", "aab", false, true),
        ("x{2,3}y", "xy", false, false),
        ("cat|dog", "hotdog", false, true),
        ("^(cat|dog)s?$", "cats", false, true),
        ("^(ab|cd)+$", "abcdab", false, true),
        ("^(ab|cd)+$", "abcda", false, false),
        ("[abc]", "xyzb", false, true),
        ("[^abc]", "abc", false, false),
        ("[a-z]+[0-9]", "abc7", false, true),
        ("[]a]", "]", false, true),
        ("[^]a]", "a", false, false),
        ("[a-]", "-", false, true),
        ("[[:alpha:]]", "é", false, true),
        ("[[:digit:]]", "٣", false, false),
        ("[[:alnum:]]", "٣", false, true),
        ("^[[:space:]]+$", "\t \t", false, true),
        ("[[:upper:]][[:lower:]]", "aB", false, false),
        ("[[:upper:]][[:lower:]]", "Ab", false, true),
        ("[[:punct:]]", "€", false, true),
        ("^[[:xdigit:]]+$", "c0ffee", false, true),
        ("[[:blank:]]", "a\u{3000}b", false, true),
        ("[[:cntrl:]]", "a\u{07}b", false, true),
        ("^[[:print:]]+$", "ab c", false, true),
        ("[[:graph:]]", "   ", false, false),
        ("\\bfoo\\b", "a foo.", false, true),
        ("\\bfoo\\b", "afoo", false, false),
        ("\\Boo", "foo", false, true),
        ("\\<foo\\>", "x foo", false, true),
        ("\\<oo", "foo", false, false),
        ("\\w+@\\w+", "me@host", false, true),
        ("\\W", "abc_1", false, false),
        ("^\\s*$", "  \t", false, true),
        ("\\S", "  ", false, false),
        ("a\\.b", "axb", false, false),
        ("a\\.b", "a.b", false, true),
        ("\\(x\\)", "(x)", false, true),
        ("(a|)+b", "b", false, true),
        ("()", "x", false, true),
        ("é+", "ééé", false, true),
        ("(a*)*b", "aaaa", false, false),
        ("a|b|c", "xxc", false, true),
        ("[[=e=]]", "e", false, true),
        ("[[.-.]]", "-", false, true),
        ("a{0}b", "b", false, true),
        ("(x+x+)+y", "xxxxy", false, true),
        ("[^x]b", "a\nb", false, false),
        ("HELLO", "hello world", true, true),
        ("[A-Z]", "q", true, true),
        ("[^a]", "A", true, false),
        ("é", "É", true, true),
        ("ς", "Σ", true, true),
        ("^straße$", "STRASSE", true, false),
        ("[[:lower:]]", "Q", true, true),
        ]
        XCTAssertGreaterThanOrEqual(table.count, 40)
        for (pattern, text, caseInsensitive, grep) in table {
            XCTAssertEqual(matches(pattern, text, caseInsensitive: caseInsensitive), grep,
                           "/\(pattern)/\(caseInsensitive ? "i" : "") on \(text.debugDescription): grep -E says \(grep)")
        }
    }

    // MARK: Linear time

    /// Steps, not seconds: each instruction joins the threads of a position once, so the work is at most
    /// (2 × program size + 1) per position, whatever the pattern.
    func assertLinear(_ pattern: String, _ text: String, expected: Bool, file: StaticString = #filePath, line: UInt = #line) throws {
        let regex = try LineRegex(pattern)
        let (matched, steps) = regex.matchSteps(text)
        XCTAssertEqual(matched, expected, "/\(pattern)/", file: file, line: line)
        let n = text.unicodeScalars.count
        XCTAssertLessThanOrEqual(steps, (n + 1) * (2 * regex.programSize + 1), "/\(pattern)/: \(steps) steps", file: file, line: line)
        if !matched { XCTAssertGreaterThan(steps, n, "every scalar was read", file: file, line: line) }
    }

    func testPathologicalPatternsTakeLinearSteps() throws {
        let a = String(repeating: "a", count: 10_000)
        try assertLinear("(a*)*b", a, expected: false)
        try assertLinear("(a|a)*b", a, expected: false)
        try assertLinear("(a+)+$", a + "!", expected: false)  // false: $ is at the end of the line, after the !
        try assertLinear("(a+)+$", a, expected: true)
        try assertLinear("(x+x+)+y", String(repeating: "x", count: 10_000), expected: false)
        try assertLinear("^(a|aa)+$", a + "b", expected: false)
        try assertLinear("(.*a){20}", a, expected: true)
        try assertLinear("(a?){30}a{30}", String(repeating: "a", count: 29), expected: false)
        try assertLinear("(\\w+\\s?)+$", String(repeating: "word ", count: 2000) + "!", expected: false)
        // The 24 a's that took 19 s with the backtracking engine.
        try assertLinear("(a*)*b", String(repeating: "a", count: 24), expected: false)
    }

    func testStepsGrowLinearlyWithTheText() throws {
        let regex = try LineRegex("(a*)*b")
        let small = regex.matchSteps(String(repeating: "a", count: 1_000)).steps
        let large = regex.matchSteps(String(repeating: "a", count: 10_000)).steps
        XCTAssertLessThanOrEqual(large, 11 * small)
    }

    func testTheLargestProgramStaysLinear() throws {
        let regex = try LineRegex("(a|b){1,999}c")
        XCTAssertLessThanOrEqual(regex.programSize, LineRegex.maximumProgramSize)
        let text = String(repeating: "ab", count: 500)
        let (matched, steps) = regex.matchSteps(text)
        XCTAssertFalse(matched)
        XCTAssertLessThanOrEqual(steps, (text.count + 1) * (2 * regex.programSize + 1))
    }

    // MARK: Errors

    func testRefusesUnbalancedGroupsAndBrackets() {
        XCTAssertEqual(refusal("abc(de"), "unmatched ( at offset 3")
        XCTAssertEqual(refusal("(a(b)"), "unmatched ( at offset 0")
        XCTAssertEqual(refusal("ab)"), "unmatched ) at offset 2")
        XCTAssertEqual(refusal("x[abc"), "unmatched [ at offset 1")
        XCTAssertEqual(refusal("[]"), "unmatched [ at offset 0")
        XCTAssertEqual(refusal("[^]"), "unmatched [ at offset 0")
        XCTAssertEqual(refusal("[[:alpha:"), "unmatched [: at offset 1")
        XCTAssertEqual(refusal("[[:nope:]]"), "unknown character class [:nope:] at offset 1")
        XCTAssertEqual(refusal("[z-a]"), "invalid range z-a at offset 1: its end is before its start")
        XCTAssert(refusal("[a-c-e]").hasPrefix("invalid range at offset 4"))
        XCTAssert(refusal("[[:alpha:]-z]").hasPrefix("invalid range"))
        XCTAssert(refusal("[[.ab.]]").hasPrefix("unsupported collating element [.ab.]"))
        XCTAssert(refusal("(?i)a").hasPrefix("unsupported group (? at offset 0"))
        XCTAssert(refusal("(?=a)").hasPrefix("unsupported group"))
    }

    func testRefusesBadIntervals() {
        XCTAssertEqual(refusal("a{1"), "malformed interval at offset 1: expected {m}, {m,}, {,n} or {m,n}")
        XCTAssert(refusal("a{1,x}").hasPrefix("malformed interval at offset 1"))
        XCTAssert(refusal("a{,").hasPrefix("malformed interval"))
        XCTAssertEqual(refusal("a{3,2}"), "invalid interval at offset 1: {3,2} has its minimum above its maximum")
        XCTAssertEqual(refusal("a{1001}"), "repetition count 1001 at offset 1 is above the limit of 1000")
        XCTAssert(refusal("a{2,99999999999999999999}").hasPrefix("repetition count"))
        XCTAssertEqual(refusal("{2}"), "{ at offset 0 has nothing to repeat")
    }

    func testRefusesQuantifiersWithNothingToRepeat() {
        XCTAssertEqual(refusal("*a"), "* at offset 0 has nothing to repeat")
        XCTAssertEqual(refusal("a|+b"), "+ at offset 2 has nothing to repeat")
        XCTAssertEqual(refusal("(?a)"), "unsupported group (? at offset 0: only (?:…) is understood")
        XCTAssertEqual(refusal("^*"), "* at offset 1 has nothing to repeat")
        XCTAssertEqual(refusal("\\b+"), "+ at offset 2 has nothing to repeat")
        XCTAssertEqual(refusal("(?:?)"), "? at offset 3 has nothing to repeat")
    }

    func testRefusesBackReferencesAndUnknownEscapes() {
        XCTAssertEqual(refusal("(a)\\1"), "back-reference \\1 at offset 3 is not supported: it cannot be matched in linear time")
        XCTAssert(refusal("\\9").hasPrefix("back-reference \\9"))
        XCTAssertEqual(refusal("a\\q"), "unknown escape \\q at offset 1")
        XCTAssertEqual(refusal("\\0"), "unknown escape \\0 at offset 0")
        XCTAssertEqual(refusal("ab\\"), "trailing \\ at offset 2")
    }

    func testRefusesPatternsTooLarge() {
        let tooLarge = "pattern too large: it compiles to more than 20000 instructions"
        XCTAssert(refusal("a{1000}{1000}").hasPrefix(tooLarge))
        XCTAssert(refusal("((a{1000}){1000}){1000}").hasPrefix(tooLarge))
        XCTAssert(refusal("(a|b|c|d){1000}(e|f|g|h){1000}").hasPrefix(tooLarge))
        XCTAssert(refusal(String(repeating: "a", count: 20_000)).hasPrefix(tooLarge))
        XCTAssert(refusal(String(repeating: "a|", count: 7_000)).hasPrefix(tooLarge))
        XCTAssert(refusal("x" + String(repeating: "{2}", count: 100)).hasPrefix(tooLarge))
        XCTAssert(refusal(String(repeating: "(x{1000}{19}){0}", count: 100)).hasPrefix("pattern too large: its repetitions write more than 1000000 instructions"))
        XCTAssertNoThrow(try LineRegex(String(repeating: "a", count: 19_999)))
        XCTAssertNoThrow(try LineRegex("a{1000}"))
    }

    func testRefusesDeepNestingWithoutRecursing() {
        let deep = String(repeating: "(", count: 100_000) + "a" + String(repeating: ")", count: 100_000)
        XCTAssertEqual(refusal(deep), "groups nested deeper than 1000 at offset 1000")
        let allowed = String(repeating: "(", count: 1_000) + "a" + String(repeating: ")", count: 1_000)
        XCTAssertTrue(matches(allowed, "xa"))
        XCTAssertTrue(matches(String(repeating: "(?:", count: 1_000) + String(repeating: ")*", count: 1_000), ""))
        XCTAssertEqual(refusal(String(repeating: ")", count: 100_000)), "unmatched ) at offset 0")
        XCTAssertEqual(refusal(String(repeating: "[", count: 100_000)), "unmatched [ at offset 0")
    }

    func testARepeatedClassIsTriedOnce() throws {
        let regex = try LineRegex("[" + String(repeating: "[:alpha:]", count: 100_000) + "]")
        XCTAssertEqual(regex.sets.map(\.classes.count), [1])
        XCTAssertTrue(regex.matches("é"))
    }

    func testStackedQuantifiersDoNotMultiplyTheWork() throws {
        // Each of these would copy the whole program once per quantifier if stacking were done naively.
        let big = "(" + String(repeating: "a", count: 15_000) + ")"
        XCTAssertNoThrow(try LineRegex(big + String(repeating: "*", count: 100_000)))
        XCTAssertNoThrow(try LineRegex(big + String(repeating: "{1}", count: 100_000)))
        XCTAssertNoThrow(try LineRegex(big + String(repeating: "+?", count: 50_000)))
        XCTAssertNoThrow(try LineRegex(big + String(repeating: "{0}*", count: 50_000)))
        XCTAssertNoThrow(try LineRegex(String(repeating: "()*", count: 100_000)))
    }

    /// The lazy DFA a history search runs answers as the NFA does: random patterns over a small
    /// alphabet, with and without assertions, against random texts (UTF-8 errors and line feeds among
    /// them), one scanner carried over many texts as a search carries it.
    func testTheScannerAgreesWithTheMachine() throws {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        let atoms = ["a", "b", "é", ".", "[ab]", "[^a]", "\\d", "(a|b)", "(ab)*", "x?", "[[:alpha:]]", "\\n", "^", "$", "\\b", "a{2,3}"]
        let quantifiers = ["", "", "*", "+", "?"]
        let textBytes: [[UInt8]] = [Array("a".utf8), Array("b".utf8), Array("é".utf8), Array("1".utf8), Array("\n".utf8), [0xFF], [0xE2, 0x82], Array("x".utf8), Array(" ".utf8)]
        var checked = 0
        for _ in 0..<300 {
            var pattern = ""
            for _ in 0..<(1 + next(4)) { pattern += atoms[next(atoms.count)] + quantifiers[next(quantifiers.count)] }
            guard let regex = try? LineRegex(pattern, caseInsensitive: next(2) == 1) else { continue }
            let scanner = LineRegex.Scanner(regex)
            for _ in 0..<20 {
                var text: [UInt8] = []
                for _ in 0..<next(12) { text += textBytes[next(textBytes.count)] }
                let expected = regex.matches(text)
                XCTAssertEqual(text.withUnsafeBytes { scanner.matches($0) }, expected, "\(pattern) on \(text)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 3000)
    }
}
