package events

// Translations of an organization's spaces.
var (
	TranslationCreated = define("translation.created", "Translation created", "title", "languages")
	TranslationUpdated = define("translation.updated", "Translation updated", "fields")
	TranslationDeleted = define("translation.deleted", "Translation deleted")
)
