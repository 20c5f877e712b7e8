import Foundation

/// The webhooks of finished checks, kept in the job store's database so
/// they survive restarts and are shared by every hub. A check uploaded with
/// a webhook URL gets one delivery row when it ends (done or failed): a
/// trigger on its state writes it in the transaction that ends the check.
public protocol WebhookQueue: Sendable {
    /// Takes the oldest due delivery that is neither delivered nor out of
    /// attempts, for `lease` (another sender may take it after); counts the attempt.
    func claimDelivery(sender: String, lease: Duration, maxAttempts: Int) async throws -> WebhookDelivery?

    /// Records how the attempt ended: delivered on a 2xx, otherwise due again
    /// after `outcome.retryAfter`, or failed for good when that is nil.
    /// Nothing is written when the lease passed to another sender.
    func record(_ delivery: WebhookDelivery, outcome: WebhookAttemptOutcome) async throws

    /// The webhook of a check, nil when it was uploaded without one.
    func webhook(id: String) async throws -> WebhookStatus?
}
