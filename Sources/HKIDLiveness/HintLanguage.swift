/// Language of the hint texts (SPEC section 7). The raw value is the BCP 47
/// tag that `--lang` accepts.
public enum HintLanguage: String, Sendable, Hashable, CaseIterable {
    /// Traditional Chinese (Hong Kong), the SDK's own strings. The default.
    case zhHK = "zh-HK"
    case en = "en"
    /// Simplified Chinese. The SDK shipped the Traditional strings under this
    /// locale; we convert them to Simplified characters instead.
    case zhCN = "zh-CN"
}
