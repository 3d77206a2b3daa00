package testkit

// bodySchemaExceptions lists the operations whose success bodies the
// contract check does not hold to the reference's schema, each with the
// reason: where GitBook's reference describes something other than what the
// seed specifies, the seed wins. Failures of these operations are still held
// to the error shape, and their tests check the seed's shape themselves.
// Keep this list short and every reason specific.
var bodySchemaExceptions = map[string]string{
	// The reference's Translation schema describes translation runs
	// (status, source, language, instructions, stats); the seed specifies
	// translation settings: object "translation-settings", id, title,
	// languages, createdAt, updatedAt, permissions {view, edit}, urls
	// {location}.
	"listTranslations":  "seed's translation settings, not the reference's translation runs",
	"createTranslation": "seed's translation settings, not the reference's translation runs",
	"getTranslation":    "seed's translation settings, not the reference's translation runs",
	"updateTranslation": "seed's translation settings, not the reference's translation runs",
}

// bodySchemaException tells whether operationID's success body is exempt
// from the reference schema, and why.
func bodySchemaException(operationID string) (reason string, ok bool) {
	reason, ok = bodySchemaExceptions[operationID]
	return reason, ok
}
