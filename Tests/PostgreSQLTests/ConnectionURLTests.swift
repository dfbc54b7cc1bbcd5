import Testing
@testable import PostgreSQL

/// libpq reads the URL; what we add is a loggable form that never shows the password.
struct ConnectionURLTests {
    @Test func readsBothSchemesWithLibpqSemantics() throws {
        for scheme in ["postgres", "postgresql"] {
            let url = try ConnectionURL("\(scheme)://app:s%40cret@db.internal:6432/entitlements?sslmode=disable")
            #expect(url["user"] == "app")
            #expect(url["password"] == "s@cret")
            #expect(url["host"] == "db.internal")
            #expect(url["port"] == "6432")
            #expect(url["dbname"] == "entitlements")
            #expect(url["sslmode"] == "disable")
            #expect(ConnectionURL.isPostgreSQL("\(scheme)://x"))
        }
        #expect(!ConnectionURL.isPostgreSQL("./entitlements.sqlite"))
        #expect(try ConnectionURL("host=/run/pg dbname=x")["host"] == "/run/pg")
    }

    @Test func redactedShowsEverythingButThePassword() throws {
        let url = try ConnectionURL("postgresql://app:hunter2@db:5432/ents?application_name=a%20b&sslpassword=keypw")
        #expect(url.redacted == "postgresql://app:***@db:5432/ents?application_name=a%20b&sslpassword=***")
        #expect("\(url)" == url.redacted)
        #expect(!url.redacted.contains("hunter2") && !url.redacted.contains("keypw"))
        let socket = try ConnectionURL("postgresql:///ents?host=/var/run/postgresql")
        #expect(socket.redacted == "postgresql:///ents?host=%2Fvar%2Frun%2Fpostgresql")
        #expect(try ConnectionURL("postgresql://localhost").redacted == "postgresql://localhost/")
    }

    @Test func settingReplacesWhatTheURLSaid() throws {
        let url = try ConnectionURL("postgresql://u:p@h/first").setting("dbname", to: "second")
        #expect(url["dbname"] == "second")
        #expect(url.settings.filter { $0.keyword == "dbname" }.count == 1)
        #expect(url.setting("password", to: "other").redacted == "postgresql://u:***@h/second")
    }

    @Test func aMalformedURLIsRefusedWithoutEchoingThePassword() {
        let malformed = ["postgresql://u:pa%zzss@h/db", "postgresql://u:topsecret@[::1/db",
                         "postgresql://u:top%00secret@h/db", "postgresql://h/db?bogus=1"]
        for text in malformed {
            #expect {
                _ = try ConnectionURL(text)
            } throws: { error in
                let description = "\(error)"
                return (error as? PostgreSQLError)?.kind == .invalidArgument
                    && !description.contains("pa%zzss") && !description.contains("topsecret")
                    && !description.contains("top%00secret")
                    && description.contains("postgresql://USER:PASSWORD@HOST")
            }
        }
    }

    @Test func detectingDeadPeersSetsKeepalivesOnBothEndsAndKeepsTheRest() throws {
        let url = try ConnectionURL("postgresql://u:p@h/db?options=-c%20search_path%3Dx&application_name=a")
        let alive = url.detectingDeadPeers()
        #expect(alive["keepalives"] == "1" && alive["keepalives_idle"] == "5" && alive["keepalives_count"] == "3")
        #expect(alive["tcp_user_timeout"] == "10000" && alive["connect_timeout"] == "5")
        #expect(alive["options"] == "-c search_path=x -c tcp_keepalives_idle=5 -c tcp_keepalives_interval=2 "
                + "-c tcp_keepalives_count=3 -c tcp_user_timeout=10000")
        #expect(alive["password"] == "p" && alive["dbname"] == "db" && alive["application_name"] == "a")
    }
}
