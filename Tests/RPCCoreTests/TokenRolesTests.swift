import HTTPCore
import RPCCore
import Testing

/// The tokens file's `name=` and `roles=` fields: who a token is and what it may do.
struct TokenRolesTests {
    let file = """
    legacy-token
    named-legacy name=ops
    viewer-token name=vera roles=viewer
    support-token  name=sam\troles=support,viewer
    rpc-token roles=rpc
    padded/token== name=pat roles=admin
    """

    @Test func linesGiveNamesAndRoles() throws {
        let auth = try BearerTokenAuthenticator(fileContents: file)
        #expect(auth.tokenCount == 6)
        let everything = Principal.allRoles
        #expect(auth.principal(authorization: "Bearer legacy-token") == Principal(name: nil, roles: everything))
        #expect(auth.principal(authorization: "Bearer named-legacy") == Principal(name: "ops", roles: everything))
        #expect(auth.principal(authorization: "Bearer viewer-token") == Principal(name: "vera", roles: [.viewer]))
        let sam = Principal(name: "sam", roles: [.support, .viewer])
        #expect(auth.principal(authorization: "Bearer support-token") == sam)
        #expect(auth.principal(authorization: "Bearer rpc-token") == Principal(name: nil, roles: [.rpc]))
        #expect(auth.principal(authorization: "Bearer padded/token==")?.name == "pat")
        #expect(auth.principal(token: Array("viewer-token".utf8))?.name == "vera")
        // The fields are not part of the token.
        #expect(auth.principal(authorization: "Bearer viewer-token name=vera roles=viewer") == nil)
        #expect(auth.principal(authorization: "Bearer vera") == nil)
    }

    @Test(arguments: [
        ("tok role=admin", "unknown field 'role='"),
        ("tok roles=admin,root", "unknown role 'root'"),
        ("tok roles=", "unknown role ''"),
        ("tok name=", "name= needs a value"),
        ("tok name=a name=b", "name= given twice"),
        ("tok stray", "word 2 is not a field"),
        ("tok secret+rest=x", "unknown field: a token line"),
    ])
    func unreadableLinesAreRefusedWithoutTheToken(line: String, message: String) {
        do {
            _ = try BearerTokenAuthenticator(fileContents: "# header\n\(line)\n")
            Issue.record("accepted \(line)")
        } catch {
            #expect(error.lineNumber == 2)
            #expect(error.description.contains(message), "\(error)")
            #expect(!error.description.contains("tok "))
            #expect(!error.description.contains("stray") && !error.description.contains("secret"))
        }
    }

    @Test func aFailedReloadKeepsThePreviousTokens() throws {
        let auth = try BearerTokenAuthenticator(fileContents: "old name=a\n")
        #expect(throws: TokensFileError.self) { try auth.replace(fileContents: "new roles=superuser\n") }
        #expect(auth.principal(authorization: "Bearer old")?.name == "a")
    }

    @Test func refusalNamesTheActorAndTheNeededRolesNeverTheToken() {
        let message = Principal.refusal(Principal(name: "vera", roles: [.viewer]), needs: Principal.operators)
        #expect(message == "token 'vera' has roles viewer; this needs support or admin: "
                + "add the role to its roles= in the tokens file")
        #expect(Principal(name: nil, roles: []).actor == "unnamed")
    }

    @Test func theAdminGateRefusesOtherRolesWith403() throws {
        var inner = HTTPRouter()
        inner.add("GET", "/metrics") { _, writer in writer.respond(.text(200, "numbers\n")) }
        let auth = try BearerTokenAuthenticator(fileContents: file)
        let gate = BearerTokenGate(authenticator: auth, protecting: inner)
        func status(_ token: String) -> Int? {
            var headers = HTTPHeaders()
            headers.add(name: "authorization", value: "Bearer \(token)")
            let writer = RecordingResponseWriter()
            gate.handle(HTTPRequest(version: .http1_1, method: "GET", path: "/metrics", headers: headers, body: []),
                        writer: writer)
            return writer.response?.status
        }
        #expect(status("legacy-token") == 200)
        #expect(status("padded/token==") == 200)
        #expect(status("viewer-token") == 403)
        #expect(status("rpc-token") == 403)
        #expect(status("nope") == 401)
    }
}
