import EntitlementService

/// The admin endpoint's JSON for one reconciliation run (snake_case, Unix ms).
extension ReconciliationReport {
    var jsonObject: [String: Any] {
        [
            "started_at_ms": startedAtMs, "finished_at_ms": finishedAtMs, "succeeded": succeeded,
            "found": found, "applied": applied, "duplicate": duplicate, "rejected": rejected, "ignored": ignored,
            "environments": environments.map { run -> [String: Any] in
                var object: [String: Any] = [
                    "environment": run.environment.rawValue, "start_ms": run.startMs, "end_ms": run.endMs,
                    "pages": run.pages, "found": run.found, "applied": run.applied, "duplicate": run.duplicate,
                    "rejected": run.rejected, "ignored": run.ignored, "watermark_advanced": run.watermarkAdvanced,
                ]
                object["error"] = run.error
                return object
            },
        ]
    }
}
