import Foundation
import ServiceRuntime
import Webhooks

/// The webhook flags: where to POST each entitlement change, and the signing secret.
extension DaemonFlags {
    static let webhookSpecs = [
        FlagSpec("webhook-url", value: "URL", isRepeatable: true,
                 help: "POST each entitlement change here as signed JSON (environment: URLs separated by spaces)"),
        FlagSpec("webhook-secret", value: "SECRET",
                 help: "HMAC-SHA256 key of the Webhook-Signature header (prefer the environment or the file)"),
        FlagSpec("webhook-secret-file", value: "PATH",
                 help: "read --webhook-secret from this file (not readable by others; trailing newline ignored)"),
        FlagSpec("webhook-timeout", value: "DURATION", default: "10s",
                 help: "a webhook POST not answered within this long is a failed attempt"),
        FlagSpec("webhook-max-concurrency", value: "N", default: "16",
                 help: "webhook POSTs in flight per endpoint"),
    ]

    /// The dispatcher's settings, or nil when no --webhook-url is given. A URL needs a secret:
    /// unsigned webhooks would let anyone who finds the receiver forge entitlement changes.
    static func webhookConfiguration(_ flags: ParsedFlags, schedule: RetrySchedule) throws
        -> WebhookDispatcher.Configuration? {
        let texts = flags.strings("webhook-url")
        guard !texts.isEmpty else {
            if flags.string("webhook-secret") != nil || flags.string("webhook-secret-file") != nil {
                throw FlagError("--webhook-secret is set but no --webhook-url: add the endpoint, or drop the secret")
            }
            return nil
        }
        var urls: [URL] = []
        for text in texts {
            guard let url = URL(string: text), url.scheme == "https" || url.scheme == "http", url.host != nil else {
                throw FlagError("--webhook-url must be an http(s) URL such as https://api.example.com/hooks, "
                                + "got '\(WebhookEndpointName.redacted(text))'")
            }
            if !urls.contains(url) { urls.append(url) }
        }
        let secret = try webhookSecret(flags)
        return WebhookDispatcher.Configuration(
            endpoints: urls, secret: secret, schedule: schedule,
            timeout: try flags.duration("webhook-timeout")!,
            maxConcurrentPerEndpoint: try flags.int("webhook-max-concurrency", range: 1...1_000)!)
    }

    /// --webhook-secret, or the contents of --webhook-secret-file (never both, never empty).
    static func webhookSecret(_ flags: ParsedFlags) throws -> String {
        switch (flags.string("webhook-secret"), flags.string("webhook-secret-file")) {
        case (.some, .some):
            throw FlagError("--webhook-secret and --webhook-secret-file are both set: keep one")
        case let (.some(secret), nil):
            return secret
        case let (nil, .some(path)):
            let text: String
            do {
                text = try SecretFile.read(path)
            } catch {
                throw FlagError("--webhook-secret-file: \(error)")
            }
            let secret = text.trimmingCharacters(in: .newlines)
            guard !secret.isEmpty else {
                throw FlagError("--webhook-secret-file \(path) is empty: put the signing secret in it")
            }
            return secret
        case (nil, nil):
            throw FlagError("--webhook-url needs --webhook-secret (or --webhook-secret-file) to sign the webhooks "
                            + "with: generate one, e.g. `openssl rand -hex 32`, and give it to the receivers")
        }
    }
}
