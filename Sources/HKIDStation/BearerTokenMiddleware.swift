import Foundation
import HKIDSignature
import Hummingbird

/// Requires `Authorization: Bearer <token>` (any case of "Bearer") on every
/// route but `/healthz`.
///
/// Browsers cannot add a header to `<img src>` or `EventSource`, so the
/// operator page passes the same token as `?access_token=`; both are
/// compared in constant time.
struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.path == "/healthz" { return try await next(request, context) }
        var presented: String?
        // The scheme is case-insensitive (RFC 9110 11.1): "bearer" works too.
        if let header = request.headers[.authorization], header.count > 7,
           header.prefix(7).lowercased() == "bearer " {
            presented = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        } else if let query = request.uri.queryParameters.get("access_token") {
            presented = query
        }
        guard let presented, ConstantTime.equal(presented, token) else {
            var response = try APIError(.unauthorized, "a bearer token is required")
                .response(from: request, context: context)
            response.headers[.wwwAuthenticate] = "Bearer realm=\"hkid-station\""
            return response
        }
        return try await next(request, context)
    }
}
