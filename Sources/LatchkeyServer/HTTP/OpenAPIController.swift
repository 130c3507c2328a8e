import Foundation
import Hummingbird
import WebAuthn

/// `GET /openapi.yaml` and `GET /openapi.json`: the OpenAPI 3.1 document of the whole HTTP API.
///
/// The source of truth is `openapi.yaml` at the repository's root; `scripts/openapi-json` copies it into
/// `Public/` beside its JSON form, so both ship as resources like the page's files and no YAML parser is
/// needed at run time (the tests check that the copies equal the source). They are served the way the
/// page's files are: read once at start-up, with an ETag and the same security headers.
///
/// The document also keeps the router honest: registered after every other route, the controller compares
/// the router's routes with the document's operations and refuses to start on any difference, so a route
/// cannot be added, renamed or removed without the document following (Tests/System/OpenAPI then checks, with
/// schemathesis, that what each route answers matches what the document says).
struct OpenAPIController: Sendable {
    let yaml: PageController.Asset
    let json: PageController.Asset
    /// Every operation of the document as "METHOD /path", path parameters as `{name}` (Hummingbird's
    /// spelling of a captured path element, and OpenAPI's).
    let operations: Set<String>

    static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// Loads both forms; a missing or unreadable document is a packaging error reported at start-up.
    static func load() throws -> OpenAPIController {
        let yaml = try resource("openapi", "yaml")
        let json = try resource("openapi", "json")
        // Latchkey's own parser, not JSONSerialization: the document is 0.6 MB, and Foundation's tree of it
        // (parsed, then bridged to dictionaries) was the largest allocation of start-up, over 10 MiB at
        // its peak in a debug build.
        guard case .object(let document)? = try? JSONValue.parse(json), case .object(let paths)? = document["paths"] else {
            throw ServerConfiguration.Invalid(description: "the API document openapi.json in the installation is not an OpenAPI document")
        }
        return OpenAPIController(
            yaml: PageController.Asset(data: yaml, contentType: "application/yaml; charset=utf-8"),
            json: PageController.Asset(data: json, contentType: "application/json; charset=utf-8"),
            operations: operations(in: paths))
    }

    /// "METHOD /path" for each operation under `paths` (members that are not methods, such as shared
    /// `parameters`, are skipped).
    static func operations(in paths: JSONObject) -> Set<String> {
        var operations: Set<String> = []
        for (path, item) in paths.members {
            guard case .object(let item) = item else { continue }
            for (method, _) in item.members where methods.contains(method) {
                operations.insert("\(method.uppercased()) \(path)")
            }
        }
        return operations
    }

    /// The same from Foundation's parse of the document (the tests read the served document so).
    static func operations(in paths: [String: Any]) -> Set<String> {
        var operations: Set<String> = []
        for (path, item) in paths {
            guard let item = item as? [String: Any] else { continue }
            for method in item.keys where methods.contains(method) {
                operations.insert("\(method.uppercased()) \(path)")
            }
        }
        return operations
    }

    /// Serves the document, then checks the router — with `alsoServed`, the routes served on another
    /// address (`--admin-listen`) — against it. Call it after every other route is added.
    func register(on router: Router<APIRequestContext>, alsoServed: [String] = []) throws {
        for (route, asset) in [("/openapi.yaml", yaml), ("/openapi.json", json)] {
            router.get(RouterPath(stringLiteral: route)) { request, _ in PageController.response(asset, request: request) }
        }
        let differences = Self.differences(
            routes: router.routes.map { "\($0.method.rawValue) \($0.path)" } + alsoServed, operations: operations)
        guard differences.isEmpty else {
            throw ServerConfiguration.Invalid(
                description: "the API document (openapi.yaml) does not match the router: \(differences.joined(separator: "; "))"
                    + " — document the route in openapi.yaml and run scripts/openapi-json")
        }
    }

    /// What is served but not documented, and what is documented but not served, one sentence each.
    static func differences(routes: [String], operations: Set<String>) -> [String] {
        let served = Set(routes)
        return served.subtracting(operations).sorted().map { "\($0) is served but not documented" }
            + operations.subtracting(served).sorted().map { "\($0) is documented but not served" }
    }

    private static func resource(_ name: String, _ ext: String) throws -> Data {
        guard let url = Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "Public"),
              let data = try? Data(contentsOf: url)
        else {
            throw ServerConfiguration.Invalid(description: "the API document \(name).\(ext) is missing from the installation")
        }
        return data
    }
}

extension PageController.Asset {
    /// An asset whose ETag is the FNV-1a digest of its bytes, as the page's files have.
    init(data: Data, contentType: String) {
        let digest = data.reduce(into: UInt64(14_695_981_039_346_656_037)) { $0 = ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
        self.init(body: ByteBuffer(bytes: data), contentType: contentType, etag: "\"\(String(digest, radix: 16))\"")
    }
}
