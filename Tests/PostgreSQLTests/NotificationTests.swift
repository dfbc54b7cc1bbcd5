import Foundation
import Testing
@testable import PostgreSQL

/// LISTEN/NOTIFY delivery, commit semantics, and a dropped listener noticed and restored.
@Suite(.enabled(if: TestDatabase.isConfigured, TestDatabase.skipReason))
struct NotificationTests {
    @Test func deliversWhatIsNotifiedOnListenedChannels() async throws {
        try await withDatabase { database in
            let listener = try database.connect(), sender = try database.connect()
            try listener.listen("users")
            #expect(try listener.waitForNotifications(timeoutMs: 0).isEmpty)
            try sender.notify(channel: "users", payload: "user-1")
            try sender.notify(channel: "other", payload: "ignored")
            try sender.notify(channel: "users", payload: "user-2 'quoted' ?")
            var received: [(channel: String, payload: String)] = []
            let deadline = Date().addingTimeInterval(10)
            while received.count < 2 && Date() < deadline {
                received += try listener.waitForNotifications(timeoutMs: 1_000)
            }
            #expect(received.map(\.channel) == ["users", "users"])
            #expect(received.map(\.payload) == ["user-1", "user-2 'quoted' ?"])
        }
    }

    @Test func aNotificationInATransactionArrivesAtCommitOnly() async throws {
        try await withDatabase { database in
            let listener = try database.connect(), sender = try database.connect()
            try listener.listen("changes")
            try sender.execute("BEGIN")
            try sender.notify(channel: "changes", payload: "42")
            #expect(try listener.waitForNotifications(timeoutMs: 200).isEmpty)
            try sender.execute("COMMIT")
            let received = try listener.waitForNotifications(timeoutMs: 10_000)
            #expect(received.map(\.payload) == ["42"])
            try sender.execute("BEGIN")
            try sender.notify(channel: "changes", payload: "rolled back")
            try sender.execute("ROLLBACK")
            #expect(try listener.waitForNotifications(timeoutMs: 300).isEmpty)
        }
    }

    @Test func aDroppedListenerThrowsThenListensAgainOnTheNextWait() async throws {
        try await withDatabase { database in
            let listener = try database.connect(), sender = try database.connect()
            try listener.listen("users")
            try database.terminate(listener)
            let error = #expect(throws: PostgreSQLError.self) {
                // Generous bound for a loaded machine: the drop is seen as soon as the socket closes.
                let deadline = Date().addingTimeInterval(20)
                while Date() < deadline { _ = try listener.waitForNotifications(timeoutMs: 1_000) }
            }
            #expect(error?.isConnectionLost == true)
            // The next wait reconnects and LISTENs again; notifications flow once more.
            #expect(try listener.waitForNotifications(timeoutMs: 0).isEmpty)
            try sender.notify(channel: "users", payload: "after")
            let received = try listener.waitForNotifications(timeoutMs: 10_000)
            #expect(received.map(\.payload) == ["after"])
        }
    }
}
