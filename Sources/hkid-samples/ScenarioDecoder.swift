import Yams

enum ScenarioDecoder {
    static func decode(_ text: String, path: String) throws -> Scenario {
        do {
            let scenario = try YAMLDecoder().decode(Scenario.self, from: text)
            try scenario.validate(path)
            return scenario
        } catch let error as ScenarioError {
            throw error
        } catch let DecodingError.keyNotFound(key, context) {
            throw ScenarioError(path: path, reason: "missing \(context.codingPath.map(\.stringValue).joined(separator: ".")).\(key.stringValue)")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw ScenarioError(path: path, reason: "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)")
        } catch {
            throw ScenarioError(path: path, reason: "\(error)")
        }
    }
}
