import EntitlementDaemon

// The production composition root: every service of Daemon, nothing test-only.
DaemonMain.run()
