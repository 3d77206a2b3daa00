package events

// OpenAPI specs of an organization and their processing (a background
// job, whose events come from the system).
var (
	OpenAPISpecCreated           = define("openapi_spec.created", "OpenAPI spec created", "slug", "generation")
	OpenAPISpecUpdated           = define("openapi_spec.updated", "OpenAPI spec updated", "slug", "generation", "fields")
	OpenAPISpecDeleted           = define("openapi_spec.deleted", "OpenAPI spec deleted", "slug")
	OpenAPISpecProcessingStarted = define("openapi_spec.processing_started", "OpenAPI spec processing started", "slug", "generation")
	OpenAPISpecProcessingRetried = define("openapi_spec.processing_retried", "OpenAPI spec processing to be retried", "slug", "generation", "errorCode")
	OpenAPISpecProcessingFailed  = define("openapi_spec.processing_failed", "OpenAPI spec processing failed", "slug", "generation", "errorCode")
	OpenAPISpecVersionProcessed  = define("openapi_spec.version_processed", "OpenAPI spec version processed", "slug", "generation", "versionId")
)
