import Foundation
import HKIDLiveness
import HKIDMedia
import Yams

/// Everything the station can be told, from a YAML file (docs/station.md)
/// with command-line flags on top. Keys in the file are snake_case.
public struct StationConfiguration: Sendable, Equatable {
    /// Address to listen on. Loopback by default: anything else requires a token.
    public var host = "127.0.0.1"
    public var port = 8470
    /// File holding the bearer token (one line). Required off loopback.
    public var tokenFile: String?
    /// Where the index, keys and session files live (created 0700).
    public var dataDirectory = "/var/lib/hkid-station"
    /// Ed25519 private key (PEM or raw base64). Default: `<data>/keys/station.key`, created on first start.
    public var signingKeyFile: String?

    public enum SourceKind: String, Sendable, Equatable, Codable {
        case webcam, file, testPattern = "test-pattern", pipeline
    }
    public var source: SourceKind = .webcam
    /// Camera device for `webcam` (default /dev/video0).
    public var device: String?
    /// Video file for `file` (played at real-time speed).
    public var file: String?
    /// A gst-launch fragment ending in raw video for `pipeline`.
    public var pipeline: String?
    /// For `file`: start the file again when it ends (a looping stand-in camera).
    public var loopFile = true
    /// For `file`: start the file from its beginning when a session starts, so
    /// a recorded session lines up with the session (tests, demos).
    public var restartFileOnSession = false
    /// How long a session start waits for the source to run again (with
    /// `restart_file_on_session`) before it is refused with 503.
    public var sourceStartTimeout: Duration = .seconds(10)

    public var recordMode: RecordMode = .wholeSession
    public var previewFramesPerSecond = 5
    public var previewWidth = 640
    public var recordingBitrate = 2_500

    public var defaultCardType = "2018"
    public var defaultLanguage = "zh-HK"
    public var defaultOvertimeSeconds = 30.0
    /// `enforce`: a copy or a screen ends the session with result 5 spoof;
    /// `report`: the verdict is only recorded (docs/liveness.md).
    public var liveness: LivenessMode = .enforce
    /// `random` for a live counter (a replayed recording of someone else's
    /// session then fails); `fixed` (the SDK's flow) when the source is a
    /// recording made for it (`source: file`, demos, tests).
    public var challenge: Challenge = .fixed
    /// Upper bound on a request body; larger bodies get 413.
    public var maxRequestBytes = 16 * 1024
    /// A hub (`hkid-hub`) to upload each sealed session to, e.g.
    /// `http://hub.example:8090`; nil: the station reports to no hub.
    public var hubURL: String?
    /// File holding this station's bearer token on the hub (one line, 0600);
    /// its client name on the hub is the station's name there.
    public var hubTokenFile: String?

    public init() {}

    public var cameraSource: CameraSource {
        get throws(StationError) {
            switch source {
            case .webcam: return .webcam(device: device)
            case .testPattern: return .testPattern
            case .file:
                guard let file else { throw StationError(.configuration, "source 'file' needs a file") }
                return .file(file)
            case .pipeline:
                guard let pipeline, !pipeline.isEmpty else {
                    throw StationError(.configuration, "source 'pipeline' needs a pipeline")
                }
                return CameraSource(fragment: pipeline)
            }
        }
    }

    public var isLoopback: Bool {
        host == "127.0.0.1" || host == "::1" || host == "localhost" || host.hasPrefix("127.")
    }

    public var dataURL: URL { URL(fileURLWithPath: dataDirectory, isDirectory: true) }

    /// Checks what can be checked before anything starts.
    public func validate() throws(StationError) {
        guard (1...65535).contains(port) || port == 0 else { throw StationError(.configuration, "port \(port) is out of range") }
        if !isLoopback && tokenFile == nil {
            throw StationError(.configuration,
                               "listening on \(host) (not loopback) needs a bearer token: set token_file / --token-file")
        }
        guard ["2018", "2003"].contains(defaultCardType) else {
            throw StationError(.configuration, "default_card_type must be \"2018\" or \"2003\"")
        }
        guard defaultOvertimeSeconds > 0 else { throw StationError(.configuration, "default_overtime_seconds must be positive") }
        guard (1...30).contains(previewFramesPerSecond) else {
            throw StationError(.configuration, "preview_fps must be between 1 and 30")
        }
        _ = try cameraSource
        if hubURL != nil && hubTokenFile == nil {
            throw StationError(.configuration, "hub_url needs hub_token_file (the station's bearer token on the hub)")
        }
    }
}

