import Foundation

/// A gst-launch description of where frames come from, with the two names
/// the code relies on: an element called `src` that receives the input (its
/// `location` for files, `device` for cameras) and an `appsink` called `sink`.
///
/// The input is set as a property after parsing rather than pasted into the
/// text, so file names with spaces or quotes need no escaping.
public struct PipelineDescription: Sendable, Equatable {
    public var text: String
    /// Where the text came from, for error messages ("built-in replay", a file path).
    public var origin: String

    public init(text: String, origin: String) {
        self.text = text
        self.origin = origin
    }

    /// Reads a description file: `#` starts a comment, lines are joined.
    public init(contentsOf path: String) throws(MediaError) {
        let data: String
        do {
            data = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw MediaError(.invalidPipeline, input: path, reason: Self.readFailureReason(path))
        }
        let text = Self.stripComments(data)
        guard !text.isEmpty else {
            throw MediaError(.invalidPipeline, input: path, reason: "the pipeline file has no pipeline in it")
        }
        self.init(text: text, origin: path)
    }

    static func stripComments(_ source: String) -> String {
        source.split(separator: "\n", omittingEmptySubsequences: false)
            .map { line -> Substring in
                let code = line.firstIndex(of: "#").map { line[..<$0] } ?? line[...]
                return code.trimmingCharacters(in: .whitespaces)[...]
            }
            .filter { !$0.isEmpty }
            .joined(separator: " ")
    }

    private static func readFailureReason(_ path: String) -> String {
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) { return "no such file" }
        if isDirectory.boolValue { return "is a directory, not a pipeline file" }
        return "cannot be read as UTF-8 text"
    }
}

extension PipelineDescription {
    // These are the contents of pipelines/*.pipeline (minus comments); a test
    // keeps the two identical, so the files stay an honest copy of what runs.

    /// Decode a recorded file as fast as possible, every frame, in order.
    public static let replay = PipelineDescription(
        text: "filesrc name=src ! decodebin ! videoconvert ! videoflip video-direction=auto ! video/x-raw,format=I420 ! appsink name=sink sync=false drop=false max-buffers=8 enable-last-sample=false",
        origin: "built-in replay pipeline")

    /// A V4L2 webcam, newest frame only: analysis must never lag the camera.
    public static let webcam = PipelineDescription(
        text: "v4l2src name=src ! videoconvert ! video/x-raw,format=I420 ! queue leaky=downstream max-size-buffers=1 max-size-bytes=0 max-size-time=0 ! appsink name=sink sync=false drop=true max-buffers=1 enable-last-sample=false",
        origin: "built-in webcam pipeline")

    /// A recorded file played at real-time speed, standing in for a webcam.
    /// `identity sync=true` paces the frames before the leaky queue; pacing
    /// in the appsink (after the queue) let the queue discard almost every
    /// frame while the appsink waited for the clock.
    public static let realtimeFile = PipelineDescription(
        text: "filesrc name=src ! decodebin ! videoconvert ! videoflip video-direction=auto ! video/x-raw,format=I420 ! identity sync=true ! queue leaky=downstream max-size-buffers=1 max-size-bytes=0 max-size-time=0 ! appsink name=sink sync=false drop=true max-buffers=1 enable-last-sample=false",
        origin: "built-in real-time file pipeline")

    /// GStreamer's test pattern at 30 fps, for checking a set-up without a camera.
    public static let testPattern = PipelineDescription(
        text: "videotestsrc name=src is-live=true pattern=ball ! video/x-raw,width=1280,height=720,framerate=30/1 ! videoconvert ! video/x-raw,format=I420 ! queue leaky=downstream max-size-buffers=1 max-size-bytes=0 max-size-time=0 ! appsink name=sink sync=false drop=true max-buffers=1 enable-last-sample=false",
        origin: "built-in test-pattern pipeline")

    public static let builtIn: [String: PipelineDescription] = [
        "replay": .replay, "webcam": .webcam, "realtime-file": .realtimeFile, "videotestsrc": .testPattern,
    ]
}
