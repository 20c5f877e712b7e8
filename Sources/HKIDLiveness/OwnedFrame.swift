/// A private copy of a frame, so that `offerFrame` can return before the
/// caller's buffer is recycled and analysis can happen later on another thread.
struct OwnedFrame: Sendable {
    let format: FramePixelFormat
    let width: Int
    let height: Int
    let planes: [[UInt8]]
    let strides: [Int]
    let pts: Int64

    /// Copies exactly the rows each plane has, keeping the caller's strides.
    init(copying view: FrameView) throws(LivenessError) {
        try view.validate()
        format = view.format
        width = view.width
        height = view.height
        strides = Array(view.strides.prefix(view.format.planeCount))
        pts = view.pts
        var planes: [[UInt8]] = []
        for index in 0..<view.format.planeCount {
            let count = strides[index] * view.format.rows(ofPlane: index, height: view.height)
            planes.append(Array(UnsafeBufferPointer(start: view.planes[index], count: count)))
        }
        self.planes = planes
    }

    /// Lends the copy out as a `FrameView` for the duration of `body`.
    func withView<R>(_ body: (FrameView) throws(LivenessError) -> R) throws(LivenessError) -> R {
        func lend(_ index: Int, _ pointers: [UnsafePointer<UInt8>]) throws(LivenessError) -> R {
            guard index < planes.count else {
                return try body(FrameView(format: format, width: width, height: height,
                                          planes: pointers, strides: strides, pts: pts))
            }
            // Nested so that every plane's pointer stays valid until body returns.
            return try planes[index].withUnsafeBufferPointer { buffer throws(LivenessError) -> R in
                try lend(index + 1, pointers + [buffer.baseAddress!])
            }
        }
        return try lend(0, [])
    }
}
