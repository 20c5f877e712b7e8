/// A point in full-resolution frame pixels (x right, y down).
public struct CardPoint: Sendable, Hashable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}
