import CGStreamer

/// Process-wide GStreamer initialisation. `gst_init` is idempotent but not
/// free, so it runs once, on first use, from whichever thread gets there first.
public enum GStreamerRuntime {
    private static let initialised: Result<Void, MediaError> = {
        var error: UnsafeMutablePointer<GError>?
        if gst_init_check(nil, nil, &error) == 0 {
            let reason = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            g_clear_error(&error)
            return .failure(MediaError(.invalidPipeline, input: "gstreamer", reason: reason))
        }
        return .success(())
    }()

    /// Initialises GStreamer if needed; throws when the library cannot start.
    public static func ensureInitialised() throws(MediaError) {
        try initialised.get()
    }

    /// "GStreamer 1.22.0"
    public static var versionString: String {
        guard let s = gst_version_string() else { return "GStreamer" }
        defer { g_free(s) }
        return String(cString: s)
    }
}
