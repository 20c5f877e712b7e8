import Foundation
import HKIDHub
import Hummingbird
import Testing
import Yams

/// docs/hub-openapi.yaml against the router hkid-hub serves: every route
/// (method and path) is documented, and every documented operation is
/// served, so the file cannot drift from the code.
@Suite struct OpenAPIRoutesTests {
    static let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]

    /// "METHOD /path" for every operation under `paths:` (not `webhooks:`,
    /// which the hub sends rather than serves).
    static func documented() throws -> Set<String> {
        let path = ChildProcess.repository.appendingPathComponent("docs/hub-openapi.yaml").path
        let document = try #require(try Yams.load(yaml: String(contentsOfFile: path, encoding: .utf8)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: Any], "no paths: in \(path)")
        var operations: Set<String> = []
        for (route, item) in paths {
            let item = try #require(item as? [String: Any], "\(route)")
            for key in item.keys where methods.contains(key) { operations.insert("\(key.uppercased()) \(route)") }
        }
        return operations
    }

    /// "METHOD /path" for every route of the hub's router, captures written
    /// `{name}` as in OpenAPI.
    static func served() throws -> Set<String> {
        let folder = NSTemporaryDirectory() + "hkid-openapi-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let router = HubServer.makeRouter(store: try SQLiteJobStore(folder: folder),
                                          configuration: HubConfiguration(tokenFile: "/dev/null"), tokens: ClientTokens([]))
        return Set(router.routes.map { "\($0.method.rawValue) \($0.path.description)" })
    }

    @Test func everyServedRouteIsDocumentedAndEveryDocumentedOneServed() throws {
        let documented = try Self.documented(), served = try Self.served()
        #expect(served.subtracting(documented).sorted() == [], "served but not in docs/hub-openapi.yaml")
        #expect(documented.subtracting(served).sorted() == [], "in docs/hub-openapi.yaml but not served")
        // Not two empty sets agreeing: the routes the API is known to have.
        #expect(served.isSuperset(of: ["POST /v1/checks", "GET /v1/checks/{id}/bundle", "GET /healthz"]), "\(served.sorted())")
    }
}
