import Foundation
import HKIDLiveness
import Hummingbird

/// `/v1/checks`: upload a session video, read a check, its events and its
/// signed bundle, and list checks with a cursor.
struct ChecksController {
    let store: any JobStore
    let limits: HubConfiguration.Limits
    let scratchDirectory: String

    func register(on router: Router<HubRequestContext>) {
        let group = router.group("v1/checks")
        group.post(use: create)
        group.get(use: list)
        group.get(":id", use: show)
        group.get(":id/events", use: events)
        group.get(":id/bundle", use: bundle)
    }

    static let idempotencyKey = HTTPFields.Element.Name("Idempotency-Key")!
    static let location = HTTPFields.Element.Name("Location")!
    static let webhookURL = HTTPFields.Element.Name("Webhook-URL")!

    /// 202 and the new check, or 200 and the check an earlier upload with the same key made.
    @Sendable func create(_ request: Request, context: HubRequestContext) async throws -> Response {
        let client = context.client!
        guard let key = request.headers[Self.idempotencyKey], !key.isEmpty, key.count <= 200 else {
            throw HubError(.badRequest, "an Idempotency-Key header (1 to 200 characters) is required")
        }
        let card = request.uri.queryParameters.get("card") ?? "2018"
        guard let cardType = CardType(rawValue: card) else {
            throw HubError(.badRequest, "card must be 2018 or 2003, not \(card)")
        }
        let challenge = request.uri.queryParameters.get("challenge") ?? "fixed"
        guard challenge == "fixed" || challenge == "random" else {
            throw HubError(.badRequest, "challenge must be fixed or random, not \(challenge)")
        }
        let firstRotation = try Self.firstRotation(request.uri.queryParameters.get("firstRotation"), card: cardType,
                                               challenge: challenge)
        if let length = request.headers[.contentLength].flatMap(Int64.init), length > limits.maxVideoBytes {
            throw HubError(.tooLarge, "the video is \(length) bytes, over the limit of \(limits.maxVideoBytes)")
        }
        let webhook = try Self.webhookURL(request, client: client)
        let (check, created) = try await store.create(
            CheckRequest(client: client.name, idempotencyKey: key, cardType: card, challenge: challenge,
                         firstRotation: firstRotation, webhookURL: webhook),
            body: request.body, limit: limits.maxVideoBytes, maxAttempts: limits.maxAttempts)
        var response = HubResponse.json(CheckJSON.object(check), status: created ? .accepted : .ok)
        response.headers[Self.location] = "/v1/checks/\(check.id)"
        return response
    }

    @Sendable func show(_ request: Request, context: HubRequestContext) async throws -> Response {
        let check = try await find(context)
        var object = CheckJSON.object(check)
        if check.state == .done, let events = try await store.events(id: check.id) {
            object["events"] = CheckJSON.lines(events)
        }
        if let webhook = try await store.webhook(id: check.id) { object["webhook"] = webhook.json }
        return HubResponse.json(object)
    }

    /// The `firstRotation` query parameter: required with a random challenge
    /// (the direction the holder was asked to turn first; a video recorded
    /// before a fresh draw could not follow it), refused with the fixed one,
    /// and on the card type's axis.
    static func firstRotation(_ text: String?, card: CardType, challenge: String) throws -> String? {
        let allowed = card.rotationDirections.map(\.rawValue)
        let choices = allowed.joined(separator: " or ")
        guard challenge == "random" else {
            guard let text else { return nil }
            throw HubError(.badRequest, "firstRotation \(text.prefix(20)) is only for challenge=random: the fixed challenge asks for \(allowed[0]) first")
        }
        guard let text else {
            throw HubError(.badRequest, "challenge=random needs firstRotation, the direction the holder was asked to turn first (\(choices) for card \(card.rawValue))")
        }
        guard allowed.contains(text) else {
            throw HubError(.badRequest, "firstRotation must be \(choices) for card \(card.rawValue), not \(text.prefix(20))")
        }
        return text
    }

