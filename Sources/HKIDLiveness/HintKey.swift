/// The SDK's localisable instruction strings (SPEC section 7), by key.
///
/// Only some of them are attached to operation events (see
/// `OperationStatus` and docs/session.md); the others (`glare`, `captured`,
/// `overtime`, `resetDone`) are here so that a UI can show them for results.
public enum HintKey: String, Sendable, Hashable, CaseIterable {
    case place
    case right
    case left
    case up
    case down
    case glare
    case complete
    case rightDone = "right_done"
    case upDone = "up_done"
    case captured
    case overtime
    case resetDone = "reset_done"
    case far
    case near
    case overspeed

    public func text(in language: HintLanguage) -> String {
        switch language {
        case .zhHK: traditional
        case .en: english
        case .zhCN: simplified
        }
    }

    private var traditional: String {
        switch self {
        case .place: "請將身份證正面置於掃描框內"
        case .right: "請緩慢向右翻轉"
        case .left: "請緩慢向左翻轉"
        case .up: "請緩慢向上翻轉"
        case .down: "請緩慢向下翻轉"
        case .glare: "光線過亮，請調整"
        case .complete: "識別完成"
        case .rightDone: "向右翻識別成功，請把證件復位"
        case .upDone: "上翻識別成功，請緩慢把證件復位"
        case .captured: "證件捕捉成功，開始識別"
        case .overtime: "超時，請重新開始"
        case .resetDone: "證件復位成功"
        case .far: "距離過遠，請調整"
        case .near: "距離過近，請調整"
        case .overspeed: "轉動速度過快，請慢點"
        }
    }

    private var simplified: String {
        switch self {
        case .place: "请将身份证正面置于扫描框内"
        case .right: "请缓慢向右翻转"
        case .left: "请缓慢向左翻转"
        case .up: "请缓慢向上翻转"
        case .down: "请缓慢向下翻转"
        case .glare: "光线过亮，请调整"
        case .complete: "识别完成"
        case .rightDone: "向右翻识别成功，请把证件复位"
        case .upDone: "上翻识别成功，请缓慢把证件复位"
        case .captured: "证件捕捉成功，开始识别"
        case .overtime: "超时，请重新开始"
        case .resetDone: "证件复位成功"
        case .far: "距离过远，请调整"
        case .near: "距离过近，请调整"
        case .overspeed: "转动速度过快，请慢点"
        }
    }

    private var english: String {
        switch self {
        case .place: "Place the front of the card inside the frame"
        case .right: "Slowly rotate the card to the right"
        case .left: "Slowly rotate the card to the left"
        case .up: "Slowly tilt the card up"
        case .down: "Slowly tilt the card down"
        case .glare: "Too much glare, please adjust"
        case .complete: "Detection complete"
        case .rightDone: "Right rotation recognised, bring the card back to the front"
        case .upDone: "Upward tilt recognised, slowly bring the card back to the front"
        case .captured: "Card captured, starting detection"
        case .overtime: "Time is up, please start again"
        case .resetDone: "Card back at the front"
        case .far: "Too far, move the card closer"
        case .near: "Too close, move the card away"
        case .overspeed: "Rotating too fast, please slow down"
        }
    }
}

extension HintKey {
    /// The hint an operation event carries. VALID is not handled here: it
    /// repeats the hint of the step the flow is at, which only the state
    /// machine knows.
    static func forStep(_ status: OperationStatus, cardType: CardType) -> HintKey {
        switch (status, cardType) {
        case (.begin, _), (.valid, _): .place
        case (.orth, .hkid2018): .right
        case (.orth, .hkid2003): .up
        case (.reset, .hkid2018): .rightDone
        case (.reset, .hkid2003): .upDone
        case (.leftDown, .hkid2018): .left
        case (.leftDown, .hkid2003): .down
        case (.complete, _): .complete
        case (.far, _): .far
        case (.near, _): .near
        case (.overspeed, _): .overspeed
        }
    }
}

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
