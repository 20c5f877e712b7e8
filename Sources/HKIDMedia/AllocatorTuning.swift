import CGStreamer

/// glibc raises its mmap threshold each time a large mmapped block is freed
/// (up to 32 MB), after which large buffers come from the heap instead and
/// fragment it. Every recording starts a new x264 encoder and every replay a
/// new decoder, each allocating and freeing tens of MB of frame buffers, so a
/// long-running process's RSS climbed by about 1 MB per station session
/// (27 MB over 24 sessions) without a single object leaking — GStreamer's
/// leaks tracer showed the same live objects throughout. Pinning the
/// threshold keeps large buffers in mmap, returned to the system on free:
/// 1.0 MB over 26 sessions. Call once, first thing, from a long-running
/// process (the station, batch replays, soaks).
public enum AllocatorTuning {
    public static func returnLargeBuffersToTheSystem() {
        hk_pin_mmap_threshold(128 * 1024)
    }

    /// glibc's `malloc_trim(0)`: gives the free pages inside every arena back
    /// to the system. `free` only ever shrinks the top of an arena, so the
    /// holes a finished session leaves among long-lived blocks stay resident.
    /// Two stations side by side, 8 minutes of 2 s test-pattern sessions:
    /// +17.0 MB without it, +1.5 MB with it. A call took 0.24–0.57 ms there;
    /// make it when a unit of work (a session, a batch pass) has ended, not
    /// per frame.
    public static func releaseFreeMemory() {
        hk_release_free_memory()
    }
}
