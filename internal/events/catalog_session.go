package events

// Sign-in, sessions and passwords (no organization: OrganizationID "").
// Payloads never hold a password, a cookie or a hash.
var (
	UserSignedIn        = define("user.signed_in", "User signed in", "sessionId", "method")
	UserSignInFailed    = define("user.sign_in_failed", "Sign-in failed", "email", "reason")
	UserSignedOut       = define("user.signed_out", "User signed out", "sessionId")
	SessionRevoked      = define("session.revoked", "Session revoked", "sessionId", "userId")
	UserPasswordChanged = define("user.password_changed", "Password changed", "userId")
)
