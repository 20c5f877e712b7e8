import Foundation
import HKIDSignature
import Testing

/// Two test hosts of our own: network namespaces joined by a veth pair. The
/// database and the hub run on one, the worker and the client on the other,
/// so every byte between them crosses a real interface (10.213.N.0/24, which
/// exists only inside these namespaces).
@Suite(.serialized, .timeLimit(.minutes(3)), .enabled(if: getuid() == 0, "network namespaces need root"))
struct SeparateHostsTests {
    final class TestNetwork {
        let server: String
        let worker: String
        let serverAddress: String
        let workerAddress: String

        init() throws {
            let tag = String(UInt32.random(in: 0..<0xffff), radix: 16)
            server = "hkid-db-\(tag)"
            worker = "hkid-wk-\(tag)"
            let subnet = Int.random(in: 1...250)
            serverAddress = "10.213.\(subnet).1"
            workerAddress = "10.213.\(subnet).2"
            let serverLink = "hkdb\(tag)", workerLink = "hkwk\(tag)"
            let steps: [[String]] = [
                ["netns", "add", server], ["netns", "add", worker],
                ["-n", server, "link", "set", "lo", "up"], ["-n", worker, "link", "set", "lo", "up"],
                ["-n", server, "link", "add", serverLink, "type", "veth", "peer", "name", workerLink, "netns", worker],
                ["-n", server, "addr", "add", "\(serverAddress)/24", "dev", serverLink],
                ["-n", worker, "addr", "add", "\(workerAddress)/24", "dev", workerLink],
                ["-n", server, "link", "set", serverLink, "up"], ["-n", worker, "link", "set", workerLink, "up"],
            ]
            for step in steps {
                let result = Shell.run(["/usr/sbin/ip"] + step)
                if result.code != 0 {
                    remove()
                    throw ShellError("ip \(step.joined(separator: " ")): \(result.output)")
                }
            }
        }

        func on(_ namespace: String) -> [String] { ["/usr/sbin/ip", "netns", "exec", namespace] }

        func remove() {
            _ = Shell.run(["/usr/sbin/ip", "netns", "del", server])
            _ = Shell.run(["/usr/sbin/ip", "netns", "del", worker])
        }
    }

    @Test func aWorkerOnAnotherHostChecksAnUploadFromThere() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        let fixture = try HubFixture()
        let server = try PostgresServer(extraAddresses: [network.serverAddress], wrapper: network.on(network.server))
        defer { server.stopQuietly() }
        let local = try server.createDatabase()
        let remote = local.replacingOccurrences(of: "@127.0.0.1:", with: "@\(network.serverAddress):")
        let (hub, port) = try fixture.startHub(database: local, arguments: ["--host", network.serverAddress],
                                               wrapper: network.on(network.server))
        defer { hub.stop() }
        let worker = try fixture.startWorker(database: remote, name: "far", wrapper: network.on(network.worker))
        defer { worker.stop() }
        let client = HubClient(base: "http://\(network.serverAddress):\(port)", wrapper: network.on(network.worker))

        let id = try #require(try client.upload(ChildProcess.sample("genuine-2003.mp4"), key: "far", card: "2003").json["id"] as? String)
        let check = try client.waitUntilFinished(id)
        #expect(check["state"] as? String == "done", "\(check)\n\(worker.output)")
        #expect(check["resultCode"] as? Int == 0)
        // The worker's connections came over the veth, from its own address.
        let peers = try server.sql("SELECT DISTINCT host(client_addr) FROM pg_stat_activity WHERE client_addr IS NOT NULL",
                                   database: local)
        #expect(peers.split(separator: "\n").contains(Substring(network.workerAddress)), "\(peers)")
        #expect(try server.sql("SELECT worker FROM hub_runs", database: local) == "far")
        let bundle = try client.request("GET", "/v1/checks/\(id)/bundle")
        let path = fixture.directory + "/bundle.zip"
        try bundle.body.write(to: URL(fileURLWithPath: path))
        #expect(BundleVerifier(publicKey: fixture.publicKey).verify(bundleAt: URL(fileURLWithPath: path)).problems == [])
    }
}
