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

    /// Parses a pipeline that brings frames in (a file, a camera) the way
    /// every such pipeline must be parsed here, and returns it sunk (the
    /// caller owns the one reference) with its bin. Two things GStreamer would
    /// otherwise get slow:
    ///
    /// - A decoding pipeline (decodebin, avdec_*) first loads libav's plugin
    ///   so that its libraries resolve symbols among themselves first
    ///   (RTLD_DEEPBIND). Every symbol a newly loaded library needs is looked
    ///   up in the process's global scope first: here the Swift runtime,
    ///   Foundation, ICU and OpenCV, 58 libraries, against gst-launch's 16.
    ///   libav's plugin pulls in libavcodec and dozens of codec libraries, so
    ///   loading it took ~20 ms longer in this process than in gst-launch
    ///   (preloading our libraries into gst-launch with LD_PRELOAD made it
    ///   exactly as slow). The dependencies are the same objects either way;
    ///   only the search order changes, and GStreamer's own dlopen of the
    ///   file later returns this handle. Other plugins were tried the same
    ///   way; their dependencies are few and nothing was gained.
    /// - Every videoflip that may not rotate starts in passthrough (CGStreamer.c):
    ///   otherwise 1.22 copies each unrotated frame.
    /// - A decoder that decodebin creates gets one thread fewer than the
    ///   machine has cores (CGStreamer.c): the analysis runs beside it on a
    ///   core of its own instead of waiting for libav's frame threads.
    static func parseSourcePipeline(_ text: String, origin: String,
                                    notABin: String) throws(MediaError) -> (pipeline: UnsafeMutablePointer<GstElement>, bin: UnsafeMutablePointer<GstBin>) {
        try ensureInitialised()
        if text.contains("decodebin") || text.contains("avdec_") { libavLoadedWithOwnSymbolsFirst }
        var error: UnsafeMutablePointer<GError>?
        let parsed = gst_parse_launch(text, &error)
        if let parseError = error {
            let reason = String(cString: parseError.pointee.message)
            g_clear_error(&error)
            if let parsed { gst_object_unref(parsed) }
            throw MediaError(.invalidPipeline, input: origin, reason: reason)
        }
        guard let parsed, let bin = hk_as_bin(parsed) else {
            if let parsed { gst_object_unref(parsed) }
            throw MediaError(.invalidPipeline, input: origin, reason: notABin)
        }
        // gst_parse_launch returns a floating reference for a lone element;
        // sinking it makes the caller's one unref right in every case.
        gst_object_ref_sink(parsed)
        hk_videoflips_start_in_passthrough(bin)
        hk_decoders_leave_a_core(bin)
        return (parsed, bin)
    }

    private static let libavLoadedWithOwnSymbolsFirst: Void = {
        guard let plugin = gst_registry_find_plugin(gst_registry_get(), "libav") else { return }
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
