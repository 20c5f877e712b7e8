import Hummingbird

/// A request's context: Hummingbird's core, plus the client the bearer
/// token named (set by `ClientTokenMiddleware`).
public struct HubRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public var client: ClientTokens.Client?

    public init(source: Source) {
        coreContext = .init(source: source)
    }
}
