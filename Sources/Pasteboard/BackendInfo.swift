#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a backend says about itself for `pbctl info`: its name (`store`, `x11`, `osc52`, …) and a
/// detail such as the store's folder or the display.
public struct BackendInfo: Sendable, Equatable, Codable {
    public var name: String
    public var detail: String?
    /// Where copies also go, when a backend mirrors another (the terminal beside the store).
    public var mirror: String?

    public init(name: String, detail: String? = nil, mirror: String? = nil) {
        self.name = name
        self.detail = detail
        self.mirror = mirror
    }
}
