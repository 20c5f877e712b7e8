import Foundation

/// The one JSON spelling that is signed: keys sorted, no whitespace, `/` not
/// escaped. Foundation's encoder already emits no whitespace without
/// `.prettyPrinted`; sorting is the part that must never be forgotten, so it
/// lives here once.
public enum CanonicalJSON {
    public static func encode<Value: Encodable>(_ value: Value) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding our own plain structs (strings, integers, optionals, string
        // maps) cannot fail; a failure would be a programming error.
        return try! encoder.encode(value)
    }
}
