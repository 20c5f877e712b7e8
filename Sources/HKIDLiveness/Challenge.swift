/// Which rotations a session asks for: the defence against replays of a
/// recorded genuine session.
///
/// A recording of someone else's genuine session passes every pixel check,
/// because it is a genuine card. What it cannot do is follow an instruction
/// drawn after it was recorded: with `.random` the first rotation's direction
/// is drawn at every `startDetect`, and a recording made for the other draw
/// never advances the flow (the wrong sign never counts, SPEC section 5 step
/// 6), so it ends by overtime.
public enum Challenge: String, Sendable, Hashable, CaseIterable, Codable {
    /// The SDK's flow: 2018 right then left, 2003 up then down. Right for
    /// replaying recordings, which were made for it.
    case fixed
    /// Per attempt, the first rotation is drawn (2018: right or left; 2003:
    /// up or down) and the second is the opposite. Right for live counters.
    case random
}

/// A direction the card holder is asked to turn the card in.
public enum RotationDirection: String, Sendable, Hashable, CaseIterable, Codable {
    case right, left, up, down

    var opposite: RotationDirection {
        switch self {
        case .right: .left
        case .left: .right
        case .up: .down
        case .down: .up
        }
    }

    /// The hint ORTH or LEFTDOWN carries when this turn is asked for.
    var hint: HintKey {
        switch self {
        case .right: .right
        case .left: .left
        case .up: .up
        case .down: .down
        }
    }

    /// The hint RESET carries once this turn was seen. The SDK has a "done"
    /// string only for right and up; after a left or down turn RESET carries
    /// `place` ("place the front of the card inside the frame"), which asks
    /// for the same thing without naming the wrong direction.
    var doneHint: HintKey {
        switch self {
        case .right: .rightDone
        case .up: .upDone
        case .left, .down: .place
        }
    }

    /// +1 when the turn is the card type's SPEC direction for ORTH (yaw > 0
    /// for right, pitch > 0 for up), -1 for the opposite.
    var sign: Double {
        switch self {
        case .right, .up: 1
        case .left, .down: -1
        }
    }
}

/// The rotations one attempt asks for: what `delta.challenge` records, so an
/// auditor can check that the video followed the instruction.
public struct RotationChallenge: Sendable, Hashable, Codable {
    /// How it was chosen.
    public var kind: Challenge
    /// The first rotation (announced by ORTH).
    public var first: RotationDirection
    /// The second rotation (announced by LEFTDOWN), always the opposite.
    public var second: RotationDirection

    /// The SDK's flow for a card type.
    public static func fixed(_ cardType: CardType) -> RotationChallenge {
        let first: RotationDirection = cardType == .hkid2018 ? .right : .up
        return RotationChallenge(kind: .fixed, first: first, second: first.opposite)
    }

    /// A random challenge for `cardType` whose first rotation is either the
    /// SDK's (`reversed` false) or the opposite one.
    public static func random(_ cardType: CardType, reversed: Bool) -> RotationChallenge {
        let sdk = fixed(cardType).first
        let first = reversed ? sdk.opposite : sdk
        return RotationChallenge(kind: .random, first: first, second: first.opposite)
    }

    /// Draws this attempt's challenge: `.fixed` draws nothing; `.random`
    /// takes one bit from `generator`.
    public static func draw(_ challenge: Challenge, cardType: CardType,
                            using generator: inout some RandomNumberGenerator) -> RotationChallenge {
        switch challenge {
        case .fixed: fixed(cardType)
        case .random: random(cardType, reversed: generator.next() & 1 == 1)
        }
    }
}

extension CardType {
    /// The directions a rotation on this card type's axis can take, the
    /// SDK's first: right and left for 2018, up and down for 2003. A random
    /// challenge's first rotation is one of them.
    public var rotationDirections: [RotationDirection] {
        switch self {
        case .hkid2018: [.right, .left]
        case .hkid2003: [.up, .down]
        }
    }
}
