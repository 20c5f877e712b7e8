import Crypto
import Foundation
import HKIDHub
import Hummingbird
import Logging
import Synchronization
import Testing

/// Webhooks over real HTTP on loopback, from hubs over a real PostgreSQL:
/// a receiver in this process refuses the first two attempts, one of the two
/// hubs sending is stopped after the first, and the webhook still arrives,
/// signed, and is acknowledged exactly once.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct WebhookTests {
    let fixture: HubFixture
    static let secret = "whsec-0123456789abcdef"

    init() throws {
        fixture = try HubFixture()
        // The fixture's clients, `bank` now with a webhook secret.
        try "bank \(HubFixture.token) webhook-secret=\(Self.secret)\nother \(HubFixture.otherToken)\n"
            .write(toFile: fixture.tokenPath, atomically: true, encoding: .utf8)
    }


    /// What the receiver was sent, and how it answered.
    struct Received: Sendable {
        var signature: String?
        var body: Data
        var status: Int
    }

    /// A webhook receiver answering 500 to the first `refusals` requests and 200 after.
    final class Receiver: Sendable {
        let received = Mutex<[Received]>([])
        let port = Mutex<Int?>(nil)
        let refusals: Int

        init(refusals: Int) {
            self.refusals = refusals
        }

        var requests: [Received] { received.withLock { $0 } }

        func run() async throws {
            let router = Router()
            router.post("hook") { request, _ -> Response in
                let body = Data(try await request.body.collect(upTo: 1 << 20).readableBytesView)
                let signature = request.headers[HTTPFields.Element.Name(WebhookSignature.header)!]
                let status = self.received.withLock { list in
                    let status = list.count < self.refusals ? 500 : 200
                    list.append(Received(signature: signature, body: body, status: status))
                    return status
                }
                return Response(status: .init(code: status))
            }
            var quiet = Logger(label: "webhook-receiver")
            quiet.logLevel = .critical
            let application = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                                          onServerRunning: { channel in self.port.withLock { $0 = channel.localAddress?.port } },
                                          logger: quiet)
            try await application.runService(gracefulShutdownSignals: [])
        }

        func waitForPort() async throws -> Int {
            for _ in 0..<200 {
                if let port = port.withLock({ $0 }) { return port }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw ShellError("the webhook receiver did not start")
        }
    }

    /// HMAC-SHA256 over "t.body", written out here rather than with the hub's
    /// own code, as a receiver in another language would.
    static func verifies(_ header: String?, body: Data, secret: String) -> Bool {
        guard let header else { return false }
        let fields = Dictionary(header.split(separator: ",").map { part -> (String, String) in
            let pair = part.split(separator: "=", maxSplits: 1)
            return (String(pair.first ?? ""), pair.count == 2 ? String(pair[1]) : "")
        }, uniquingKeysWith: { first, _ in first })
        guard let t = fields["t"], let v1 = fields["v1"] else { return false }
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(t).".utf8) + body, using: SymmetricKey(data: Data(secret.utf8)))
        return mac.map { String(format: "%02x", $0) }.joined() == v1
    }

    @Test func aWebhookIsSignedRetriedAndAcknowledgedOnceAcrossHubs() async throws {
        let receiver = Receiver(refusals: 2)
        let serving = Task { try await receiver.run() }
        defer { serving.cancel() }
        let hook = "http://127.0.0.1:\(try await receiver.waitForPort())/hook"

        let database = try PostgresServer.shared.createDatabase()
        let arguments = ["--webhook-backoff", "0.5", "--webhook-attempts", "5"]
        let (first, port) = try fixture.startHub(database: database, arguments: arguments)
        defer { first.stop() }
        let (second, secondPort) = try fixture.startHub(database: database, arguments: arguments)
        defer { second.stop() }
        let client = HubClient(base: "http://127.0.0.1:\(port)")

        // A client without a webhook secret cannot ask for a webhook.
        var other = client
        other.token = HubFixture.otherToken
        let video = try fixture.tinyVideo()
        let refused = try other.request("POST", "/v1/checks", headers: ["Idempotency-Key": "w0", "Webhook-URL": hook],
                                        uploadFile: video)
        #expect(refused.status == 400)
        #expect(refused.json["error"] as? String
            == "client other has no webhook-secret in the hub's token file, so it cannot ask for webhooks", "\(refused.text)")
        let malformed = try client.request("POST", "/v1/checks", headers: ["Idempotency-Key": "w0", "Webhook-URL": "ftp://x"],
                                           uploadFile: video)
        #expect(malformed.status == 400, "\(malformed.text)")
        #expect(malformed.json["error"] as? String == "Webhook-URL must be an absolute http or https URL, not ftp://x")

        let created = try client.request("POST", "/v1/checks", headers: ["Idempotency-Key": "w1", "Webhook-URL": hook],
                                         uploadFile: video)
        #expect(created.status == 202, "\(created.text)")
        let id = try #require(created.json["id"] as? String)
        #expect((created.json["webhook"] as? [String: Any]) == nil)
        #expect((try client.request("GET", "/v1/checks/\(id)").json["webhook"] as? [String: Any])?["state"] as? String
            == "waiting")

        let worker = try fixture.startWorker(database: database, name: "w")
        defer { worker.stop() }
        let check = try client.waitUntilFinished(id)
        #expect(check["state"] as? String == "done", "\(check)\n\(worker.output)")

        // One hub goes away after the first refusal; the other carries on.
        for _ in 0..<200 where receiver.requests.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        first.stop()
        let survivor = HubClient(base: "http://127.0.0.1:\(secondPort)")
        var webhook: [String: Any] = [:]
        for _ in 0..<300 {
            webhook = try survivor.request("GET", "/v1/checks/\(id)").json["webhook"] as? [String: Any] ?? [:]
            if webhook["state"] as? String == "delivered" { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(webhook["state"] as? String == "delivered", "\(webhook)\n\(first.output)\n\(second.output)")
        #expect(webhook["attempts"] as? Int == 3)
        #expect(webhook["lastStatus"] as? Int == 200)
        #expect(webhook["url"] as? String == hook)
        #expect(webhook["deliveredAt"] as? Int != nil)

        // Nothing more once acknowledged, from either hub.
        try await Task.sleep(for: .seconds(2))
        let requests = receiver.requests
        #expect(requests.map(\.status) == [500, 500, 200])
        #expect(try PostgresServer.shared.sql("SELECT state || ' ' || attempts FROM hub_webhooks", database: database)
            == "delivered 3")

        for request in requests {
            #expect(Self.verifies(request.signature, body: request.body, secret: Self.secret), "\(request.signature ?? "no header")")
            #expect(WebhookSignature.verify(request.signature ?? "", body: request.body, secret: Self.secret))
            #expect(!Self.verifies(request.signature, body: request.body, secret: "whsec-wrong-0123456789"))
            #expect(!WebhookSignature.verify(request.signature ?? "", body: request.body, secret: "whsec-wrong-0123456789"))
            #expect(!Self.verifies(request.signature, body: request.body + Data(" ".utf8), secret: Self.secret))
        }
        let bodies = try requests.map { try #require(try JSONSerialization.jsonObject(with: $0.body) as? [String: Any]) }
        #expect(bodies.map { $0["deliveryAttempt"] as? Int } == [1, 2, 3])
        let last = try #require(bodies.last)
        #expect(last["type"] as? String == "check.finished")
        #expect(last["id"] as? String == id)
        #expect(last["state"] as? String == "done")
        #expect(last["resultCode"] as? Int == check["resultCode"] as? Int)
        #expect(last["verdict"] as? String == check["verdict"] as? String)
        #expect((last["links"] as? [String: String])?["bundle"] == "/v1/checks/\(id)/bundle")
    }

    /// The embedded hub queues and retries webhooks the same way, on SQLite.
    @Test func anEmbeddedHubDeliversItsWebhookAfterARefusal() async throws {
        let receiver = Receiver(refusals: 1)
        let serving = Task { try await receiver.run() }
        defer { serving.cancel() }
        let hook = "http://127.0.0.1:\(try await receiver.waitForPort())/hook"
        let hub = try ChildProcess([ChildProcess.binary("hkid-hub"), "--embedded", fixture.directory + "/embedded",
                                    "--signing-key", fixture.privateKeyPath, "--tokens", fixture.tokenPath, "--port", "0",
                                    "--webhook-backoff", "0.5"])
        defer { hub.stop() }
        let client = HubClient(base: "http://127.0.0.1:\(try hub.waitFor(#"address=http://[0-9.]+:(\d+)"#))")
        let created = try client.request("POST", "/v1/checks", headers: ["Idempotency-Key": "e1", "Webhook-URL": hook],
                                         uploadFile: try fixture.tinyVideo())
        let id = try #require(created.json["id"] as? String, "\(created.text)")
        let check = try client.waitUntilFinished(id)
        var webhook: [String: Any] = [:]
        for _ in 0..<300 {
            webhook = try client.request("GET", "/v1/checks/\(id)").json["webhook"] as? [String: Any] ?? [:]
            if webhook["state"] as? String == "delivered" { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(webhook["state"] as? String == "delivered", "\(webhook)\n\(hub.output)")
        #expect(webhook["attempts"] as? Int == 2)
        try await Task.sleep(for: .seconds(1))
        let requests = receiver.requests
        #expect(requests.map(\.status) == [500, 200])
        for request in requests {
            #expect(Self.verifies(request.signature, body: request.body, secret: Self.secret))
        }
        let delivered = try #require(requests.last)
        let last = try #require(try JSONSerialization.jsonObject(with: delivered.body) as? [String: Any])
        #expect(last["id"] as? String == id)
        #expect(last["state"] as? String == check["state"] as? String)
    }
}
