/// What `entitlementd verify-store` found: the engine's own structural checks, the schema
/// version, and the records (``StoreVerifier``).
package struct StoreCheck: Sendable {
    /// The schema version found and the one this binary migrates to.
    package var schemaVersion: Int
    package var latestVersion: Int
    /// Problems the engine reported about its own structures (pages, indexes, references).
    package var structureProblems: [String] = []
    /// Nil when the records were not checked (a schema of another version: the record format
    /// and tables may differ from what this binary reads).
    package var records: RecordVerification?

    package init(schemaVersion: Int, latestVersion: Int) {
        self.schemaVersion = schemaVersion
        self.latestVersion = latestVersion
    }

    /// Whether anything found means damage: a store whose only finding is an older schema is
    /// sound (the server migrates it at startup).
    package var isDamaged: Bool {
        !structureProblems.isEmpty || (records?.problemCount ?? 0) > 0 || schemaVersion > latestVersion
    }
}
