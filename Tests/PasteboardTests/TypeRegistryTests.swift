import XCTest

@testable import Pasteboard

final class TypeRegistryTests: XCTestCase {
    let registry = TypeRegistry.standard

    func testMarkdownConformsToPlainTextAndText() {
        XCTAssertTrue(registry.conforms(.markdown, to: .plainText))
        XCTAssertTrue(registry.conforms(.markdown, to: .text))
        XCTAssertTrue(registry.conforms(.markdown, to: .data))
        XCTAssertTrue(registry.conforms(.markdown, to: .item))
        XCTAssertFalse(registry.conforms(.markdown, to: .html))
        XCTAssertFalse(registry.conforms(.plainText, to: .markdown))
    }

    func testTextBundleConformances() {
        XCTAssertTrue(registry.conforms(.textBundle, to: .package))
        XCTAssertTrue(registry.conforms(.textBundle, to: .directory))
        XCTAssertTrue(registry.conforms(.textPack, to: .zipArchive))
        XCTAssertFalse(registry.conforms(.textBundle, to: .data))
    }

    func testSupertypesAreNearestFirstWithoutDuplicates() {
        let supertypes = registry.supertypes(of: .utf8PlainText)
        XCTAssertEqual(supertypes.first, .plainText)
        XCTAssertEqual(Set(supertypes).count, supertypes.count)
        XCTAssertTrue(supertypes.contains(.content))
        XCTAssertFalse(supertypes.contains(.utf8PlainText))
    }

    func testEveryBuiltInTypeReachesItem() {
        for declaration in registry.allDeclarations {
            XCTAssertTrue(registry.conforms(declaration.identifier, to: .item), "\(declaration.identifier)")
        }
    }

    func testTextEncodings() {
        XCTAssertEqual(registry.textEncoding(of: .utf8PlainText), .utf8)
        XCTAssertEqual(registry.textEncoding(of: .utf16PlainText), .utf16)
        XCTAssertEqual(registry.textEncoding(of: .markdown), .utf8)
        XCTAssertEqual(registry.textEncoding(of: .html), .utf8)
        XCTAssertNil(registry.textEncoding(of: .png))
        XCTAssertTrue(registry.isText(.rtf))
        XCTAssertFalse(registry.isText(.pdf))
    }

    func testExtensionLookUpIsCaseInsensitive() {
        XCTAssertEqual(registry.type(forFilenameExtension: "MD"), .markdown)
        XCTAssertEqual(registry.type(forFilenameExtension: ".Markdown"), .markdown)
        XCTAssertEqual(registry.type(forFilenameExtension: "JPG"), .jpeg)
        XCTAssertEqual(registry.type(forFilenameExtension: "textpack"), .textPack)
        XCTAssertEqual(registry.preferredFilenameExtension(of: .jpeg), "jpeg")
    }

    func testMIMELookUpHandlesCaseAndParameters() {
        XCTAssertEqual(registry.type(forMIMEType: "text/html"), .html)
        XCTAssertEqual(registry.type(forMIMEType: "Text/HTML; charset=UTF-8"), .html)
        XCTAssertEqual(registry.type(forMIMEType: "text/plain;charset=utf-8"), .utf8PlainText)
        XCTAssertEqual(registry.type(forMIMEType: "text/plain; charset=\"UTF-8\""), .utf8PlainText)
        XCTAssertEqual(registry.type(forMIMEType: "text/plain"), .plainText)
        XCTAssertEqual(registry.type(forMIMEType: "text/x-markdown"), .markdown)
        XCTAssertEqual(registry.type(forMIMEType: "application/rtf"), .rtf)
        XCTAssertEqual(registry.preferredMIMEType(of: .rtf), "text/rtf")
        XCTAssertEqual(registry.preferredMIMEType(of: .markdown), "text/markdown")
        // Every image type a copy offers, and the BMP names RDP clients, WSLg and older apps ask for.
        for (mime, type) in [("image/bmp", TypeIdentifier.bmp), ("image/x-bmp", .bmp), ("image/x-MS-bmp", .bmp), ("image/tiff", .tiff), ("image/webp", .webp)] {
            XCTAssertEqual(registry.type(forMIMEType: mime), type, mime)
        }
        XCTAssertEqual(registry.type(forX11Target: "image/x-MS-bmp"), .bmp)
        XCTAssertEqual(registry.preferredMIMEType(of: .bmp), "image/bmp")
        XCTAssertTrue(registry.conforms(.webp, to: .image))
    }

