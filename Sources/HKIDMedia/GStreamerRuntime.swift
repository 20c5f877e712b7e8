import CGStreamer
#if canImport(Glibc)
import Glibc
#endif

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
        // GStreamer's leaks tracer (GST_TRACERS=leaks, used by `make
        // leakcheck`) reports the objects still alive when GStreamer is
        // deinitialised; a process that just exits never reports. Only in
        // that diagnostic mode, deinitialise at exit: every pipeline has been
        // set to NULL and released by then.
        if let tracers = getenv("GST_TRACERS"), String(cString: tracers).contains("leaks") {
            atexit { gst_deinit() }
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
