package events

// Links mailed to a user: address verification and password reset (no
// organization). Payloads never hold a link's secret.
var (
	EmailVerificationRequested = define("user.email_verification_requested", "Email verification requested", "email")
	EmailVerificationMailed    = define("user.email_verification_mailed", "Email verification link mailed", "email")
	UserEmailVerified          = define("user.email_verified", "Email verified", "email")
	PasswordResetRequested     = define("user.password_reset_requested", "Password reset requested", "email")
	PasswordResetMailed        = define("user.password_reset_mailed", "Password reset link mailed", "email")
	UserPasswordReset          = define("user.password_reset", "Password reset by mail", "userId")
)
