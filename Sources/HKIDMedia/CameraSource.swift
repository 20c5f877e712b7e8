/// Where a `CameraPipeline`'s frames come from: a gst-launch fragment that
/// ends in raw video, with its input element named `src`.
///
/// The fragment must pace itself in real time: a camera does, a test pattern
/// does with `is-live=true`, a file needs `identity sync=true` (otherwise the
/// leaky analysis branch would let it decode as fast as the CPU allows and
/// "the session" would be over in a second).
public struct CameraSource: Sendable, Equatable {
    public var fragment: String
    /// Given to the `src` element as `location` (files) or `device` (cameras);
    /// set after parsing, so a path needs no quoting.
    public var input: String?

    public init(fragment: String, input: String? = nil) {
        self.fragment = fragment
        self.input = input
    }

    /// A V4L2 webcam (`/dev/video0` when `device` is nil).
    public static func webcam(device: String? = nil) -> CameraSource {
        CameraSource(fragment: "v4l2src name=src ! videoconvert", input: device)
    }

    /// A recorded file played at real-time speed, standing in for a webcam.
    public static func file(_ path: String) -> CameraSource {
        CameraSource(fragment: "filesrc name=src ! decodebin ! videoconvert ! videoflip video-direction=auto ! identity sync=true",
                     input: path)
    }

    /// GStreamer's moving test pattern at 30 fps.
    public static let testPattern = CameraSource(
        fragment: "videotestsrc name=src is-live=true pattern=ball ! video/x-raw,width=1280,height=720,framerate=30/1")
}
