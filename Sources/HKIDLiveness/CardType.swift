import CCardVision

/// The two generations of smart HKID (SPEC section 2). They differ in which
/// way the card is turned and where the large portrait sits.
public enum CardType: String, Sendable, Hashable, CaseIterable {
    /// New smart HKID (2018-11): rotate right, then left; portrait on the left.
    case hkid2018 = "2018"
    /// Smart HKID (2003): tilt up, then down; portrait on the right.
    case hkid2003 = "2003"

    /// The angle that the flow's rotations are measured on, signed so that the
    /// first rotation (ORTH) is positive and the second (LEFTDOWN) negative.
    func rotationAngle(of measurement: CardMeasurement) -> Double {
        switch self {
        case .hkid2018: measurement.yaw
        case .hkid2003: measurement.pitch
        }
    }

    var rotationAxisName: String {
        switch self {
        case .hkid2018: "yaw"
        case .hkid2003: "pitch"
        }
    }

    var cValue: cv_card_type {
        switch self {
        case .hkid2018: CV_CARD_2018
        case .hkid2003: CV_CARD_2003
        }
    }
}
