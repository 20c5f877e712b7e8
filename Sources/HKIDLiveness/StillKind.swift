import CCardVision

/// Which still image a result carries. The raw value is the key under
/// `images` in the JSON event stream.
public enum StillKind: String, Sendable, Hashable, CaseIterable, Comparable {
    /// The rectified card face, perspective removed.
    case card
    /// The portrait crop from the card face.
    case head

    var cValue: cv_still_kind {
        switch self {
        case .card: CV_STILL_CARD
        case .head: CV_STILL_HEAD
        }
    }

    public static func < (lhs: StillKind, rhs: StillKind) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
