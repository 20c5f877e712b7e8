import Foundation
import HKIDStation
import Hummingbird
import Logging
import Testing

/// docs/station-openapi.yaml and the router must list the same routes;
/// the API tests check every status they see is documented for its route.
@Suite struct OpenAPITests {
    @Test func everyRouteIsDocumentedAndViceVersa() throws {
        var configuration = StationConfiguration()
        configuration.dataDirectory = StationProcess.temporaryDirectory()
        configuration.source = .testPattern
        // The station is built but never started: no camera runs.
        let station = try Station(configuration: configuration, logger: Logger(label: "test"))
        let router = StationServer.makeRouter(station: station, token: nil)
        let registered = Set(router.routes.map { route -> String in
            let path = "\(route.path)".split(separator: "/").map { piece -> String in
                piece.hasPrefix(":") ? "{\(piece.dropFirst())}" : String(piece)
            }.joined(separator: "/")
            return "\(route.method) /\(path)"
        })
        let documented = Set(OpenAPIDocument.shared.operations.keys)
        #expect(!documented.isEmpty, "docs/station-openapi.yaml has no operations")
        #expect(registered.subtracting(documented).isEmpty,
                "routes missing from docs/station-openapi.yaml: \(registered.subtracting(documented).sorted())")
        #expect(documented.subtracting(registered).isEmpty,
                "documented operations the server lacks: \(documented.subtracting(registered).sorted())")
    }

    @Test func everyOperationDocumentsItsErrors() {
        for (operation, codes) in OpenAPIDocument.shared.operations {
            #expect(codes.contains { $0.hasPrefix("2") }, "\(operation) documents no success")
            if operation.contains("{id}") {
                #expect(codes.isSuperset(of: ["400", "404"]), "\(operation) must document 400 (bad id) and 404")
            }
            if operation != "GET /healthz" {
                #expect(codes.contains("401"), "\(operation) must document 401 (token)")
            }
        }
    }
}
