import Foundation
import Yams

/// docs/station-openapi.yaml, read for the tests: which operations exist and
/// which status codes each documents.
struct OpenAPIDocument {
    /// "GET /v1/sessions/{id}" → ["200", "400", ...]
    let operations: [String: Set<String>]

    static let shared: OpenAPIDocument = {
        let path = StationProcess.repository.appendingPathComponent("docs/station-openapi.yaml").path
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let root = (try? Yams.load(yaml: text)) as? [String: Any] ?? [:]
        var operations: [String: Set<String>] = [:]
        for (path, item) in root["paths"] as? [String: Any] ?? [:] {
            for (method, operation) in item as? [String: Any] ?? [:] where method != "parameters" {
                let responses = (operation as? [String: Any])?["responses"] as? [String: Any] ?? [:]
                operations["\(method.uppercased()) \(path)"] = Set(responses.keys.map { "\($0)" })
            }
        }
        return OpenAPIDocument(operations: operations)
    }()

    /// The documented operation a concrete request path belongs to.
    func operation(method: String, path: String) -> String? {
        let concrete = path.split(separator: "?").first.map(String.init) ?? path
        let parts = concrete.split(separator: "/", omittingEmptySubsequences: false)
        return operations.keys.first { key in
            let pieces = key.split(separator: " ", maxSplits: 1)
            guard pieces[0] == method else { return false }
            let template = pieces[1].split(separator: "/", omittingEmptySubsequences: false)
            guard template.count == parts.count else { return false }
            return zip(template, parts).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
        }
    }

    func documents(status: Int, method: String, path: String) -> Bool {
        guard let operation = operation(method: method, path: path) else { return false }
        return operations[operation]?.contains(String(status)) == true
    }
}
