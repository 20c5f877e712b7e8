import Foundation
import HKIDLiveness

/// The body of `POST /v1/sessions`. Every field is optional; the station's
/// defaults fill the gaps. A field it does not know is refused, not ignored:
/// `{"overtime": 3}` silently running a 30-second session is worse than a 400.
public struct SessionRequest: Decodable, Sendable, Equatable {
    /// "2018" or "2003" (SPEC section 2).
    public var cardType: String?
    /// The SDK's `setOverTimes`, seconds (1...600).
    public var overtimeSeconds: Double?
    /// "zh-HK", "en" or "zh-CN".
    public var language: String?

    public init(cardType: String? = nil, overtimeSeconds: Double? = nil, language: String? = nil) {
        self.cardType = cardType
        self.overtimeSeconds = overtimeSeconds
        self.language = language
    }

    /// A body field the request does not have.
    struct UnknownField: Error {
        var name: String
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case cardType, overtimeSeconds, language
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    static let fieldNames = CodingKeys.allCases.map(\.rawValue).joined(separator: ", ")

    public init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: AnyKey.self)
        if let unknown = fields.allKeys.map(\.stringValue).sorted().first(where: { CodingKeys(stringValue: $0) == nil }) {
            throw UnknownField(name: unknown)
        }
        let known = try decoder.container(keyedBy: CodingKeys.self)
        cardType = try known.decodeIfPresent(String.self, forKey: .cardType)
        overtimeSeconds = try known.decodeIfPresent(Double.self, forKey: .overtimeSeconds)
        language = try known.decodeIfPresent(String.self, forKey: .language)
    }

    /// The request resolved against the defaults, or why it cannot run.
    struct Resolved: Sendable {
        var cardType: CardType
        var overtimeSeconds: Double
        var language: HintLanguage
    }

    func resolved(defaults configuration: StationConfiguration) throws(StationError) -> Resolved {
        let typeText = cardType ?? configuration.defaultCardType
        guard let type = CardType(rawValue: typeText) else {
            throw StationError(.badRequest, "cardType must be \"2018\" or \"2003\"")
        }
        let overtime = overtimeSeconds ?? configuration.defaultOvertimeSeconds
        guard overtime.isFinite, (1...600).contains(overtime) else {
            throw StationError(.badRequest, "overtimeSeconds must be between 1 and 600")
        }
        let languageText = language ?? configuration.defaultLanguage
        guard let hintLanguage = HintLanguage(rawValue: languageText) else {
            throw StationError(.badRequest, "language must be one of zh-HK, en, zh-CN")
        }
        return Resolved(cardType: type, overtimeSeconds: overtime, language: hintLanguage)
    }
}