    /// The optional `Webhook-URL` header: an absolute http(s) URL, for a
    /// client that has a webhook secret to sign with.
    static func webhookURL(_ request: Request, client: ClientTokens.Client) throws -> String? {
        guard let text = request.headers[Self.webhookURL] else { return nil }
        guard text.count <= 2000, let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw HubError(.badRequest, "Webhook-URL must be an absolute http or https URL, not \(text.prefix(100))")
        }
        guard client.webhookSecret != nil else {
            throw HubError(.badRequest, "client \(client.name) has no webhook-secret in the hub's token file, so it cannot ask for webhooks")
        }
        return text
    }

    @Sendable func events(_ request: Request, context: HubRequestContext) async throws -> Response {
        let check = try await find(context)
        guard check.state == .done, let events = try await store.events(id: check.id) else {
            return HubResponse.error(.conflict, "check \(check.id) is \(check.state.rawValue); its events come when it is done")
        }
        return Response(status: .ok, headers: [.contentType: "application/x-ndjson"],
                        body: .init(byteBuffer: ByteBuffer(bytes: events)))
    }

    @Sendable func bundle(_ request: Request, context: HubRequestContext) async throws -> Response {
        let check = try await find(context)
        guard check.state == .done, let parts = try await store.bundleParts(id: check.id) else {
            return HubResponse.error(.conflict, "check \(check.id) is \(check.state.rawValue); its bundle comes when it is done")
        }
        let base = (scratchDirectory as NSString).appendingPathComponent("hkid-bundle-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(atPath: base + ".video")
            try? FileManager.default.removeItem(atPath: base + ".zip")
        }
        try await store.copyVideo(id: check.id, to: base + ".video")
        try HubBundle.assemble(parts, videoPath: base + ".video", to: base + ".zip")
        let data = try Data(contentsOf: URL(fileURLWithPath: base + ".zip"))
        return Response(status: .ok, headers: [.contentType: "application/zip",
                                               .contentDisposition: "attachment; filename=\"\(check.id).zip\""],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    @Sendable func list(_ request: Request, context: HubRequestContext) async throws -> Response {
        let client = context.client!
        let limit = request.uri.queryParameters.get("limit").flatMap(Int.init) ?? 50
        guard (1...500).contains(limit) else { throw HubError(.badRequest, "limit must be 1 to 500") }
        var cursor: Int64?
        if let text = request.uri.queryParameters.get("cursor") {
            guard let value = Int64(text), value >= 0 else { throw HubError(.badRequest, "cursor \(text) is not one this hub gave") }
            cursor = value
        }
        let page = try await store.list(client: try Self.listedClient(request, client: client), after: cursor, limit: limit)
        var object: [String: Any] = ["checks": page.checks.map(CheckJSON.object)]
        if let next = page.next { object["next"] = String(next) }
        return HubResponse.json(object)
    }

    /// Whose checks a list shows: the caller's own, or, for a token with
    /// `all`, every client's or the one `client=NAME` names. Another
    /// client's name from a token without `all` is 403.
    static func listedClient(_ request: Request, client: ClientTokens.Client) throws -> String? {
        guard let name = request.uri.queryParameters.get("client") else { return client.seesAll ? nil : client.name }
        guard !name.isEmpty, name.count <= 200 else { throw HubError(.badRequest, "client must be a client's name (1 to 200 characters)") }
        guard client.seesAll || name == client.name else {
            throw HubError(.forbidden, "client \(client.name) sees only its own checks; client=\(name.prefix(100)) needs a token with all")
        }
        return name
    }

    private func find(_ context: HubRequestContext) async throws -> Check {
        let id = context.parameters.get("id") ?? ""
        let client = context.client!
        guard let check = try await store.check(id: id, client: client.seesAll ? nil : client.name) else {
            throw HubError(.notFound, "no check \(id)")
        }
        return check
    }
}

/// A check as a JSON object: the stored fields, with the result's JSON line
/// embedded as an object rather than a string.
enum CheckJSON {
    static func object(_ check: Check) -> [String: Any] {
        var object: [String: Any] = [
            "id": check.id, "client": check.client, "idempotencyKey": check.idempotencyKey, "cardType": check.cardType,
            "challenge": check.challenge, "state": check.state.rawValue, "attempts": check.attempts,
            "maxAttempts": check.maxAttempts, "videoBytes": check.videoBytes, "videoSha256": check.videoSha256,
            "createdAt": check.createdAt,
        ]
        if let first = check.firstRotation { object["firstRotation"] = first }
        if let reason = check.reason { object["reason"] = reason }
        if let finished = check.finishedAt { object["finishedAt"] = finished }
        if let code = check.resultCode { object["resultCode"] = code }
        if let verdict = check.verdict { object["verdict"] = verdict }
        if let score = check.spoofScore { object["spoofScore"] = score }
        if let result = check.result, let parsed = try? JSONSerialization.jsonObject(with: Data(result.utf8)) {
            object["result"] = parsed
        }
        return object
    }

    static func lines(_ data: Data) -> [Any] {
        data.split(separator: UInt8(ascii: "\n")).compactMap { try? JSONSerialization.jsonObject(with: Data($0)) }
    }
}
