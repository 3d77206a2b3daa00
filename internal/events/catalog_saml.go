package events

// Sign-in through an organization's SAML provider (the organization's
// event; user.signed_in with method "saml" is the user's). Payloads never
// hold the SAML response or its assertion.
var (
	SAMLSignedIn = define("saml.signed_in", "Signed in with SAML", "providerId", "userId", "userCreated", "joined")
)
