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

    /// Call before parsing `description`: when it decodes (decodebin,
    /// avdec_*), loads libav's plugin so that its libraries resolve symbols
    /// among themselves first (RTLD_DEEPBIND), before GStreamer loads it.
    ///
    /// Every symbol a newly loaded library needs is looked up in the
    /// process's global scope first: here the Swift runtime, Foundation, ICU
    /// and OpenCV, 58 libraries, against gst-launch's 16. libav's plugin pulls
    /// in libavcodec and dozens of codec libraries, so loading it took ~20 ms
    /// longer in this process than in gst-launch (preloading our libraries
    /// into gst-launch with LD_PRELOAD made it exactly as slow). The plugin's
    /// dependencies are the same objects either way; only the search order
    /// changes. GStreamer's own dlopen of the file later returns this handle.
    /// Other plugins were tried too; their dependencies are few, and loading
    /// them this way gained nothing measurable.
    public static func prepare(for description: String) {
        guard description.contains("decodebin") || description.contains("avdec_") else { return }
        libavLoadedWithOwnSymbolsFirst
    }

    private static let libavLoadedWithOwnSymbolsFirst: Void = {
        guard (try? ensureInitialised()) != nil,
              let plugin = gst_registry_find_plugin(gst_registry_get(), "libav") else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(plugin)) }
        guard gst_plugin_is_loaded(plugin) == 0, let file = gst_plugin_get_filename(plugin) else { return }
        _ = dlopen(file, RTLD_LAZY | RTLD_LOCAL | RTLD_DEEPBIND)
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
