import Foundation
import Hummingbird
import Synchronization

/// Which methods each route path takes, read from the router once every
/// route is registered, so that a known path asked with another method gets
/// 405 with `Allow` (RFC 9110 15.5.6) instead of the router's 404.
final class AllowedMethods: Sendable {
    private let table = Mutex<[(template: [String], methods: [String])]>([])

    /// Fills the table from the router's own routes.
    func load<Context>(from router: Router<Context>) {
        var methods: [String: Set<String>] = [:]
        for route in router.routes { methods["\(route.path)", default: []].insert(route.method.rawValue) }
        let rows = methods.map { (template: $0.key.split(separator: "/").map(String.init), methods: $0.value.sorted()) }
        table.withLock { $0 = rows }
    }

    /// The methods `path` takes, or nil when no route has this path.
    func methods(for path: String) -> [String]? {
        let parts = path.split(separator: "/").map(String.init)
        return table.withLock { rows in
            rows.first { row in
                row.template.count == parts.count && zip(row.template, parts).allSatisfy { template, part in
                    template.hasPrefix(":") || template.hasPrefix("{") || template == part
                }
            }?.methods
        }
    }
}
