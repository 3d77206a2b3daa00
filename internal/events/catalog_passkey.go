package events

// Passkeys (WebAuthn credentials) of users (no organization:
// OrganizationID ""). Sign-in with one is user.signed_in, method
// "passkey" (or "password+passkey" as a second factor). Payloads hold
// names and ids, never a key or a challenge.
var (
	PasskeyAdded   = define("passkey.added", "Passkey added", "name", "userId", "aaguid")
	PasskeyRemoved = define("passkey.removed", "Passkey removed", "name", "userId")
	PasskeyRenamed = define("passkey.renamed", "Passkey renamed", "name", "userId")
)
