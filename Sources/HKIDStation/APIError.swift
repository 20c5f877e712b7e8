import Foundation
import Hummingbird

/// An error answer: the status and `{"error": "..."}`. Everything a route
/// throws is turned into one of these by `ErrorMappingMiddleware`, so no
/// request ever gets a bare 500 for something the client did.
struct APIError: HTTPResponseError {
    let status: HTTPResponse.Status
    let message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    init(_ error: StationError) {
        let status: HTTPResponse.Status = switch error.kind {
        case .badRequest: .badRequest
        case .notFound: .notFound
        case .conflict: .conflict
        case .unavailable: .serviceUnavailable
        case .configuration, .storage: .internalServerError
        }
        self.init(status, error.message)
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = JSONResponse.encode(["error": message])
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// Maps Hummingbird's own errors (404 for unknown routes, 405 for a known
/// route asked with another method, 413 from `collect(upTo:)`) and anything
/// unexpected into `APIError`s.
struct ErrorMappingMiddleware<Context: RequestContext>: RouterMiddleware {
    let allowed: AllowedMethods

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as StationError {
            throw APIError(error)
        } catch let error as HTTPError where error.status == .notFound {
            guard let methods = allowed.methods(for: request.uri.path), !methods.contains(request.method.rawValue) else {
                throw APIError(.notFound, error.body ?? error.status.reasonPhrase)
            }
            var response = try APIError(.methodNotAllowed, "\(request.uri.path) takes \(methods.joined(separator: ", "))")
                .response(from: request, context: context)
            response.headers[.allow] = methods.joined(separator: ", ")
            return response
        } catch let error as HTTPError {
            throw APIError(error.status, error.body ?? error.status.reasonPhrase)
        } catch let error as any HTTPResponseError {
            throw APIError(error.status, error.status.reasonPhrase)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(error)"])
            throw APIError(.internalServerError, "internal error")
        }
    }
}

/// JSON bodies, one encoder configuration for the whole API.
enum JSONResponse {
    static func encode<Value: Encodable>(_ value: Value) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Our own Encodable structs of strings and numbers: encoding cannot
        // fail for them, and a reply must go out whatever happens.
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }

    static func response<Value: Encodable>(_ value: Value, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                 body: .init(byteBuffer: ByteBuffer(bytes: encode(value))))
    }
}
