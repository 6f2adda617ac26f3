extension TypeRegistry {
    /// The MIME types UTF-8 plain text is offered under where a clipboard speaks MIME (Wayland), preferred
    /// first: the Wayland owner's and what the wl-paste personality lists for text held elsewhere.
    public static let plainTextMIMETypes = ["text/plain;charset=utf-8", "UTF8_STRING", "text/plain", "STRING", "TEXT"]
    /// The names Latin-1 text (``TypeIdentifier/latin1PlainText``) is offered under where a clipboard speaks
    /// MIME: its own, then wl-copy's generic text names that promise no UTF-8 (STRING is Latin-1).
    public static let latin1TextMIMETypes = ["text/plain;charset=iso-8859-1", "text/plain", "STRING", "TEXT"]

    /// The built-in types, after Apple's UTType declarations, with the MIME types and X11 targets
    /// that Linux applications use. The first tag of each class is the preferred one.
    static let standardDeclarations: [TypeDeclaration] = [
        TypeDeclaration(.item, conformsTo: [], description: "item"),
        TypeDeclaration(.content, conformsTo: [.item], description: "content"),
        TypeDeclaration(.data, conformsTo: [.item], description: "data", mimeTypes: ["application/octet-stream"]),
        TypeDeclaration(.text, conformsTo: [.data, .content], description: "text"),
        TypeDeclaration(
            .plainText, conformsTo: [.text], description: "plain text",
            extensions: ["txt", "text"], mimeTypes: ["text/plain"],
            x11Targets: ["text/plain"]),
        TypeDeclaration(
            .utf8PlainText, conformsTo: [.plainText], description: "UTF-8 plain text",
            mimeTypes: ["text/plain;charset=utf-8"],
            x11Targets: ["UTF8_STRING", "text/plain;charset=utf-8", "STRING", "TEXT", "COMPOUND_TEXT", "text/plain"],
            textEncoding: .utf8),
        TypeDeclaration(
            .utf16PlainText, conformsTo: [.plainText], description: "UTF-16 plain text",
            mimeTypes: ["text/plain;charset=utf-16"], x11Targets: ["text/plain;charset=utf-16"],
            textEncoding: .utf16),
        TypeDeclaration(
            .rtf, conformsTo: [.text], description: "rich text (RTF)", extensions: ["rtf"],
            mimeTypes: ["text/rtf", "application/rtf", "text/richtext"],
            x11Targets: ["text/rtf", "text/richtext", "application/rtf"]),
        TypeDeclaration(
            .html, conformsTo: [.text], description: "HTML", extensions: ["html", "htm", "xhtml"],
            mimeTypes: ["text/html", "application/xhtml+xml"], x11Targets: ["text/html"]),
        TypeDeclaration(
            .xml, conformsTo: [.text], description: "XML", extensions: ["xml"],
            mimeTypes: ["application/xml", "text/xml"], x11Targets: ["application/xml", "text/xml"]),
        TypeDeclaration(
            .json, conformsTo: [.text], description: "JSON", extensions: ["json"],
            mimeTypes: ["application/json"], x11Targets: ["application/json"]),
        TypeDeclaration(
            .markdown, conformsTo: [.plainText], description: "Markdown",
            extensions: ["md", "markdown", "mdown", "mkd", "mkdn"],
            mimeTypes: ["text/markdown", "text/x-markdown"], x11Targets: ["text/markdown", "text/x-markdown"]),
        TypeDeclaration(.url, conformsTo: [.data], description: "URL", mimeTypes: ["text/x-moz-url"]),
        TypeDeclaration(
            .fileURL, conformsTo: [.url], description: "file URL list (RFC 2483)", mimeTypes: ["text/uri-list"],
            x11Targets: ["text/uri-list"]),
        TypeDeclaration(
            .gnomeCopiedFiles, conformsTo: [.data], description: "copied or cut files (GNOME, Nemo, Caja)",
            mimeTypes: ["x-special/gnome-copied-files"], x11Targets: ["x-special/gnome-copied-files"]),
        TypeDeclaration(
            .kdeCutSelection, conformsTo: [.data], description: "files cut, not copied (KDE)",
            mimeTypes: ["application/x-kde-cutselection"], x11Targets: ["application/x-kde-cutselection"]),
        TypeDeclaration(.image, conformsTo: [.data, .content], description: "image"),
        TypeDeclaration(
            .png, conformsTo: [.image], description: "PNG image", extensions: ["png"], mimeTypes: ["image/png"],
            x11Targets: ["image/png"]),
        TypeDeclaration(
            .jpeg, conformsTo: [.image], description: "JPEG image", extensions: ["jpeg", "jpg", "jpe"],
            mimeTypes: ["image/jpeg", "image/jpg"], x11Targets: ["image/jpeg"]),
        TypeDeclaration(
            .gif, conformsTo: [.image], description: "GIF image", extensions: ["gif"], mimeTypes: ["image/gif"],
            x11Targets: ["image/gif"]),
        TypeDeclaration(
            .bmp, conformsTo: [.image], description: "BMP image", extensions: ["bmp", "dib"],
            mimeTypes: ["image/bmp", "image/x-bmp", "image/x-ms-bmp"], x11Targets: ["image/bmp", "image/x-bmp", "image/x-MS-bmp"]),
        TypeDeclaration(
            .tiff, conformsTo: [.image], description: "TIFF image", extensions: ["tiff", "tif"], mimeTypes: ["image/tiff"],
            x11Targets: ["image/tiff"]),
        TypeDeclaration(
            .webp, conformsTo: [.image], description: "WebP image", extensions: ["webp"], mimeTypes: ["image/webp"],
            x11Targets: ["image/webp"]),
        TypeDeclaration(
            .svg, conformsTo: [.image, .xml], description: "SVG image", extensions: ["svg"],
            mimeTypes: ["image/svg+xml"], x11Targets: ["image/svg+xml"]),
        TypeDeclaration(
            .pdf, conformsTo: [.data, .content], description: "PDF document", extensions: ["pdf"],
            mimeTypes: ["application/pdf"], x11Targets: ["application/pdf"]),
        TypeDeclaration(.directory, conformsTo: [.item], description: "folder"),
        TypeDeclaration(.package, conformsTo: [.directory], description: "package"),
        TypeDeclaration(
            .zipArchive, conformsTo: [.data], description: "ZIP archive", extensions: ["zip"],
            mimeTypes: ["application/zip"], x11Targets: ["application/zip"]),
        TypeDeclaration(
            .textBundle, conformsTo: [.package], description: "TextBundle", extensions: ["textbundle"],
            mimeTypes: ["application/x-textbundle"]),
        TypeDeclaration(
            .textPack, conformsTo: [.zipArchive], description: "TextBundle (compressed)", extensions: ["textpack"],
            mimeTypes: ["application/x-textpack"], x11Targets: ["application/x-textpack"]),
        // nspasteboard.org markers and KDE's password-manager hint: flags, never content.
        TypeDeclaration(
            .concealed, conformsTo: [.data], description: "concealed marker",
            x11Targets: ["org.nspasteboard.ConcealedType"]),
        TypeDeclaration(
            .transient, conformsTo: [.data], description: "transient marker",
            x11Targets: ["org.nspasteboard.TransientType"]),
        TypeDeclaration(
            .autoGenerated, conformsTo: [.data], description: "auto-generated marker",
            x11Targets: ["org.nspasteboard.AutoGeneratedType"]),
        TypeDeclaration(
            .source, conformsTo: [.data], description: "source application",
            x11Targets: ["org.nspasteboard.source"]),
        TypeDeclaration(
            "org.kde.password-manager-hint", conformsTo: [.data], description: "KDE password-manager hint",
            mimeTypes: ["x-kde-passwordmanagerhint"], x11Targets: ["x-kde-passwordManagerHint"]),
        // Declared last: the tags it shares (STRING, TEXT, text/plain) keep naming the types above.
        TypeDeclaration(
            .latin1PlainText, conformsTo: [.plainText], description: "Latin-1 plain text",
            mimeTypes: ["text/plain;charset=iso-8859-1", "text/plain"],
            x11Targets: ["STRING", "TEXT", "text/plain"],
            textEncoding: .latin1),
    ]
}