extension StationConfiguration {
    private struct File: Decodable {
        var host: String?
        var port: Int?
        var token_file: String?
        var data_directory: String?
        var signing_key_file: String?
        var source: SourceKind?
        var device: String?
        var file: String?
        var pipeline: String?
        var loop_file: Bool?
        var restart_file_on_session: Bool?
        var source_start_timeout_seconds: Double?
        var record_mode: String?
        var preview_fps: Int?
        var preview_width: Int?
        var recording_bitrate: Int?
        var default_card_type: String?
        var default_language: String?
        var default_overtime_seconds: Double?
        var max_request_bytes: Int?
        var liveness: String?
        var challenge: String?
        var hub_url: String?
        var hub_token_file: String?
    }

    /// Reads a YAML configuration file over the defaults. Unknown keys are
    /// ignored by the decoder, so a typo is caught by `knownKeys` instead.
    public init(yamlFile path: String) throws(StationError) {
        self.init()
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw StationError(.configuration, "\(path): cannot be read (\(error.localizedDescription))")
        }
        let file: File
        do {
            if let mapping = try Yams.load(yaml: text) as? [String: Any] {
                let known = Set(Mirror(reflecting: File()).children.compactMap(\.label))
                if let unknown = mapping.keys.sorted().first(where: { !known.contains($0) }) {
                    throw StationError(.configuration, "\(path): unknown key '\(unknown)'")
                }
            }
            file = try YAMLDecoder().decode(File.self, from: text)
        } catch let error as StationError {
            throw error
        } catch {
            throw StationError(.configuration, "\(path): \(error)")
        }
        if let v = file.host { host = v }
        if let v = file.port { port = v }
        if let v = file.token_file { tokenFile = v }
        if let v = file.data_directory { dataDirectory = v }
        if let v = file.signing_key_file { signingKeyFile = v }
        if let v = file.source { source = v }
        if let v = file.device { device = v }
        if let v = file.file { self.file = v }
        if let v = file.pipeline { pipeline = v }
        if let v = file.loop_file { loopFile = v }
        if let v = file.restart_file_on_session { restartFileOnSession = v }
        if let v = file.source_start_timeout_seconds {
            guard v > 0, v <= 600 else {
                throw StationError(.configuration, "\(path): source_start_timeout_seconds must be between 0 and 600")
            }
            sourceStartTimeout = .milliseconds(Int64((v * 1000).rounded()))
        }
        if let v = file.record_mode {
            guard let mode = RecordMode(configValue: v) else {
                throw StationError(.configuration, "\(path): record_mode must be whole-session, after-first or none")
            }
            recordMode = mode
        }
        if let v = file.preview_fps { previewFramesPerSecond = v }
        if let v = file.preview_width { previewWidth = v }
        if let v = file.recording_bitrate { recordingBitrate = v }
        if let v = file.default_card_type { defaultCardType = v }
        if let v = file.default_language { defaultLanguage = v }
        if let v = file.default_overtime_seconds { defaultOvertimeSeconds = v }
        if let v = file.max_request_bytes { maxRequestBytes = v }
        if let v = file.liveness {
            guard let mode = LivenessMode(rawValue: v) else {
                throw StationError(.configuration, "\(path): liveness must be enforce or report, not '\(v)'")
            }
            liveness = mode
        }
        if let v = file.challenge {
            guard let challenge = Challenge(rawValue: v) else {
                throw StationError(.configuration, "\(path): challenge must be fixed or random, not '\(v)'")
            }
            self.challenge = challenge
        }
        if let v = file.hub_url { hubURL = v }
        if let v = file.hub_token_file { hubTokenFile = v }
    }
}
