package events

// Webhooks of an organization: their life (never their secret).
var (
	WebhookCreated  = define("webhook.created", "Webhook created", "webhookId", "url", "events")
	WebhookUpdated  = define("webhook.updated", "Webhook updated", "webhookId", "url", "fields")
	WebhookDeleted  = define("webhook.deleted", "Webhook deleted", "webhookId", "url")
	WebhookDisabled = define("webhook.disabled", "Webhook disabled after failing", "webhookId", "url", "failingSince")
)