    func testX11TargetsBothWays() {
        XCTAssertEqual(registry.type(forX11Target: "UTF8_STRING"), .utf8PlainText)
        XCTAssertEqual(registry.type(forX11Target: "STRING"), .utf8PlainText)
        XCTAssertEqual(registry.type(forX11Target: "text/html"), .html)
        XCTAssertEqual(registry.type(forX11Target: "text/richtext"), .rtf)
        XCTAssertEqual(registry.type(forX11Target: "image/png"), .png)
        XCTAssertEqual(registry.type(forX11Target: "text/uri-list"), .fileURL)
        let plain = registry.tags(of: .utf8PlainText, .x11Target)
        for target in ["UTF8_STRING", "text/plain;charset=utf-8", "text/plain", "TEXT", "STRING"] {
            XCTAssertTrue(plain.contains(target), target)
        }
        XCTAssertEqual(registry.tags(of: .markdown, .x11Target), ["text/markdown", "text/x-markdown"])
        XCTAssertEqual(registry.tags(of: .rtf, .x11Target), ["text/rtf", "text/richtext", "application/rtf"])
    }

    func testUnknownMIMETypeGetsDynamicIdentifierThatRoundTrips() {
        let type = registry.type(forMIMEType: "application/x-Recipe+json")
        XCTAssertTrue(type.isDynamic)
        XCTAssertTrue(type.isWellFormed, type.rawValue)
        XCTAssertEqual(registry.preferredMIMEType(of: type), "application/x-recipe+json")
        XCTAssertEqual(registry.type(forMIMEType: "application/x-recipe+json"), type)
        XCTAssertTrue(registry.conforms(type, to: .data))
        XCTAssertFalse(registry.conforms(type, to: .text))
        XCTAssertNil(registry.preferredFilenameExtension(of: type))
    }

    func testUnknownX11TargetKeepsItsCase() {
        let type = registry.type(forX11Target: "_NETSCAPE_URL")
        XCTAssertTrue(type.isDynamic)
        XCTAssertEqual(registry.preferredTag(of: type, .x11Target), "_NETSCAPE_URL")
        let gnome = registry.type(forX11Target: "text/_moz_htmlcontext")
        XCTAssertEqual(registry.preferredTag(of: gnome, .x11Target), "text/_moz_htmlcontext")
        XCTAssertTrue(registry.conforms(gnome, to: .text))
    }

    func testUnknownExtensionRoundTrips() {
        let type = registry.type(forFilenameExtension: "Recipe")
        XCTAssertEqual(registry.preferredFilenameExtension(of: type), "recipe")
        XCTAssertEqual(registry.type(forFilenameExtension: "recipe"), type)
    }

    func testMalformedDynamicIdentifierHasNoTag() {
        XCTAssertNil(TypeRegistry.dynamicTag("dyn.mime.text-2"))
        XCTAssertNil(TypeRegistry.dynamicTag("dyn.other.x"))
        XCTAssertEqual(registry.tags(of: "dyn.mime.text-2", .mimeType), [])
    }

    func testResolveAcceptsIdentifiersMIMETypesTargetsAndExtensions() {
        XCTAssertEqual(registry.resolve("public.html"), .html)
        XCTAssertEqual(registry.resolve("PUBLIC.HTML"), .html)
        XCTAssertEqual(registry.resolve("text/html"), .html)
        XCTAssertEqual(registry.resolve("UTF8_STRING"), .utf8PlainText)
        XCTAssertEqual(registry.resolve("png"), .png)
        XCTAssertEqual(registry.resolve(".md"), .markdown)
        XCTAssertEqual(registry.resolve("com.example.thing"), "com.example.thing")
        XCTAssertNil(registry.resolve("nonsense"))
        XCTAssertNil(registry.resolve("   "))
    }

    func testDeclaredTypeJoinsTheGraph() {
        var custom = TypeRegistry.standard
        custom.declare(
            TypeDeclaration(
                "com.example.recipe", conformsTo: [.json], description: "Recipe", extensions: ["recipe"],
                mimeTypes: ["application/x-recipe"], origin: "test"))
        XCTAssertEqual(custom.type(forFilenameExtension: "recipe"), "com.example.recipe")
        XCTAssertEqual(custom.type(forMIMEType: "application/x-recipe"), "com.example.recipe")
        XCTAssertTrue(custom.conforms("com.example.recipe", to: .text))
        XCTAssertEqual(custom.textEncoding(of: "com.example.recipe"), .utf8)
    }

    func testIdentifiersCompareCaseInsensitively() {
        XCTAssertEqual(TypeIdentifier("Public.UTF8-Plain-Text"), .utf8PlainText)
        XCTAssertFalse(TypeIdentifier("public.html extra").isWellFormed)
    }
}
