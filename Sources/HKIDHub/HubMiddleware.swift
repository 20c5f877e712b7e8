import Foundation
import Hummingbird

/// Requires `Authorization: Bearer TOKEN` of a known client on every route
/// but `/healthz`, and records the client in the context.
struct ClientTokenMiddleware: RouterMiddleware {
    let tokens: ClientTokens

    func handle(_ request: Request, context: HubRequestContext,
                next: (Request, HubRequestContext) async throws -> Response) async throws -> Response {
        if request.uri.path == "/healthz" { return try await next(request, context) }
        guard let header = request.headers[.authorization], header.count > 7, header.prefix(7).lowercased() == "bearer ",
              let client = tokens.client(for: header.dropFirst(7).trimmingCharacters(in: .whitespaces)) else {
            var response = HubResponse.error(.unauthorized, "a bearer token of a known client is required")
            response.headers[.wwwAuthenticate] = "Bearer realm=\"hkid-hub\""
            return response
        }
        var context = context
        context.client = client
        return try await next(request, context)
    }
}

/// Turns every error into `{"error": "..."}` with its status: 503 with
/// Retry-After while the database is unreachable, 413 over the size limit.
struct HubErrorMiddleware: RouterMiddleware {
    /// Seconds a client is told to wait while the database is unreachable.
    let retryAfter: Int

    func handle(_ request: Request, context: HubRequestContext,
                next: (Request, HubRequestContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HubError {
            let status: HTTPResponse.Status = switch error.kind {
            case .badRequest: .badRequest
            case .notFound: .notFound
            case .forbidden: .forbidden
            case .tooLarge: .contentTooLarge
            case .unavailable: .serviceUnavailable
            case .configuration, .storage: .internalServerError
            }
            var response = HubResponse.error(status, error.message)
            if error.kind == .unavailable { response.headers[.retryAfter] = "\(retryAfter)" }
            if error.kind == .tooLarge { response.headers[.connection] = "close" }
            return response
        } catch let error as HTTPError {
            return HubResponse.error(error.status, error.body ?? error.status.reasonPhrase)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            return HubResponse.error(.internalServerError, "internal error")
        }
    }
}

/// JSON answers, one spelling for the whole API.
enum HubResponse {
    static func json(_ object: Any, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        json(["error": message], status: status)
    }
}
