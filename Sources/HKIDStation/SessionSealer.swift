import Foundation
import HKIDMedia
import HKIDSignature
import Logging

/// Puts an ended session's files in their final form, records the end in
/// the index and seals the bundle. Every step can be repeated: a step that
/// fails (most often a full disk) throws, and the station runs the whole of
/// it again later, for a session just ended and for one a crash left.
///
/// 1. the event log: a partial one is cut back to its last whole line,
///    synced and renamed to `events.jsonl`;
/// 2. the recording: synced and renamed to `video.mkv`, or, when it was cut
///    short (a crash, a full disk, a stalled drain), remuxed so that its
///    header states what it really holds; one without a playable frame is
///    set aside unsigned;
/// 3. the index row; 4. `bundle.zip`; 5. the row's `bundleReady`.
struct SessionSealer: Sendable {
    let directory: DataDirectory
    let store: SessionStore
    let signer: ManifestSigner
    let logger: Logger

    /// Runs every step for `record` (its status final); `record` gets
    /// `hasVideo` and `bundleReady` as they come true.
    func complete(_ record: inout SessionRecord, recordingCutShort: Bool) throws(StationError) {
        guard let id = SessionID(record.id) else { throw StationError(.storage, "\(record.id) is not a session id") }
        try finaliseEventLog(of: id)
        if let hasVideo = try finaliseRecording(of: id, cutShort: recordingCutShort) { record.hasVideo = hasVideo }
        try update(record, doing: "the session's end was not recorded")
        HoldPoint.beforeSeal.holdBlocking(logger: logger)
        do { _ = try BundleWriter(directory: directory, signer: signer, logger: logger).seal(record, id: id) } catch {
            throw StationError(.storage, "the bundle was not sealed (\(error))")
        }
        HoldPoint.afterSeal.holdBlocking(logger: logger)
        record.bundleReady = true
        try update(record, doing: "the sealed bundle was not recorded as ready")
    }

    private func update(_ record: SessionRecord, doing what: String) throws(StationError) {
        do { try store.update(record) } catch { throw StationError(.storage, "\(what) (\(error))") }
    }

    /// The partial log (left by a crash, or by a close whose sync failed)
    /// becomes `events.jsonl`, ending on a whole line.
    private func finaliseEventLog(of id: SessionID) throws(StationError) {
        let partial = directory.eventLogPath(of: id)
        guard FileManager.default.fileExists(atPath: partial) else { return }
        guard EventLogSummary.truncateToLastLine(partial) else {
            throw StationError(.storage, "\(partial): cannot be cut back to its last whole line (\(String(cString: strerror(errno))))")
        }
        do {
            try DurableFile.sync(path: partial)
            try DurableFile.rename(partial, to: directory.file(BundleLayout.events, of: id))
        } catch {
            throw StationError(.storage, "the event log was not finalised (\(error))")
        }
    }

    /// Whether the session has a video, or nil when there was no recording
    /// left to finalise (a step already done, or none made).
    private func finaliseRecording(of id: SessionID, cutShort: Bool) throws(StationError) -> Bool? {
        let growing = directory.recordingPath(of: id)
        guard FileManager.default.fileExists(atPath: growing) else {
            return FileManager.default.fileExists(atPath: directory.file(BundleLayout.video, of: id)) ? true : nil
        }
        chmod(growing, 0o600)
        let final = directory.file(BundleLayout.video, of: id)
        do {
            if cutShort {
                let repaired = directory.file(".\(BundleLayout.video).repaired", of: id)
                do { try RecordingRepair.remux(growing, to: repaired) } catch {
                    guard hasRoom(for: growing) else { throw StationError(.storage, "the recording was not remuxed (\(error))") }
                    // Room enough, so not one frame of it survived.
                    return setAside(growing, of: id)
                }
                guard RecordingRepair.hasPlayableFrame(repaired) else {
                    unlink(repaired)
                    return setAside(growing, of: id)
                }
                try DurableFile.sync(path: repaired)
                try DurableFile.rename(repaired, to: final)
                unlink(growing)
                return true
            }
            try DurableFile.sync(path: growing)
            guard RecordingRepair.hasPlayableFrame(growing) else { return setAside(growing, of: id) }
            try DurableFile.rename(growing, to: final)
            return true
        } catch let error as StationError {
            throw error
        } catch {
            throw StationError(.storage, "the recording was not finalised (\(error))")
        }
    }

    /// A recording without one playable frame (a session cancelled in its
    /// first moments: a Matroska header and nothing else) is kept as
    /// `.video.mkv.unplayable` and not signed: the manifest names no video.
    private func setAside(_ path: String, of id: SessionID) -> Bool {
        logger.warning("the recording holds no playable frame; the bundle has no video", metadata: ["session": "\(id)"])
        if Glibc.rename(path, directory.file(".\(BundleLayout.video).unplayable", of: id)) != 0 {
            // Still never signed: only `video.mkv` goes into a bundle.
            logger.error("the unplayable recording was not set aside", metadata: ["session": "\(id)"])
        }
        return false
    }

    /// Whether the file system under `path` has room for a copy of it.
    private func hasRoom(for path: String) -> Bool {
        var info = statvfs(), file = stat()
        guard statvfs(path, &info) == 0, stat(path, &file) == 0 else { return false }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize) > UInt64(file.st_size) + 1_048_576
    }
}
