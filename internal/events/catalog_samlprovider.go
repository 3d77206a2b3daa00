package events

// SAML providers of an organization (never their certificates' or keys'
// contents).
var (
	SAMLProviderCreated = define("saml_provider.created", "SAML provider created", "label")
	SAMLProviderUpdated = define("saml_provider.updated", "SAML provider updated", "fields")
	SAMLProviderDeleted = define("saml_provider.deleted", "SAML provider deleted")
)
