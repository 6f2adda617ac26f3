import Foundation
import XCTest

@testable import Pasteboard

final class TypeDeclarationParserTests: XCTestCase {
    static let recipeXML = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
            <key>UTExportedTypeDeclarations</key>
            <array>
                <dict>
                    <key>UTTypeIdentifier</key>
                    <string>com.example.recipe</string>
                    <key>UTTypeConformsTo</key>
                    <array><string>public.json</string></array>
                    <key>UTTypeDescription</key>
                    <string>Recipe</string>
                    <key>UTTypeTagSpecification</key>
                    <dict>
                        <key>public.filename-extension</key>
                        <array><string>recipe</string></array>
                        <key>public.mime-type</key>
                        <string>application/x-recipe</string>
                    </dict>
                </dict>
            </array>
        </dict>
        </plist>
        """

    func registry(with files: [(String, Data)]) -> (TypeRegistry, [TypeDeclarationProblem]) {
        var registry = TypeRegistry.standard
        var problems: [TypeDeclarationProblem] = []
        var results: [TypeDeclarationParser.Result] = []
        for (origin, data) in files {
            let result = TypeDeclarationParser.parse(data, origin: origin)
            problems += result.problems
            results.append(result)
        }
        problems += registry.declare(results)
        return (registry, problems)
    }

    func testXMLDeclarationJoinsTheRegistry() {
        let (registry, problems) = registry(with: [("/cfg/recipe.plist", Data(Self.recipeXML.utf8))])
        XCTAssertEqual(problems, [])
        let recipe = TypeIdentifier("com.example.recipe")
        XCTAssertEqual(registry.type(forFilenameExtension: "recipe"), recipe)
        XCTAssertEqual(registry.type(forFilenameExtension: ".RECIPE"), recipe)
        XCTAssertEqual(registry.type(forMIMEType: "application/x-recipe"), recipe)
        XCTAssertEqual(registry.type(forX11Target: "application/x-recipe"), recipe)
        XCTAssertTrue(registry.conforms(recipe, to: .json))
        XCTAssertTrue(registry.conforms(recipe, to: .text), "conformance flows through public.json")
        XCTAssertEqual(registry.textEncoding(of: recipe), .utf8)
        XCTAssertEqual(registry.preferredMIMEType(of: recipe), "application/x-recipe")
        XCTAssertEqual(registry.tags(of: recipe, .x11Target), ["application/x-recipe"])
        XCTAssertEqual(registry.declaration(for: recipe)?.origin, "/cfg/recipe.plist")
        XCTAssertEqual(registry.declaration(for: recipe)?.description, "Recipe")
        XCTAssertEqual(registry.resolve("recipe"), recipe)
    }

    func testBinaryPlistAndImportedDeclarations() throws {
        struct Spec: Encodable {
            var UTTypeIdentifier: String
            var UTTypeConformsTo: String
            var UTTypeTagSpecification: [String: [String]]
        }
        struct File: Encodable {
            var UTImportedTypeDeclarations: [Spec]
        }
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        let data = try encoder.encode(
            File(UTImportedTypeDeclarations: [
                Spec(
                    UTTypeIdentifier: "org.example.score", UTTypeConformsTo: "public.xml",
                    UTTypeTagSpecification: ["public.filename-extension": ["score", "sc"], "public.mime-type": ["text/x-score"]])
            ]))
        XCTAssertTrue(data.starts(with: Array("bplist00".utf8)))
        let (registry, problems) = registry(with: [("s.plist", data)])
        XCTAssertEqual(problems, [])
        XCTAssertEqual(registry.type(forFilenameExtension: "sc"), "org.example.score")
        XCTAssertTrue(registry.conforms("org.example.score", to: .text))
    }

    func testImportedDeclarationGivesWayToAnExportedOne() {
        let imported = Self.recipeXML.replacingOccurrences(of: "UTExportedTypeDeclarations", with: "UTImportedTypeDeclarations")
            .replacingOccurrences(of: "<string>Recipe</string>", with: "<string>Imported</string>")
        // The imported file comes first, yet the exported declaration wins.
        let (registry, problems) = registry(with: [
            ("a.plist", Data(imported.utf8)), ("b.plist", Data(Self.recipeXML.utf8)),
        ])
        XCTAssertEqual(problems, [])
        XCTAssertEqual(registry.declaration(for: "com.example.recipe")?.origin, "b.plist")
    }

    func testBuiltInTypesCannotBeRedeclared() {
        let hijack = Self.recipeXML.replacingOccurrences(of: "com.example.recipe", with: "public.html")
        let (registry, problems) = registry(with: [("evil.plist", Data(hijack.utf8))])
        XCTAssertEqual(problems.count, 1)
        XCTAssertEqual(problems.first?.origin, "evil.plist")
        XCTAssertTrue(problems.first?.message.contains("already declared (built-in)") ?? false)
        XCTAssertEqual(registry.type(forFilenameExtension: "html"), .html)
        XCTAssertEqual(registry.type(forFilenameExtension: "recipe").isDynamic, true)
    }

    func testBadDeclarationsAreReportedWithFileAndKeyAndTheRestKept() {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>UTExportedTypeDeclarations</key><array>
              <dict><key>UTTypeConformsTo</key><string>public.data</string></dict>
              <dict><key>UTTypeIdentifier</key><string>com.example.bad-conform</string>
                    <key>UTTypeConformsTo</key><integer>3</integer></dict>
              <dict><key>UTTypeIdentifier</key><string>not an identifier</string></dict>
              <dict><key>UTTypeIdentifier</key><string>com.example.bad-mime</string>
                    <key>UTTypeTagSpecification</key><dict><key>public.mime-type</key><string>nonsense</string></dict></dict>
              <dict><key>UTTypeIdentifier</key><string>com.example.bad-ext</string>
                    <key>UTTypeTagSpecification</key><dict><key>public.filename-extension</key><array><string>a b</string></array></dict></dict>
              <string>not a dictionary</string>
              <dict><key>UTTypeIdentifier</key><string>com.example.good</string>
                    <key>UTTypeConformsTo</key><string>public.plain-text</string>
                    <key>UTTypeTagSpecification</key><dict><key>public.filename-extension</key><string>good</string>
                    <key>com.apple.ostype</key><string>GOOD</string></dict></dict>
            </array></dict></plist>
            """
        let result = TypeDeclarationParser.parse(Data(xml.utf8), origin: "/etc/x.plist")
        XCTAssertEqual(result.exported.map(\.identifier), ["com.example.good"])
        XCTAssertEqual(
            result.problems.map(\.key),
            [
                "UTExportedTypeDeclarations[0].UTTypeIdentifier",
                "UTExportedTypeDeclarations[1].UTTypeConformsTo",
                "UTExportedTypeDeclarations[2].UTTypeIdentifier",
                "UTExportedTypeDeclarations[3].UTTypeTagSpecification.public.mime-type",
                "UTExportedTypeDeclarations[4].UTTypeTagSpecification.public.filename-extension",
                "UTExportedTypeDeclarations[5]",
            ])
        XCTAssertTrue(result.problems.allSatisfy { $0.origin == "/etc/x.plist" })
        XCTAssertTrue(result.problems[1].description.hasPrefix("/etc/x.plist: UTExportedTypeDeclarations[1].UTTypeConformsTo:"))
        XCTAssertTrue(result.problems[1].message.contains("com.example.bad-conform"))
    }

    func testFilesThatAreNotDeclarationsAreReported() {
        for (bytes, expected) in [
            (Data("not a plist".utf8), "not a property list"),
            (Data(#"<?xml version="1.0"?><plist version="1.0"><string>x</string></plist>"#.utf8), "dictionary"),
            (Data(#"<?xml version="1.0"?><plist version="1.0"><dict/></plist>"#.utf8), "neither"),
            (Data(#"<?xml version="1.0"?><plist version="1.0"><dict><key>UTExportedTypeDeclarations</key><string>x</string></dict></plist>"#.utf8), "array"),
            (Data(), "not a property list"),
        ] {
            let result = TypeDeclarationParser.parse(bytes, origin: "f.plist")
            XCTAssertTrue(result.exported.isEmpty)
            XCTAssertEqual(result.problems.count, 1)
            XCTAssertTrue(result.problems.first?.message.contains(expected) ?? false, "\(result.problems)")
        }
        let huge = Data(count: TypeDeclarationParser.maximumFileSize + 1)
        XCTAssertTrue(TypeDeclarationParser.parse(huge, origin: "h").problems.first?.message.contains("larger") ?? false)
    }

    func testConformanceCyclesBetweenDeclaredTypesDoNotHang() {
        let xml = """
            <?xml version="1.0"?><plist version="1.0"><array>
            <dict><key>UTTypeIdentifier</key><string>com.example.a</string><key>UTTypeConformsTo</key><string>com.example.b</string></dict>
            <dict><key>UTTypeIdentifier</key><string>com.example.b</string><key>UTTypeConformsTo</key><string>com.example.a</string></dict>
            </array></plist>
            """
        let (registry, problems) = registry(with: [("cycle.plist", Data(xml.utf8))])
        XCTAssertEqual(problems, [])
        XCTAssertTrue(registry.conforms("com.example.a", to: "com.example.b"))
        XCTAssertFalse(registry.conforms("com.example.a", to: .text))
    }

    func testDeeplyNestedOrDamagedPlistsDoNotCrash() {
        let deep = "<?xml version=\"1.0\"?><plist version=\"1.0\">" + String(repeating: "<array>", count: 20_000)
            + String(repeating: "</array>", count: 20_000) + "</plist>"
        let result = TypeDeclarationParser.parse(Data(deep.utf8), origin: "deep.plist")
        XCTAssertTrue(result.exported.isEmpty)
        XCTAssertFalse(result.problems.isEmpty)
        // A binary property list whose only object is an array holding itself.
        var cyclic = Array("bplist00".utf8) + [0xA1, 0x00] + [0x08]
        cyclic += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 0, 0, 0, 0, 10]
        let cycle = TypeDeclarationParser.parse(Data(cyclic), origin: "cycle.plist")
        XCTAssertTrue(cycle.problems.first?.message.contains("cycle") ?? false, "\(cycle.problems)")
        var generator = SystemRandomNumberGenerator()
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        let base = [UInt8]((try? encoder.encode(["UTExportedTypeDeclarations": [["UTTypeIdentifier": "com.example.x"]]])) ?? Data())
        for _ in 0..<3000 {
            var mutated = base
            for _ in 0..<3 { mutated[Int.random(in: 8..<mutated.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
            _ = TypeDeclarationParser.parse(Data(mutated), origin: "fuzz")
        }
    }
}
