import Foundation
import HKIDSignature
import Hummingbird
import NIOCore

/// `/v1/sessions` and everything under it. Handlers only translate between
/// HTTP and the `Station`; ids are validated by `SessionID` before anything
/// else, and every file path comes from `directory` and a checked id.
struct SessionsController<Context: RequestContext> {
    let station: Station
    let directory: DataDirectory
    let maxRequestBytes: Int

    func addRoutes(to router: Router<Context>) {
        router.post("/v1/sessions") { request, context in try await startSession(request, context: context) }
        router.get("/v1/sessions") { request, _ in try await listSessions(request) }
        router.get("/v1/sessions/{id}") { _, context in
            JSONResponse.response(SessionView(try await existing(try sessionID(context)), directory: directory))
        }
        router.post("/v1/sessions/{id}/cancel") { _, context in
            let record = try await station.cancelSession(try sessionID(context))
            return JSONResponse.response(SessionView(record, directory: directory))
        }
        router.get("/v1/sessions/{id}/events") { _, context in try await events(try sessionID(context)) }
        router.get("/v1/sessions/{id}/bundle") { request, context in
            let id = try sessionID(context)
            guard try await existing(id).bundleReady else { throw APIError(.conflict, "the bundle of session \(id) is not ready") }
            return try await fileResponse(directory.bundlePath(of: id), type: "application/zip",
                                          downloadName: "hkid-session-\(id).zip", request: request, context: context)
        }
        router.get("/v1/sessions/{id}/video") { request, context in
            let id = try sessionID(context)
            let record = try await existing(id)
            guard record.status != .active, record.hasVideo else {
                throw APIError(.notFound, "session \(id) has no finished video")
            }
            return try await fileResponse(directory.file(BundleLayout.video, of: id), type: "video/x-matroska",
                                          downloadName: nil, request: request, context: context, ranges: true)
        }
        router.get("/v1/sessions/{id}/images/{name}") { request, context in
            let id = try sessionID(context)
            guard let image = context.parameters.get("name").flatMap(SessionImage.init(rawValue:)) else {
                throw APIError(.notFound, "images are first-card, card and head")
            }
            _ = try await existing(id)
            return try await fileResponse(directory.file(image.fileName, of: id), type: "image/jpeg",
                                          downloadName: nil, request: request, context: context)
        }
    }

    private func sessionID(_ context: Context) throws -> SessionID {
        guard let text = context.parameters.get("id"), let id = SessionID(text) else {
            throw APIError(.badRequest, "a session id is 32 lowercase hex digits")
        }
        return id
    }

    /// The session, or 404.
    private func existing(_ id: SessionID) async throws -> SessionRecord {
        guard let record = try await station.session(id) else { throw APIError(.notFound, "no session \(id)") }
        return record
    }

    private func startSession(_ request: Request, context: Context) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: maxRequestBytes)
        let sessionRequest: SessionRequest
        if body.readableBytes == 0 {
            sessionRequest = SessionRequest()
        } else {
            do {
                sessionRequest = try JSONDecoder().decode(SessionRequest.self, from: Data(body.readableBytesView))
            } catch let unknown as SessionRequest.UnknownField {
                throw APIError(.badRequest, "unknown field \"\(unknown.name)\"; the body takes \(SessionRequest.fieldNames)")
            } catch {
                throw APIError(.badRequest, "the body must be a JSON object with \(SessionRequest.fieldNames)")
            }
        }
        let record = try await station.startSession(sessionRequest)
        var response = JSONResponse.response(SessionView(record, directory: directory), status: .created)
        response.headers[.location] = "/v1/sessions/\(record.id)"
        return response
    }

    private struct SessionPage: Encodable {
        var sessions: [SessionView]
        var nextCursor: String?
    }

    private func listSessions(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        var limit = 20
        if let text = query.get("limit") {
            guard let value = Int(text), (1...100).contains(value) else {
                throw APIError(.badRequest, "limit must be between 1 and 100")
            }
            limit = value
        }
        var status: SessionStatus?
        if let text = query.get("status") {
            guard let value = SessionStatus(rawValue: text) else {
                throw APIError(.badRequest, "status must be one of \(SessionStatus.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            status = value
        }
        var cursor: Int64?
        // An empty cursor is the first page, as if none were given.
        if let text = query.get("cursor"), !text.isEmpty {
            guard let value = Int64(text), value > 0 else { throw APIError(.badRequest, "cursor is not valid") }
            cursor = value
        }
        let records = try await station.list(status: status, limit: limit + 1, after: cursor)
        let page = Array(records.prefix(limit))
        let next = records.count > limit ? page.last?.seq.map(String.init) : nil
        return JSONResponse.response(SessionPage(sessions: page.map { SessionView($0, directory: directory) },
                                                 nextCursor: next))
    }

    /// Server-Sent Events: every line so far, then live lines, one `data:`
    /// per SPEC section 6 line; `event: end` closes. Both read the session's
    /// log file from its first line (a live one as it grows), so nothing is
    /// ever missed however long the session.
    private func events(_ id: SessionID) async throws -> Response {
        let record = try await existing(id)
        let live = record.status == .active ? await station.liveEvents(id) : nil
        let stored = live == nil ? FileLines(fd: open(directory.file(BundleLayout.events, of: id),
                                                       O_RDONLY | O_CLOEXEC)) : nil
        let headers: HTTPFields = [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store"]
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            try await writer.write(ByteBuffer(string: ": session \(id)\n\n"))
            if let live {
                for await line in live { try await writer.write(ByteBuffer(string: "data: \(line)\n\n")) }
            } else if let stored {
                while let line = stored.nextLine() { try await writer.write(ByteBuffer(string: "data: \(line)\n\n")) }
            }
            try await writer.write(ByteBuffer(string: "event: end\ndata: {}\n\n"))
            try await writer.finish(nil)
        })
    }

    /// A session file, streamed from disk in chunks (a 600 s recording is
    /// ~190 MB: never read whole into memory). With `ranges`, a single
    /// `Range: bytes=` request gets 206 with that part (players seek with it),
    /// an unsatisfiable one 416.
    private func fileResponse(_ path: String, type: String, downloadName: String?, request: Request,
                              context: Context, ranges: Bool = false) async throws -> Response {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { throw APIError(.notFound, "not found") }
        let size = Int(info.st_size)
        var headers: HTTPFields = [.contentType: type, .cacheControl: "no-store"]
        if let downloadName { headers[.contentDisposition] = "attachment; filename=\"\(downloadName)\"" }
        if ranges { headers[.acceptRanges] = "bytes" }
        if ranges, let header = request.headers[.range] {
            switch ByteRange(header: header, size: size) {
            case .whole:
                break
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(size)"
                var response = try APIError(.rangeNotSatisfiable, "the range \(header) is outside the file's \(size) bytes")
                    .response(from: request, context: context)
                response.headers[.contentRange] = headers[.contentRange]
                return response
            case .part(let range):
                headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
                let body = try await FileIO().loadFile(path: path, range: range, context: context)
                return Response(status: .partialContent, headers: headers, body: body)
            }
        }
        let body = size == 0 ? ResponseBody() : try await FileIO().loadFile(path: path, context: context)
        return Response(status: .ok, headers: headers, body: body)
    }
}
