import Documents

extension Context {
    /// How HTML made from a Markdown copy carries its local images (`PBCTL_HTML_IMAGES`: `data`, the
    /// default, or `files`), for every way in that assembles a copy.
    var htmlImages: HTMLImages {
        HTMLImages(rawValue: environment["PBCTL_HTML_IMAGES"]?.lowercased() ?? "") ?? .data
    }
}
